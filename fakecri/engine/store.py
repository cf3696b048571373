"""What the engine holds: its records, their keys, its timers and counters, in one place.

The Runtime owns one RuntimeStore and is its only writer; `snapshot` saves and loads a
store without knowing the Runtime, so the state file and the state machine stay apart.
The timer heap holds (due_ns, seq, container_id, kind, offset_ns) entries; they are never
cancelled: the runtime skips the ones that no longer apply when they come due, and
`compact` drops them in bulk when they pile up.
"""
from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from fakecri.engine.ipam import IpPool
from fakecri.engine.records import Container, ContainerState, Sandbox

WAKE = 0  # the container's next scripted moment (a log line, its exit); offset = plan offset
STOP = 1  # the end of a slow stop
INPUT = 2  # a container's command that reads input takes its next step (offset unused)

Entry = tuple[int, int, str, int, int]


class TimerHeap:
    def __init__(self) -> None:
        self._heap: list[Entry] = []
        self._seq = 0

    def __len__(self) -> int:
        return len(self._heap)

    def push(self, due_ns: int, container_id: str, kind: int, offset_ns: int = 0) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (due_ns, self._seq, container_id, kind, offset_ns))

    def peek(self) -> Entry | None:
        return self._heap[0] if self._heap else None

    def pop_due(self, now_ns: int) -> Entry | None:
        if self._heap and self._heap[0][0] <= now_ns:
            return heapq.heappop(self._heap)
        return None

    def discard_head_while(self, stale: Callable[[Entry], bool]) -> None:
        while self._heap and stale(self._heap[0]):
            heapq.heappop(self._heap)

    def compact(self, keep: Callable[[Entry], bool]) -> None:
        self._heap = [e for e in self._heap if keep(e)]
        heapq.heapify(self._heap)

    def entries(self) -> Iterator[Entry]:
        return iter(sorted(self._heap))

    def clear(self) -> None:
        self._heap.clear()


@dataclass(slots=True)
class RuntimeStore:
    ips: IpPool
    sandboxes: dict[str, Sandbox] = field(default_factory=dict)
    containers: dict[str, Container] = field(default_factory=dict)
    sandbox_keys: dict[tuple[str, str, str, int], str] = field(default_factory=dict)  # (name, ns, uid, attempt)
    container_keys: dict[tuple[str, str, int], str] = field(default_factory=dict)  # (sandbox id, name, attempt)
    timers: TimerHeap = field(default_factory=TimerHeap)
    stopping: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # cid -> (due_ns, exit_code, reason)
    # containers whose program took the stop signal into itself and ran on from there (the
    # simulation's): their plan's own timers (its lines, its end) no longer apply; kept until removed
    diverted: set[str] = field(default_factory=set)
    removed_cpu: dict[str, int] = field(default_factory=dict)  # sandbox id -> CPU ns of its removed containers
    running: int = 0  # containers RUNNING now
    last_event_ns: int = 0  # the newest event's created_at (events never go back in time)

    def is_stale(self, entry: Entry) -> bool:
        """A timer that no longer applies: its container is gone or not running, or the stop was replaced."""
        due, _, cid, kind, _ = entry
        c = self.containers.get(cid)
        if c is None or c.state != ContainerState.RUNNING:
            return True
        if kind == STOP:
            pending = self.stopping.get(cid)
            return pending is None or pending[0] != due
        return cid in self.diverted

    def takes_output(self, c: Container, ts_ns: int) -> bool:
        """Whether what `c`'s program wrote at `ts_ns` is kept: it writes while it runs; one that
        took the stop signal into itself, also by the moment it exited (the stop's end and its
        last lines can come due together)."""
        return c.state == ContainerState.RUNNING or (
            c.state == ContainerState.EXITED and c.id in self.diverted and ts_ns <= c.finished_at)

    def forget_stop(self, cid: str) -> None:
        """A removed container's stop is forgotten."""
        self.stopping.pop(cid, None)
        self.diverted.discard(cid)

    def clear(self) -> None:
        """Forget every record, timer and counter (the address pool keeps its range)."""
        self.sandboxes.clear()
        self.containers.clear()
        self.sandbox_keys.clear()
        self.container_keys.clear()
        self.timers.clear()
        self.stopping.clear()
        self.diverted.clear()
        self.removed_cpu.clear()
        self.ips.release_all()
        self.running = 0
