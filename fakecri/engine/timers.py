"""The runtime's timer heap: (due_ns, seq, container_id, kind, offset_ns) entries.

Entries are never cancelled; the runtime skips the ones that no longer apply when
they come due, and `compact` drops them in bulk when they pile up.
"""
from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator

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
