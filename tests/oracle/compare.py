"""Runs one script on both sides, each time in a fresh scratch directory, and compares what they
gave after the deliberate differences are normalised."""
from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass

from .busybox_side import BusyboxSide, Result
from .differences import normalise
from .fakecri_side import FakecriSide


@dataclass(frozen=True, slots=True)
class Case:
    """One script to judge. `stderr=False` compares stdout and the exit code only (a message
    whose wording is not the point of the script)."""

    name: str
    category: str
    script: str
    stderr: bool = True
    # a stop: SIGTERM `signal_after_s` after the start, then SIGKILL `grace_s` later if it still runs
    # (busybox: in the background, `kill -TERM`; fakecri: the container's command, StopContainer)
    signal_after_s: float | None = None
    grace_s: float = 2.0


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    busybox: Result
    fakecri: Result

    def _fields(self, r: Result) -> tuple[str, int, str]:
        return (r.stdout, r.rc, r.stderr if self.case.stderr else "")

    @property
    def match(self) -> bool:
        return self._fields(self.busybox) == self._fields(self.fakecri)

    @property
    def stdout_and_rc_match(self) -> bool:
        return (self.busybox.stdout, self.busybox.rc) == (self.fakecri.stdout, self.fakecri.rc)

    def describe(self, width: int = 400) -> str:
        def cut(s: str) -> str:
            r = repr(s)
            return r if len(r) <= width else r[:width] + "...'"

        lines = [f"[{self.case.category}] {self.case.name}", "script:",
                 *("    " + x for x in self.case.script.splitlines())]
        for label, r in (("busybox", self.busybox), ("fakecri", self.fakecri)):
            lines.append(f"{label}: rc={r.rc} stdout={cut(r.stdout)}")
            if self.case.stderr or label == "fakecri":
                lines.append(f"{' ' * len(label)}  stderr={cut(r.stderr)}")
        return "\n".join(lines)


class Judge:
    """The two sides and a counter of scratch directories (safe to call from several threads)."""

    def __init__(self, busybox: BusyboxSide, fakecri: FakecriSide, timeout: int = 10) -> None:
        self.busybox = busybox
        self.fakecri = fakecri
        self.timeout = timeout
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    def _scratch(self) -> int:
        with self._lock:
            return next(self._numbers)

    @staticmethod
    def prefixed(parent: str, n: int, script: str) -> str:
        # On the script's first line, so line numbers in messages stay the script's own.
        d = f"{parent}/oracle-{n}"
        return f"mkdir -p {d} && cd {d} || exit 99; {script}"

    def judge(self, case: Case) -> Outcome:
        n = self._scratch()
        fallback = None if self.busybox.chroot else self.busybox.scratch_parent()
        t0 = time.time()
        ours = self.prefixed(self.busybox.scratch_parent(), n, case.script)
        theirs = self.prefixed("/tmp", n, case.script)
        if case.signal_after_s is None:
            bb = self.busybox.run(ours, self.timeout)
            t1 = time.time()
            fc = self.fakecri.run(theirs, self.timeout)
        else:
            bb = self.busybox.run_stopped(ours, case.signal_after_s, case.grace_s)
            t1 = time.time()
            fc = self.fakecri.run_stopped(theirs, case.signal_after_s, case.grace_s)
        t2 = time.time()
        return Outcome(case, _normalised(bb, (t0, t1), fallback), _normalised(fc, (t1, t2), None))


def _normalised(r: Result, now: tuple[float, float], scratch: str | None) -> Result:
    return Result(normalise(r.stdout, now, scratch), normalise(r.stderr, now, scratch), r.rc)
