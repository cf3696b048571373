"""Running a simulated process to its end at once: what it writes and when, and how it ends.

`record` drives a process (fakecri.sim.steps) without waiting: sleeps move its clock on,
input comes from what it was given, the network from the answerer it was given (without
one it stops at its first network step). Container plans and pure ExecSync use it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fakecri.engine.durations import NS
from fakecri.sim.steps import (
    LOOK,
    NO_NETWORK,
    READ,
    Connect,
    Delivered,
    NetResult,
    Process,
    Reply,
    Sleep,
    Step,
    Trap,
    Write,
)

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
    after time has passed, a network step (`connect`, not yet carried out), or a sleep
    (`asleep`) once it traps SIGTERM.
    """

    outputs: tuple[tuple[int, str, str], ...]  # text: bytes that are not UTF-8 as surrogate escapes
    end_ns: int | None
    exit_code: int
    input_at_ns: int | None = None
    live_at_ns: int | None = None
    connect: Connect | None = None  # the network step it stopped at (see `record`)
    asleep: Sleep | None = None  # the sleep it stopped in, which began at live_at_ns (see `record`)
    trap: Trap | None = None  # how it takes SIGTERM, when it said (the last `Trap` step)


def record(proc: Process, stdin: bytes | None = b"", net: Callable[[Connect], NetResult] | None = None, *,
           hand_over: bool = False) -> Trace:
    """Run `proc` to its end at once. `stdin` is all its input; None: input that never comes,
    so a process that reads runs until stopped. `net` answers its network steps; without it
    the trace stops at the first one. `hand_over`: stop too at the first LOOK after time has
    passed, or at the first sleep once it has a trap for SIGTERM (a `Trap` step it is
    `delivered` to, so that a stop's signal can reach it where it is), and leave `proc` where it
    stopped (a LOOK, a network step, that sleep: `live_at_ns`) for the caller to run on live;
    otherwise a stopped process is closed."""
    try:
        step = proc.send(None)
    except StopIteration as done:
        return Trace((), 0, int(done.value or 0) & 0xFF)
    return _record(proc, step, stdin, net, hand_over=hand_over)


def _record(proc: Process, step: Step, stdin: bytes | None, net: Callable[[Connect], NetResult] | None, *,
            hand_over: bool = False, limit_ns: int = MAX_SLEEP_NS) -> Trace:
    """`record` from `step`, the one `proc` yielded last; a process still running after
    `limit_ns` is left running (closed, end_ns None)."""
    t = 0
    outputs: list[tuple[int, str, str]] = []
    fed = False
    reply: Reply = None
    input_at: int | None = None
    trap: Trap | None = None
    try:
        for _ in range(MAX_STEPS):
            reply = None
            if isinstance(step, Write):
                outputs.append((t, step.stream, step.text))
            elif isinstance(step, Sleep):
                if hand_over and step.ns != 0 and trap is not None and trap.delivered:
                    # it takes a stop's signal in: it goes on live from this sleep, to get it there
                    return Trace(tuple(outputs), None, 0, live_at_ns=t, asleep=step, trap=trap)
                if step.ns is None:
                    break
                if step is LOOK and hand_over and t > 0:
                    return Trace(tuple(outputs), None, 0, live_at_ns=t, trap=trap)
                t = min(t + step.ns, MAX_SLEEP_NS)
                if t > limit_ns:
                    break
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


def continue_recording(proc: Process, step: Step, limit_ns: int,
                       net: Callable[[Connect], NetResult] | None = None) -> Trace:
    """`record` of a process already running, from `step` (the one it yielded last), with no
    input to come, for `limit_ns` at most."""
    return _record(proc, step, None, net, limit_ns=limit_ns)


def after_signal(proc: Process, at_ns: int, name: str, number: int, *, limit_ns: int = MAX_SLEEP_NS,
                 net: Callable[[Connect], NetResult] | None = None) -> Trace | None:
    """What `proc`, a process just spawned, does once signal `name` (number `number`) comes
    `at_ns` after its start: it is run to that moment without waiting (what it writes until
    then is dropped: its plan has said it), the signal is thrown into it where it waits (a
    sleep, a read of input that never comes, the network), and what it does from there is
    recorded (offsets from the signal) until it ends or `limit_ns` has passed (then end_ns
    is None). `net` answers its network steps (without it: it waits at the first one, as a
    plan does, and the network is unreachable to what it does after the signal). None when it
    ended before the signal came, or took too many steps to get there."""
    t = 0
    reply: Reply = None
    try:
        step = proc.send(None)
        for _ in range(MAX_STEPS):
            reply = None
            if isinstance(step, Sleep):
                if step.ns is None or t + step.ns > at_ns:
                    break
                t += step.ns
            elif isinstance(step, Connect):
                if net is None:
                    break
                reply = net(step)
            elif step is READ:
                break  # input that never comes: it waits there
            step = proc.send(reply)
        else:
            proc.close()
            return None
    except StopIteration:
        return None
    try:
        step = proc.throw(Delivered(name, number, at_ns - t))
    except StopIteration as done:  # it ended as the signal came
        return Trace((), 0, int(done.value or 0) & 0xFF)
    return _record(proc, step, None, net or (lambda _: NO_NETWORK), limit_ns=limit_ns)
