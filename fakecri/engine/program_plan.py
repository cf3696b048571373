"""What a container's program does, as data: the decision the container simulation
hands the engine (see `ports.Programs`), which the engine carries out with its timers.
"""
from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass

from fakecri.engine.exits import EXIT_KILLED, reason_for

DEFAULT_TICK_LINE = "fakecri: tick {n}"


@dataclass(frozen=True, slots=True)
class ProbeRule:
    """How exec commands matching `pattern` (a glob over the space-joined argv) answer."""

    pattern: str
    outcome: str  # "ok", "fail", "fail-after", "ok-after"
    after_ns: int = 0

    def exit_code(self, running_for_ns: int) -> int:
        if self.outcome == "ok":
            return 0
        if self.outcome == "fail":
            return 1
        late = running_for_ns >= self.after_ns
        if self.outcome == "fail-after":
            return 1 if late else 0
        return 0 if late else 1


Taken = tuple[int | None, int]  # how a program took the stop signal, as it came: (delay_ns or None, exit code)


@dataclass(frozen=True, slots=True)
class Plan:
    outputs: tuple[tuple[int, str, str], ...]  # (offset_ns from start, stream, text)
    end_ns: int | None  # offset of the exit; None: runs until stopped
    exit_code: int
    reason: str
    log_every_ns: int | None = None
    log_every_line: str = DEFAULT_TICK_LINE
    log_stream: str = "stdout"
    stop_delay_ns: int | None = 0  # how long the program takes to exit on SIGTERM; None: it ignores it
    stop_exit_code: int = 0
    fail_start: str | None = None
    probes: tuple[ProbeRule, ...] = ()
    input_at_ns: int | None = None  # the command waits for input from this offset (None: it never reads)
    # SIGTERM goes into the program (a shell with a trap for it): how a stop ends is worked out as
    # the signal comes, by running the program on from that moment (the simulation's `signalled`)
    term_delivered: bool = False

    def stop_outcome(self, timeout_ns: int, taken: Taken | None = None) -> tuple[int, int, str]:
        """(delay_ns, exit_code, reason) of a StopContainer with this timeout.

        As containerd stops a container: a timeout above zero sends the stop signal, and the
        program ends on its own if it takes the signal within the timeout, else SIGKILL ends
        it at the timeout; a timeout of zero sends SIGKILL at once (exit 137). `taken`: how
        the program took the signal, worked out as it came (see `term_delivered`), in place of
        the plan's own `stop_delay_ns` and `stop_exit_code`."""
        delay, code = (self.stop_delay_ns, self.stop_exit_code) if taken is None else taken
        if timeout_ns > 0 and delay is not None and delay <= timeout_ns:
            return delay, code, reason_for(code)
        return timeout_ns, EXIT_KILLED, reason_for(EXIT_KILLED)

    def probe_for(self, argv: Sequence[str]) -> ProbeRule | None:
        if not self.probes:
            return None
        joined = " ".join(argv)
        for rule in self.probes:
            if fnmatch.fnmatchcase(joined, rule.pattern):
                return rule
        return None
