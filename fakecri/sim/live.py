"""A container's own command taken on live: once it is given input (attach with stdin), once
it looks at its files after time has passed, or once it reaches the network.

A command that reads its input stops its plan at its first read (`Plan.input_at_ns`). When
input comes, a fresh process of the command is run up to that read and then stepped
with the input. A command that looks at files after its start, or takes a network step, is
handed over by its plan at that moment (see `behaviour.build_plan`) and stepped from there,
so each look sees the files as they are then, and each network step is carried out by the
owner (`LiveInputs.network_steps`, answered with `answered`). A stop's signal is delivered
into a live process, or into the command run anew to the moment of the stop (`deliver`). What a live process writes and
when it exits come back as decisions for the engine (`Wrote`, `Exited`), and when it sleeps,
a deadline that `LiveInputs.due` reports.
"""
from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from fakecri.engine.exits import reason_for
from fakecri.sim.recording import Trace, after_signal, continue_recording
from fakecri.sim.shell import NO_NETWORK, READ, Connect, NetResult, Process, Reply, Sleep, Write
from fakecri.sim.steps import Delivered, of_pid1


@dataclass(frozen=True, slots=True)
class Wrote:
    container_id: str
    stream: str
    text: str
    ts_ns: int


@dataclass(frozen=True, slots=True)
class Exited:
    container_id: str
    exit_code: int
    reason: str
    ts_ns: int


Decision = Wrote | Exited
MAX_STEPS_TO_FIRST_READ = 10_000


class LiveInput:
    """One live process and the input it has not read yet."""

    __slots__ = ("proc", "pending", "eof", "waiting", "due_ns", "connect", "answer", "slept_at")

    def __init__(self, proc: Process, connect: Connect | None = None) -> None:
        """`connect`: the network step `proc` stopped at, not yet carried out."""
        self.proc = proc
        self.pending = bytearray()  # input given, not yet read
        self.eof = False  # the input has ended
        self.waiting = False  # the process is at a READ step
        self.due_ns: int | None = None  # when its next step is due; None: not armed
        self.connect = connect  # the network step it waits on (its owner carries it out)
        self.answer: NetResult | None = None  # what that step got, not yet given to it
        self.slept_at: int | None = None  # when the sleep it is in began

    @classmethod
    def take_on(cls, proc: Process) -> LiveInput | None:
        """`proc` run up to its first read (its plan already wrote what comes before); None
        when it never reads."""
        live = cls(proc)
        try:
            step = proc.send(None)
            for _ in range(MAX_STEPS_TO_FIRST_READ):
                if step is READ:
                    live.waiting = True
                    return live
                step = proc.send(None)
        except StopIteration:
            pass
        proc.close()
        return None

    def step(self, cid: str, now: int) -> tuple[list[Decision], bool]:
        """Run until it waits again (for input or time) or ends: (decisions, ended)."""
        self.due_ns = self.slept_at = None
        out: list[Decision] = []
        reply: Reply = None
        try:
            while True:
                if self.connect is not None:
                    if self.answer is None:
                        return out, False  # the network has not answered yet
                    reply, self.connect, self.answer = self.answer, None, None
                    step = self.proc.send(reply)
                elif self.waiting:
                    if self.pending:
                        reply = bytes(self.pending)
                        self.pending.clear()
                    elif self.eof:
                        reply = None
                    else:
                        return out, False
                    self.waiting = False
                    step = self.proc.send(reply)
                else:
                    step = self.proc.send(None)
                if isinstance(step, Write):
                    out.append(Wrote(cid, step.stream, step.text, now))
                elif isinstance(step, Sleep):
                    if step.ns == 0:  # no time passes (a LOOK): it goes on at once
                        continue
                    if step.ns is not None:
                        self.due_ns = now + step.ns
                    self.slept_at = now
                    return out, False  # asleep until the deadline, or for good
                elif step is READ:
                    self.waiting = True
                elif isinstance(step, Connect):
                    self.connect = step
                    return out, False  # the owner carries it out and comes back with `answer`
                # (a Trap gets nothing: the next send answers None)
        except StopIteration as done:
            code = int(done.value or 0) & 0xFF
            out.append(Exited(cid, code, reason_for(code), now))
            return out, True


    def signal(self, name: str, number: int, now: int, limit_ns: int) -> Trace | None:
        """Signal `name` thrown into the process where it waits now, and what it does from there
        worked out at once (see `recording.after_signal`): the process is used up (its owner
        puts what the trace says in its place). None when it ended as the signal came in a way
        the trace cannot say (it was not started)."""
        elapsed = ahead = 0
        if self.slept_at is not None:  # in a sleep (or waiting for good) since then
            elapsed = now - self.slept_at
        elif self.due_ns is not None:  # it stopped where its plan left it, which it reaches only then
            ahead = max(0, self.due_ns - now)
        self.due_ns = None
        try:
            step = self.proc.throw(Delivered(name, number, max(0, elapsed)))
        except StopIteration as done:
            return Trace((), ahead, int(done.value or 0) & 0xFF)
        after = continue_recording(self.proc, step, max(0, limit_ns - ahead), lambda _: NO_NETWORK)
        if not ahead:
            return after
        return Trace(tuple((off + ahead, stream, text) for off, stream, text in after.outputs),
                     None if after.end_ns is None else after.end_ns + ahead, after.exit_code)


def replaying(outputs: tuple[tuple[int, str, str], ...]) -> Process:
    """A process that writes `outputs` (offset_ns, stream, text) at their offsets, then waits to be stopped."""
    t = 0
    for offset, stream, text in outputs:
        if offset > t:
            yield Sleep(offset - t)
            t = offset
        yield Write(stream, text)
    yield Sleep(None)
    return 0


class LiveInputs:
    """The live processes of one node's containers, and their deadlines."""

    def __init__(self) -> None:
        self._live: dict[str, LiveInput] = {}
        # The same dict, to read: with none live, what they wait for needs no call here.
        self.processes: Mapping[str, LiveInput] = self._live
        self._heap: list[tuple[int, str]] = []
        self._asked: set[str] = set()  # containers whose network step is being carried out

    def get(self, cid: str) -> LiveInput | None:
        return self._live.get(cid)

    def add(self, cid: str, live: LiveInput) -> None:
        self._live[cid] = live

    def resume(self, cid: str, proc: Process, step: Connect | Sleep | None, started_at: int, offset: int) -> None:
        """`proc`, which its plan left `offset` after its start (at a look: `step` None; at a
        network step; in a sleep that began then), runs on live from there: armed for then, or
        for the sleep's end; one left at a network step at its start waits for its owner to
        carry the step out (`network_steps`), unarmed."""
        if isinstance(step, Sleep):
            live = self._live[cid] = LiveInput(proc)
            live.slept_at = started_at + offset
            if step.ns is not None:
                self.arm(cid, started_at + offset + step.ns)
            return
        self.add(cid, LiveInput(proc, step))
        if step is None or offset > 0:
            self.arm(cid, started_at + offset)

    def arm(self, cid: str, due_ns: int) -> None:
        live = self._live.get(cid)
        if live is not None:
            live.due_ns = due_ns
            heapq.heappush(self._heap, (due_ns, cid))

    def step(self, cid: str, now: int) -> list[Decision]:
        live = self._live.get(cid)
        if live is None:
            return []
        out, ended = live.step(cid, now)
        if ended:
            self._live.pop(cid, None)
        elif live.due_ns is not None:
            heapq.heappush(self._heap, (live.due_ns, cid))
        return out

    def deliver(self, cid: str, fresh: Callable[[], Process], at_ns: int, now: int,
                timeout_ns: int) -> tuple[list[Decision], tuple[int | None, int]] | None:
        """A stop's SIGTERM into container `cid`'s program, `at_ns` after its start: into its live
        process as it stands, or else into `fresh()`, its command spawned anew and run on to that
        moment (`recording.after_signal`). What it does from there, up to `timeout_ns`, is worked
        out at once; what it writes is then written as its time comes, by a live process that
        replays it. (decisions of now, (delay_ns or None, exit code)); None when it had ended."""
        live = self._live.get(cid)
        if live is not None:
            after = live.signal("TERM", 15, now, timeout_ns)
        else:
            after = after_signal(fresh(), max(0, at_ns), "TERM", 15, limit_ns=timeout_ns)
        if after is None:
            return None
        self.forget(cid)
        # (the trap runs in PID 1 itself: /proc/1/fd/1 is its own output)
        shown = tuple((off, of_pid1(stream) or stream, text) for off, stream, text in after.outputs
                      if off <= timeout_ns)
        self.add(cid, LiveInput(replaying(shown)))
        return self.step(cid, now), (after.end_ns, after.exit_code)

    def network_steps(self) -> list[tuple[str, Connect]]:
        """(container id, step) of every live process waiting on the network, not yet handed
        out; each is handed out once."""
        out = [(cid, live.connect) for cid, live in self._live.items()
               if live.connect is not None and live.answer is None and live.due_ns is None and cid not in self._asked]
        self._asked.update(cid for cid, _ in out)
        return out

    def answered(self, cid: str, result: NetResult, now: int) -> list[Decision]:
        """The network's answer to `cid`'s step: it runs on from there."""
        self._asked.discard(cid)
        live = self._live.get(cid)
        if live is None or live.connect is None:
            return []
        live.answer = result
        return self.step(cid, now)

    def _stale(self, entry: tuple[int, str]) -> bool:
        live = self._live.get(entry[1])
        return live is None or live.due_ns != entry[0]

    def next_deadline_ns(self) -> int | None:
        while self._heap and self._stale(self._heap[0]):
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    def due(self, now: int) -> list[tuple[str, int]]:
        """(container id, due) of every live process whose step is due by `now`, in due order."""
        out = []
        while self._heap and self._heap[0][0] <= now:
            entry = heapq.heappop(self._heap)
            if not self._stale(entry):
                out.append((entry[1], entry[0]))
        return out

    def forget(self, cid: str) -> None:
        self._asked.discard(cid)
        live = self._live.pop(cid, None)
        if live is not None:
            live.proc.close()

    def clear(self) -> None:
        for cid in list(self._live):
            self.forget(cid)
        self._heap.clear()
