"""Missed-event accounting: which transitions the event stream announced, and which a
relist found that no event had announced.

A relist can overtake events that are still on their way: a STOPPED event's targeted
relist, run while the runtime is already removing the pod, finds the removals before
their DELETED events arrive. So a transition the relist finds unannounced is first held
as *pending*; an announcing event that arrives within `settle` seconds clears it, and
only a transition still unannounced after that counts in `metrics.missed_events`.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg.counters import PLEGMetrics
from fakecri.client.pleg.lifecycle import EventType, PodLifecycleEvent

# The relist transitions each CRI event type stands for (a kubelet whose events write its
# cache: the legacy Evented PLEG).
ANNOUNCES: dict[int, tuple[EventType, ...]] = {
    pb.CONTAINER_CREATED_EVENT: (),
    pb.CONTAINER_STARTED_EVENT: (EventType.STARTED,),
    pb.CONTAINER_STOPPED_EVENT: (EventType.DIED,),
    pb.CONTAINER_DELETED_EVENT: (EventType.DIED, EventType.REMOVED),
}
# A kubelet that takes events as hints (kubernetes/kubernetes#139262) acts on STOPPED alone,
# for a container or a sandbox: it asks for a relist of the pod. Nothing else an event says
# reaches it, so the only transition it can miss is a death that no STOPPED announced.
CURRENT_ANNOUNCES: dict[int, tuple[EventType, ...]] = {
    pb.CONTAINER_STOPPED_EVENT: (EventType.DIED,),
}

# How long an announcing event may trail the relist that found its transition.
SETTLE_S = 5.0
# Removed ids remembered, so that a DELETED trailing its relist is not kept forever.
_GONE_MEMORY = 10_000


@dataclass
class _Pending:
    event: PodLifecycleEvent
    deadline_ns: int


class EventLedger:
    """Remembers announced transitions per container id and counts what a relist found
    unannounced, `settle` seconds later, into `metrics.missed_events`. The first relist
    (the baseline) and any relist while `active` is cleared are not counted."""

    def __init__(self, metrics: PLEGMetrics, announces: dict[int, tuple[EventType, ...]] | None = None, *,
                 settle: float = SETTLE_S, now: Callable[[], int] = time.monotonic_ns) -> None:
        """`announces`: what each event type announces (ANNOUNCES, or CURRENT_ANNOUNCES for a
        kubelet that takes events as hints); only transitions some event type announces can
        be missed."""
        self.metrics = metrics
        self.announces = ANNOUNCES if announces is None else announces
        self.judged: frozenset[EventType] = frozenset(k for kinds in self.announces.values() for k in kinds)
        self.settle_s = settle
        self.now = now
        self.active = True
        self._announced: dict[str, set[EventType]] = {}
        self._pending: dict[tuple[str, EventType], _Pending] = {}
        self._gone: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()
        self.missed: deque[PodLifecycleEvent] = deque(maxlen=10_000)
        self.on_missed: Callable[[PodLifecycleEvent], None] | None = None

    @property
    def pending(self) -> list[PodLifecycleEvent]:
        """Transitions found unannounced whose settle window is still open."""
        with self._lock:
            return [p.event for p in self._pending.values()]

    def announce(self, event: pb.ContainerEventResponse) -> None:
        kinds = self.announces.get(event.container_event_type, ())
        if not kinds:
            return
        cid = event.container_id
        with self._lock:
            for kind in kinds:
                self._pending.pop((cid, kind), None)
            if cid not in self._gone:
                self._announced.setdefault(cid, set()).update(kinds)

    def observe_relist(self, events: list[PodLifecycleEvent], first: bool) -> None:
        deadline = self.now() + int(self.settle_s * 1e9)
        with self._lock:
            for ev in events:
                seen = self._announced.get(ev.container_id, set())
                if not first and self.active and ev.type in self.judged and ev.type not in seen:
                    self._pending.setdefault((ev.container_id, ev.type), _Pending(ev, deadline))
                if ev.type is EventType.REMOVED:
                    self._announced.pop(ev.container_id, None)
                    self._gone[ev.container_id] = None
                    while len(self._gone) > _GONE_MEMORY:
                        self._gone.popitem(last=False)
        self.expire()

    def expire(self) -> int:
        """Count the pending transitions whose settle window has closed; returns how many."""
        now = self.now()
        with self._lock:
            due = [key for key, p in self._pending.items() if p.deadline_ns <= now]
            events = [self._pending.pop(key).event for key in due]
        return self._count(events)

    def settle(self) -> int:
        """Count every pending transition now. Call it when no announcing event can still
        be on its way (the stream ended, or every event the runtime sent has been
        accounted for); returns how many were counted."""
        with self._lock:
            events = [p.event for p in self._pending.values()]
            self._pending.clear()
        return self._count(events)

    def _count(self, events: list[PodLifecycleEvent]) -> int:
        """Count transitions taken out of `_pending` (called without `_lock` held, so that
        `on_missed` may look at anything)."""
        for ev in events:
            self.missed.append(ev)
            with self.metrics.lock:
                self.metrics.missed_events += 1
                self.metrics.missed_by_type[ev.type.value] += 1
            if self.on_missed is not None:
                self.on_missed(ev)
        return len(events)
