"""Injected time. The core never reads the wall clock itself; it asks a Clock."""
from __future__ import annotations

import time
from typing import Protocol

NS_PER_S = 1_000_000_000


class Clock(Protocol):
    def now_ns(self) -> int: ...

    @property
    def is_fake(self) -> bool: ...


class SystemClock:
    """Wall-clock time in nanoseconds since the epoch."""

    is_fake = False

    def now_ns(self) -> int:
        return time.time_ns()


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
