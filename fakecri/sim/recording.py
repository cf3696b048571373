"""Running a simulated process to its end at once: what it writes and when, and how it ends.

`record` drives a process (fakecri.sim.steps) without waiting: sleeps move its clock on,
input comes from what it was given, the network from the answerer it was given (without
one it stops at its first network step). Container plans and pure ExecSync use it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fakecri.engine.durations import NS
from fakecri.sim.steps import LOOK, Connect, NetResult, Process, Reply, Sleep, Trap, Write

MAX_SLEEP_NS = 100 * 365 * 86_400 * NS["s"]
MAX_STEPS = 100_000  # a traced process taking more steps than this is treated as running forever


@dataclass(frozen=True, slots=True)
class Trace:
    """What a command does, worked out at once.

    `outputs` are (offset_ns, stream, text), text as written (echo's newline included);
    `end_ns` is when it exits (None: it never does), with `exit_code`. `input_at_ns`:
    it stopped at that offset to wait for input that the trace did not have (None: it
    did not), so a live driver can take it on from there when input comes. `live_at_ns`:
    it stopped at that offset where only a live driver can carry it on: a look at its files
    after time has passed, or a network step (`connect`, not yet carried out).
    """

    outputs: tuple[tuple[int, str, str], ...]  # text: bytes that are not UTF-8 as surrogate escapes
    end_ns: int | None
    exit_code: int
    input_at_ns: int | None = None
    live_at_ns: int | None = None
    connect: Connect | None = None  # the network step it stopped at (see `record`)
    trap: Trap | None = None  # how it takes SIGTERM, when it said (the last `Trap` step)


def record(proc: Process, stdin: bytes | None = b"", net: Callable[[Connect], NetResult] | None = None, *,
           hand_over: bool = False) -> Trace:
    """Run `proc` to its end at once. `stdin` is all its input; None: input that never comes,
    so a process that reads runs until stopped. `net` answers its network steps; without it
    the trace stops at the first one. `hand_over`: stop too at the first LOOK after time has
    passed, and leave `proc` where it stopped (a LOOK or a network step, `live_at_ns`) for
    the caller to run on live; otherwise a stopped process is closed."""
    t = 0
    outputs: list[tuple[int, str, str]] = []
    fed = False
    reply: Reply = None
    input_at: int | None = None
    trap: Trap | None = None
    try:
        step = proc.send(None)
        for _ in range(MAX_STEPS):
            reply = None
            if isinstance(step, Write):
                outputs.append((t, step.stream, step.text))
            elif isinstance(step, Sleep):
                if step.ns is None:
                    break
                if step is LOOK and hand_over and t > 0:
                    return Trace(tuple(outputs), None, 0, live_at_ns=t, trap=trap)
                t = min(t + step.ns, MAX_SLEEP_NS)
            elif isinstance(step, Connect):
                if net is None:
                    if hand_over:
                        return Trace(tuple(outputs), None, 0, live_at_ns=t, connect=step, trap=trap)
                    break
                reply = net(step)
            elif isinstance(step, Trap):
                trap = step
            else:
                if stdin is None:
                    input_at = t
                    break
                reply, fed = (stdin if not fed and stdin else None), True
            step = proc.send(reply)
    except StopIteration as done:
        return Trace(tuple(outputs), t, int(done.value or 0) & 0xFF, trap=trap)
    proc.close()
    return Trace(tuple(outputs), None, 0, input_at, trap=trap)
