"""What lives across the examples of one run: the run label, the violations found,
which properties were exercised and how often, and what every subscriber has received."""
from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable

from fakecri.client import CRIClient
from fakecri.conformance.expectations import Subscriber
from fakecri.conformance.options import Options
from fakecri.conformance.properties import NAMES, PLEG_PROPERTIES


class RunState:
    """One run's record. `focus` names the property a shrinking run is after: while it
    is set, only that property's violations are kept (as the focused counterexample)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.run_id = uuid.uuid4().hex[:12]
        self.client = CRIClient(options.endpoint, timeout=options.call_timeout)
        self.selected = list(options.properties or NAMES)
        self.focus: str | None = None
        self.violations: dict[str, list[tuple[str, list[str]]]] = {}
        self.exercises: Counter[str] = Counter()  # per property: events checked, answers judged, ...
        self.skip_notes: dict[str, str] = {}
        self.pass_notes: dict[str, str] = {}
        # Per property: objects it left out, by id (what its verdict says about them).
        self.left_out: dict[str, dict[str, str]] = {}
        self.seen: set[tuple[int, str]] = set()
        self.examples = 0
        self.last_calls: list[str] = []
        self.focus_calls: list[str] | None = None
        self.focus_message = ""
        self.events_unavailable: str | None = None  # why the runtime delivers no events, if it does not
        self.events_delivered = 0
        # Per property: the index of the first random example it failed in (the scripted
        # example, run first, is not one Hypothesis can replay or shrink).
        self.first_failure: dict[str, int] = {}
        self.focus_deadline: float | None = None  # monotonic time a focused run must stop by

    def enabled(self, name: str) -> bool:
        return name in self.selected

    def wants_pleg(self) -> bool:
        return any(n in PLEG_PROPERTIES for n in self.selected)

    def baseline(self, extra: Iterable[Subscriber] = ()) -> frozenset[tuple[int, str]]:
        pairs = set(self.seen)
        for sub in extra:
            pairs |= sub.pairs()
        return frozenset(pairs)

    def record(self, name: str, message: str, calls: list[str]) -> None:
        if self.focus is not None:
            if name == self.focus:
                self.focus_calls, self.focus_message = calls, message
            return
        self.violations.setdefault(name, []).append((message, calls))
        random_index = self.examples - (1 if self.options.scripted else 0)
        if random_index >= 0:
            self.first_failure.setdefault(name, random_index)

    def exercised(self, name: str, n: int = 1) -> None:
        if self.focus is None:
            self.exercises[name] += n

    def remark(self, name: str, ident: str, text: str) -> None:
        """Property `name` left object `ident` (written `text`) out of its judgement."""
        if self.focus is None:
            self.left_out.setdefault(name, {})[ident] = text

    def note_skip(self, name: str, reason: str) -> None:
        self.skip_notes.setdefault(name, reason)

    def random_index(self) -> int:
        """The number of the example now running among the random ones (0: the scripted one)."""
        return self.examples + 1 - (1 if self.options.scripted else 0)

    def example_done(self, subs: Iterable[Subscriber], calls: list[str]) -> None:
        self.last_calls = list(calls)
        subs = list(subs)
        for sub in subs:
            self.seen |= sub.pairs()  # a later subscriber, focused runs' too, must not get these again
        if self.focus is not None:
            return  # a focused run replays examples already counted
        index = self.random_index()
        self.examples += 1
        self.events_delivered += sum(len(sub.received) for sub in subs)
        if self.options.progress is not None:
            failing = sorted(self.violations)
            said = f"; failing so far: {', '.join(failing)}" if failing else ""
            asked = self.options.max_examples
            which = ("scripted example" if index == 0 else f"example {index}/{asked}" if index <= asked
                     else f"example {index} (an extra one: Hypothesis replaces the examples it cuts short)")
            self.options.progress(f"{which}: {len(calls)} calls{said}")

    def close(self) -> None:
        self.client.close()

