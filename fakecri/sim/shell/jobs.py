"""Processes that run at the same time inside one simulated process: a shell's background
jobs (`&`) and the stages of a pipeline, scheduled on one simulated clock.

`schedule(main)` is the process a driver sees. It runs `main` and the threads `main`
starts, each until it waits (for time, for input, for a pipe, for another thread), and
passes on the steps the driver must carry out (writes, sleeps, reads of the real input,
network steps) in time order. A thread asks the scheduler with requests yielded as steps:
`Spawn` (a new thread: reply its pid), `WaitFor` (until threads end: reply the status of
the last), `Signal` (end a thread: reply 0, or 1 when there is none). They are zero-length
sleeps, so a driver that never sees them treats them as nothing.
"""
from __future__ import annotations

import heapq
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from fakecri.sim.shell.io import IGNORED_BY_DEFAULT, KILLED, TIMED_OUT, Inbox, Interrupted, ReadUntil, Signalled
from fakecri.sim.steps import READ, Delivered, Process, Reply, Sleep, Step, Write

SIGPIPE_STATUS = 128 + 13
INTERRUPTED = 128 + 2
MAX_THREADS = 256  # threads alive at once; more and a Spawn fails (as fork would)


class Pipe:
    __slots__ = ("data", "closed", "broken")

    def __init__(self) -> None:
        self.data = bytearray()
        self.closed = False  # the writer is done: the reader gets EOF once it has read all
        self.broken = False  # the reader is done: the writer dies on its next write


class BrokenPipe(BaseException):
    """A write into a pipe whose reader is gone: the writer dies of SIGPIPE (not an error a
    program could catch)."""


class PipeWriter(list[str]):
    """A stage's standard output as its Io's `capture`: what it writes goes into the pipe
    (so a program knows it writes into a pipe, as busybox's `yes` does)."""

    def __init__(self, pipe: Pipe) -> None:
        super().__init__()
        self.pipe = pipe

    def append(self, text: str) -> None:
        if self.pipe.broken:
            raise BrokenPipe()
        self.pipe.data += text.encode("utf-8", "surrogateescape")


@dataclass(frozen=True, slots=True)
class Spawn(Sleep):
    proc: Any = None  # the thread's process
    stdin: Pipe | None = None  # it reads this pipe (else: the real input, or none when `background`)
    stdout: Pipe | None = None  # its standard output goes into this pipe
    background: bool = False  # a `&` job: no input, and `wait` without arguments waits for it


@dataclass(frozen=True, slots=True)
class WaitFor(Sleep):
    pids: tuple[int, ...] = ()
    # the `wait` builtin's: the list of signals its shell has yet to take; one of them ends it (Signalled)
    by: list[tuple[str, int]] | None = None


@dataclass(frozen=True, slots=True)
class Signal(Sleep):
    pid: int = 0
    status: int = 128 + 15  # the status the thread ends with (0: only ask whether it runs, `kill -0`)


@dataclass(frozen=True, slots=True)
class Notify(Sleep):
    """A signal is pending for the shell of thread `pid`: a `wait` builtin it is in ends (Signalled)."""

    pid: int = 0


@dataclass(frozen=True, slots=True)
class Now(Sleep):
    """What time it is on the process's clock (ns since it started)."""


def ask(request: Spawn | WaitFor | Signal | Now | Notify) -> Generator[Step, Reply, int]:
    """A request to the scheduler: its answer (-1 when no scheduler answered it)."""
    got: object = yield request
    return got if isinstance(got, int) else -1


def spawn_step(proc: Process, stdin: Pipe | None = None, stdout: Pipe | None = None,
               background: bool = False) -> Spawn:
    return Spawn(0, proc, stdin, stdout, background)


@dataclass(slots=True, eq=False)
class _Thread:
    pid: int
    proc: Process
    stdin: Pipe | None
    stdout: Pipe | None
    background: bool
    reply: Reply | int = None
    status: int | None = None  # set when it ended
    waiting: str = ""  # "", "time", "pipe", "threads", "forever"
    wake: int = 0
    wait_for: tuple[int, ...] = ()
    wait_by: list[tuple[str, int]] | None = None  # (WaitFor.by of what it waits for)
    exc: BaseException | None = None  # to throw in at its next step (Ctrl-C)
    timed: bool = False  # it waits for its pipe until `wake` (`read -t`): then it is told TIMED_OUT


@dataclass(slots=True)
class _Table:
    threads: dict[int, _Thread] = field(default_factory=dict)
    ended: dict[int, int] = field(default_factory=dict)
    next_pid: int = 0
    now: int = 0
    order: int = 0
    inbox: Inbox | None = None  # where a signal from outside goes (see `_deliver`)
    clock: list[int] | None = None  # (see `schedule`)


class _Died(Exception):
    """A signal from outside ended the whole process (no handler, not PID 1)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def schedule(main: Process, first_pid: int = 100, wait_for_jobs: bool = True,
             clock: list[int] | None = None, inbox: Inbox | None = None) -> Process:
    """`main` and the threads it starts; its status. `wait_for_jobs`: once `main` ends, its
    background jobs still run to their end before the process does (an exec's output stays
    open while they hold it); otherwise they end with it (a container's own command).
    `clock[0]` follows the time the process has slept (Io.clock: `date` reads it). `inbox`:
    where a signal a driver throws in (`Delivered`) goes (see `_deliver`)."""
    try:
        return (yield from _schedule(main, first_pid, wait_for_jobs, clock, inbox))
    except _Died as died:
        return KILLED | died.status  # (it died of a signal: the shell that ran it says so)


def _schedule(main: Process, first_pid: int, wait_for_jobs: bool, clock: list[int] | None,
              inbox: Inbox | None) -> Process:
    table = _Table(next_pid=first_pid, inbox=inbox, clock=clock)
    head = _Thread(0, main, None, None, False)
    table.threads[0] = head
    ready: list[_Thread] = [head]  # threads to step now, in order
    timers: list[tuple[int, int, int]] = []  # (wake, order, pid)
    try:
        while True:
            while ready:
                th = ready.pop(0)
                if th.status is not None:
                    continue
                yield from _step(th, table, ready, timers)
            if head.status is not None:
                alive = [t for t in table.threads.values() if t.status is None and t.background]
                if not alive or not wait_for_jobs:
                    return head.status
            while timers and not _due(timers[0], table):
                heapq.heappop(timers)
            if not timers:
                try:
                    yield Sleep(None)  # everything waits for good: the process runs until stopped
                except Delivered as signal:
                    _advance(table, signal.elapsed_ns)
                    _deliver(signal, table, head, ready)
                    continue
                return head.status if head.status is not None else 0
            wake, _, pid = heapq.heappop(timers)
            if wake > table.now:
                delta = wake - table.now
                try:
                    yield Sleep(delta)
                except Delivered as signal:  # part of the sleep passed, then the signal came
                    heapq.heappush(timers, (wake, 0, pid))
                    _advance(table, min(signal.elapsed_ns, delta))
                    _deliver(signal, table, head, ready)
                    continue
                except Interrupted as exc:  # Ctrl-C while everything sleeps: to the shell in the foreground
                    heapq.heappush(timers, (wake, 0, pid))
                    if head.waiting == "threads":  # and to the pipeline it waits for
                        for p in head.wait_for:
                            t = table.threads.get(p)
                            if t is not None and t.status is None and not t.background:
                                t.proc.close()
                                _end(t, INTERRUPTED, table, ready)
                    if head.status is None:
                        head.waiting, head.exc = "", exc
                        ready.append(head)
                    continue
                table.now = wake
                if clock is not None:
                    clock[0] = wake
            _wake_at_time(table.threads[pid], ready)
            # others due at the same moment go in the order they went to sleep
            while timers and timers[0][0] <= table.now:
                due = heapq.heappop(timers)
                if _due(due, table):
                    _wake_at_time(table.threads[due[2]], ready)
    finally:
        for th in list(table.threads.values()):
            if th.status is None:
                th.proc.close()


def _advance(table: _Table, ns: int) -> None:
    table.now += max(0, ns)
    if table.clock is not None:
        table.clock[0] = table.now


def _deliver(signal: Delivered, table: _Table, head: _Thread, ready: list[_Thread]) -> None:
    """A signal from outside reaches the process. Its shell (the inbox's) takes it as ash does: a
    trapped one waits in its list until the command running ends (the interpreter then runs the
    trap), and cuts that shell's `wait` short (not one of a shell it runs); an ignored one
    (`trap '' SIG`, or one whose default is to do nothing) is dropped; an untrapped one ends the
    process at once (_Died), but PID 1 of a container, which the kernel gives no signal it has no
    handler for, never sees it. A process that is no shell dies of it likewise, unless it is PID 1."""
    inbox = table.inbox
    name, number = signal.name, signal.number
    action = inbox.traps.get(name) if inbox is not None and inbox.traps is not None else None
    if action == "" or (action is None and (name in IGNORED_BY_DEFAULT or (inbox is not None and inbox.pid1))):
        return
    if action is None or inbox is None or inbox.pending is None:
        raise _Died(128 + number)
    inbox.pending.append((name, number))
    if head.status is None and head.waiting == "threads" and head.wait_by is inbox.pending:
        head.waiting, head.exc = "", Signalled()
        ready.append(head)


def _due(timer: tuple[int, int, int], table: _Table) -> bool:
    """Whether a timer still stands: its thread sleeps, or waits for its pipe, until then."""
    th = table.threads.get(timer[2])
    return th is not None and th.status is None and th.wake == timer[0] and (
        th.waiting == "time" or (th.waiting == "pipe" and th.timed))


def _wake_at_time(th: _Thread, ready: list[_Thread]) -> None:
    if th.waiting == "pipe":  # a timed read whose input did not come in time
        th.reply = TIMED_OUT
    th.waiting, th.timed = "", False
    ready.append(th)


def _step(th: _Thread, table: _Table, ready: list[_Thread],
          timers: list[tuple[int, int, int]]) -> Generator[Step, Reply, None]:
    """Run one thread until it waits or ends, passing its outside steps on."""
    while True:
        reply, th.reply = th.reply, None
        exc, th.exc = th.exc, None
        try:
            step = th.proc.throw(exc) if exc is not None else th.proc.send(reply)  # type: ignore[arg-type]
        except StopIteration as done:
            _end(th, int(done.value or 0) & 0xFF, table, ready)
            return
        except Interrupted:
            if th.pid == 0:
                raise
            _end(th, INTERRUPTED, table, ready)  # Ctrl-C ended this stage or job
            return
        except BrokenPipe:
            _end(th, SIGPIPE_STATUS, table, ready)
            return
        if th.stdout is not None and th.stdout.data:
            _wake_reader(th.stdout, table, ready)
        if type(step) is Spawn:
            if len([t for t in table.threads.values() if t.status is None]) >= MAX_THREADS:
                th.reply = -1
                continue
            table.next_pid += 1
            new = _Thread(table.next_pid, step.proc, step.stdin, step.stdout, step.background)
            table.threads[new.pid] = new
            th.reply = new.pid
            ready[:0] = [new, th]  # the new one runs first, up to where it waits; then its parent goes on
            return
        if type(step) is WaitFor:
            pending = tuple(p for p in step.pids if p in table.threads and table.threads[p].status is None)
            if not pending:
                th.reply = _status_of(step.pids, table)
                continue
            th.waiting, th.wait_for, th.wait_by = "threads", step.pids, step.by
            return
        if type(step) is Now:
            th.reply = table.now
            continue
        if type(step) is Notify:
            target = table.threads.get(step.pid)
            waiting = target is not None and target.status is None and target.waiting == "threads"
            if target is not None and waiting and target.wait_by is not None:
                target.waiting, target.exc = "", Signalled()
                ready.append(target)
            th.reply = 0
            continue
        if type(step) is Signal:
            target = table.threads.get(step.pid)
            if target is None or target.status is not None or target is th or step.status == 0:
                th.reply = 1 if target is None or target.status is not None else 0
                continue
            target.proc.close()
            _end(target, step.status, table, ready)
            th.reply = 0
            continue
        if isinstance(step, Write):
            # (a stage writes into its pipe through its Io's capture, a PipeWriter: a Write of
            # "stdout" is the process's own standard output, which a descriptor duplicated from it
            # before the pipe was made (`exec 3>&1`, a subshell's unwound EXIT trap) still reaches)
            th.reply, th.exc = yield from _outside(step, table, ready)
            continue
        if type(step) is ReadUntil:
            if th.stdin is not None and not th.stdin.data and not th.stdin.closed:
                if step.until <= table.now:
                    th.reply = TIMED_OUT
                    continue
                th.waiting, th.timed, th.wake = "pipe", True, step.until
                table.order += 1
                heapq.heappush(timers, (th.wake, table.order, th.pid))
                return
            step = READ  # (input there, or the end, or the real input: that one is waited for)
        if step is READ:
            if th.stdin is not None:
                if th.stdin.data:
                    th.reply = bytes(th.stdin.data)
                    th.stdin.data.clear()
                    continue
                if th.stdin.closed:
                    th.reply = None
                    continue
                th.waiting = "pipe"
                return
            if th.background:
                th.reply = None  # a background job reads nothing (its input is /dev/null)
                continue
            th.reply, th.exc = yield from _outside(step, table, ready)
            continue
        if isinstance(step, Sleep):
            if step.ns is None:
                th.waiting = "forever"
                return
            if step.ns == 0:  # a LOOK: the driver may take the process on live from here
                th.reply, th.exc = yield from _outside(step, table, ready)
                continue
            th.waiting = "time"
            th.wake = table.now + step.ns
            table.order += 1
            heapq.heappush(timers, (th.wake, table.order, th.pid))
            return
        th.reply, th.exc = yield from _outside(step, table, ready)


def _outside(step: Step, table: _Table,
             ready: list[_Thread]) -> Generator[Step, Reply, tuple[Reply, BaseException | None]]:
    """Pass a step to the driver: (its answer, or the exception it threw in: Ctrl-C). A signal
    thrown in while the step waits (input, the network) is delivered, and the step still waits."""
    while True:
        try:
            return (yield step), None
        except Interrupted as exc:
            return None, exc
        except Delivered as signal:
            _advance(table, signal.elapsed_ns)
            _deliver(signal, table, table.threads[0], ready)


def _status_of(pids: tuple[int, ...], table: _Table) -> int:
    if not pids:
        return 0
    last = pids[-1]
    if last in table.threads and table.threads[last].status is not None:
        return table.threads[last].status or 0
    return table.ended.get(last, 127)


def _wake_reader(pipe: Pipe, table: _Table, ready: list[_Thread]) -> None:
    for t in table.threads.values():
        if t.stdin is pipe and t.waiting == "pipe" and t.status is None:
            t.waiting, t.timed = "", False
            if pipe.data:
                t.reply = bytes(pipe.data)
                pipe.data.clear()
            else:
                t.reply = None
            ready.append(t)


def _end(th: _Thread, status: int, table: _Table, ready: list[_Thread]) -> None:
    th.status = status
    th.waiting = ""
    table.ended[th.pid] = status
    if th.stdout is not None:
        th.stdout.closed = True
        _wake_reader(th.stdout, table, ready)
    if th.stdin is not None:
        th.stdin.broken = True  # its writer learns at its next write
    for t in table.threads.values():
        if t.waiting == "threads" and t.status is None and all(
                p not in table.threads or table.threads[p].status is not None for p in t.wait_for):
            t.waiting = ""
            t.reply = _status_of(t.wait_for, table)
            ready.append(t)
    if th.pid:
        del table.threads[th.pid]
        table.ended[th.pid] = status
