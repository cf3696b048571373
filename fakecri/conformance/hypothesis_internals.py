"""The one place the suite reaches into Hypothesis beyond its public API, guarded so
that a Hypothesis without the attribute still runs the suite (only less well tuned):

- The cap on shrinking time: Hypothesis stops shrinking after a fixed number of
  seconds (5 minutes), far longer than a conformance run can afford.
- How many examples Hypothesis ran and how each ended (its observability callbacks):
  `max_examples` counts only valid ones, and an example that ran out of choices ends
  early, is discarded and is not counted.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import hypothesis

try:
    from hypothesis.internal.conjecture import engine as _engine
except ImportError:  # pragma: no cover - a Hypothesis that moved its engine
    _engine = None  # type: ignore[assignment]
try:
    from hypothesis.internal import observability as _observability
except ImportError:  # pragma: no cover
    _observability = None  # type: ignore[assignment]



def seed_test(test: Callable[..., Any], seed: int | None) -> None:
    """Make `test` draw from `seed` (None: leave it derandomized), as `@hypothesis.seed` does."""
    if seed is not None:
        hypothesis.seed(seed)(test)


def shrink_cap_available() -> bool:
    return _engine is not None and hasattr(_engine, "MAX_SHRINKING_SECONDS")


@contextmanager
def shrinking_limited_to(seconds: float) -> Iterator[None]:
    """Within the block, Hypothesis shrinks for at most `seconds` (rounded down, at
    least 1) per failing test; restored afterwards."""
    if not shrink_cap_available():
        yield
        return
    saved = _engine.MAX_SHRINKING_SECONDS
    _engine.MAX_SHRINKING_SECONDS = max(1, int(seconds))
    try:
        yield
    finally:
        _engine.MAX_SHRINKING_SECONDS = saved


@contextmanager
def counting_test_cases() -> Iterator[Counter[str] | None]:
    """Within the block, count the test cases Hypothesis runs on this thread by how they
    ended ("passed", "failed", "gave_up"); None when this Hypothesis cannot say."""
    add = getattr(_observability, "add_observability_callback", None)
    remove = getattr(_observability, "remove_observability_callback", None)
    if add is None or remove is None:
        yield None
        return
    counts: Counter[str] = Counter()

    def note(observation: Any) -> None:
        if getattr(observation, "type", None) == "test_case":
            counts[str(getattr(observation, "status", "?"))] += 1

    add(note)
    try:
        yield counts
    finally:
        remove(note)
