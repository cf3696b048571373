"""What the engine is given rather than makes: the time (a Clock) and the ids (an IdSource).

The core never reads the wall clock itself or draws an id on its own; its owner injects
both, so a fake clock and a seeded id source make a run repeatable. This is the one module
of engine and sim that reads the wall clock.
"""
from __future__ import annotations

import random
import time
from typing import Any, Protocol

NS_PER_S = 1_000_000_000


# ------------------------------------------------------------ time


class Clock(Protocol):
    def now_ns(self) -> int: ...

    @property
    def is_fake(self) -> bool: ...


class SystemClock:
    """Wall-clock time in nanoseconds since the epoch."""

    is_fake = False
    # The C function itself: asking the time is asked on every event and call record.
    now_ns = staticmethod(time.time_ns)


class FakeClock:
    """A clock that only moves when told to. Starts at a fixed, plausible instant."""

    is_fake = True
    DEFAULT_START_NS = 1_767_225_600 * NS_PER_S  # 2026-01-01T00:00:00Z

    def __init__(self, start_ns: int = DEFAULT_START_NS) -> None:
        self._start = start_ns
        self._now = start_ns

    def now_ns(self) -> int:
        return self._now

    def advance(self, seconds: float) -> int:
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        self._now += int(seconds * NS_PER_S)
        return self._now

    def set(self, now_ns: int) -> None:
        """Move forward to `now_ns` (never back)."""
        self._now = max(self._now, now_ns)

    def reset(self) -> None:
        """Back to where it started: the one move back in time, for a Reset of everything."""
        self._now = self._start


# ------------------------------------------------------------ ids: 64 lowercase hex characters, like containerd's


class IdSource(Protocol):
    def new_id(self) -> str: ...


class RandomIds:
    """Random 256-bit ids; a seed makes the sequence reproducible."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def new_id(self) -> str:
        return f"{self._rng.getrandbits(256):064x}"

    def state(self) -> list[Any]:
        """Where the sequence is, as JSON-able data (for the state file)."""
        version, internal, gauss = self._rng.getstate()
        return [version, list(internal), gauss]

    def ahead(self, n: int) -> list[Any]:
        """Where the sequence will be after `n` more ids, as `state()` says it (this one does not move)."""
        rng = random.Random()
        rng.setstate(self._rng.getstate())
        for _ in range(n):
            rng.getrandbits(256)
        version, internal, gauss = rng.getstate()
        return [version, list(internal), gauss]

    def set_state(self, state: Any) -> None:
        """Continue the sequence from a `state()`; ValueError when it is not one."""
        try:
            version, internal, gauss = state
            self._rng.setstate((version, tuple(internal), gauss))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not an id sequence state: {exc}") from None


class SequentialIds:
    """Readable ids for tests: a counter, still 64 hex."""

    def __init__(self, start: int = 1) -> None:
        self._next = start

    def new_id(self) -> str:
        n = self._next
        self._next += 1
        return f"{n:064x}"
