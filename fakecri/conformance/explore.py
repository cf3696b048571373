"""Exploring: after the derandomized run (the same draws every time, so a result can be
compared run to run), N runs on fresh seeds, within a time bound. Each is a whole run of
the suite on that seed (its failures shrunk as in any run) without the scripted
example and the slow-subscriber burst, which do not depend on the seed. A failing
seed is printed with the one command that replays it.

    from fakecri.conformance.explore import explore
    found = explore(Options(endpoint=...), runs=5, bound=600.0, replay=lambda s: f"... --seed {s}")
    print(found.text())
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from fakecri.conformance.options import Options
from fakecri.conformance.properties import SlowSubscriberPolicy
from fakecri.conformance.results import FAIL, SuiteResult
from fakecri.conformance.runner import run_suite

SEED_BITS = 32


@dataclass
class SeedRun:
    seed: int
    result: SuiteResult
    replay: str  # the command that replays this seed

    @property
    def failures(self) -> list[str]:
        return [r.name for r in self.result.results if r.status == FAIL]


@dataclass
class Exploration:
    asked: int
    bound: float
    runs: list[SeedRun] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failing(self) -> list[SeedRun]:
        return [r for r in self.runs if r.failures]

    def failed(self, strict: bool = False) -> bool:
        return any(r.result.failed(strict) for r in self.runs)

    def text(self) -> str:
        """A section for the end of the table: one line per seed, then each failing
        seed's failures as the table shows them, with the command that replays it."""
        stopped = f", stopped at the time bound ({self.bound:g}s)" if len(self.runs) < self.asked else ""
        lines = [f"explore: {len(self.runs)} of {self.asked} fresh seeds in {self.seconds:.0f}s{stopped};"
                 f" {len(self.failing)} failing"]
        for run in self.runs:
            said = f"FAIL {', '.join(run.failures)}" if run.failures else "no failure"
            lines.append(f"  seed {run.seed}: {said} ({run.result.seconds:.0f}s)")
        for run in self.failing:
            lines += ["", f"seed {run.seed} fails; replay it with:", f"  {run.replay}"]
            body = run.result.table().split("\n\n")
            lines += [part for part in body[2:-1] if part.strip()]  # the causes and the failures, not the table
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "bound": self.bound, "seconds": round(self.seconds, 2),
                "runs": [{"seed": r.seed, "failures": r.failures, "replay": r.replay,
                          "seconds": round(r.result.seconds, 2), "result": r.result.as_dict()} for r in self.runs]}


def explore(options: Options, runs: int, bound: float, replay: Callable[[int], str],
            seeds: Callable[[], int] | None = None) -> Exploration:
    """`runs` runs of the suite on fresh seeds (from `seeds`, default the system's
    randomness), none started after `bound` seconds; the last may shrink into what is
    left of the bound. `replay(seed)` is the command that replays a seed."""
    draw = seeds or (lambda: random.SystemRandom().getrandbits(SEED_BITS))
    found = Exploration(asked=runs, bound=bound)
    started = time.monotonic()
    say = options.progress or (lambda _text: None)
    wanted = options.properties
    if wanted is None:
        from fakecri.conformance.properties import NAMES

        wanted = list(NAMES)
    wanted = [n for n in wanted if n != SlowSubscriberPolicy.name]  # the burst does not depend on the seed
    for i in range(runs):
        left = bound - (time.monotonic() - started)
        if left <= 0:
            say(f"explore: the time bound ({bound:g}s) is spent after {i} seeds")
            break
        seed = draw()
        say(f"explore {i + 1}/{runs}: seed {seed}")
        result = run_suite(replace(options, seed=seed, scripted=False, properties=wanted,
                                   shrink_budget=min(options.shrink_budget, max(left / 2, 1.0))))
        run = SeedRun(seed, result, replay(seed))
        found.runs.append(run)
        if run.failures:
            say(f"explore {i + 1}/{runs}: seed {seed} fails {', '.join(run.failures)}; replay: {run.replay}")
    found.seconds = time.monotonic() - started
    return found
