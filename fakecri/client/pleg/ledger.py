"""Missed-event accounting: which transitions the event stream announced, and which a
relist found that no event had announced first."""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

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


class EventLedger:
    """Remembers announced transitions per container id and counts what a relist found
    unannounced into `metrics.missed_events`. The first relist (the baseline) and any
    relist after `active` is cleared are not counted."""

    def __init__(self, metrics: PLEGMetrics, announces: dict[int, tuple[EventType, ...]] | None = None) -> None:
        """`announces`: what each event type announces (ANNOUNCES, or CURRENT_ANNOUNCES for a
        kubelet that takes events as hints); only transitions some event type announces can
        be missed."""
        self.metrics = metrics
        self.announces = ANNOUNCES if announces is None else announces
        self.judged: frozenset[EventType] = frozenset(k for kinds in self.announces.values() for k in kinds)
        self.active = True
        self._announced: dict[str, set[EventType]] = {}
        self._lock = threading.Lock()
        self.missed: deque[PodLifecycleEvent] = deque(maxlen=10_000)
        self.on_missed: Callable[[PodLifecycleEvent], None] | None = None

    def announce(self, event: pb.ContainerEventResponse) -> None:
        kinds = self.announces.get(event.container_event_type, ())
        if not kinds:
            return
        with self._lock:
            self._announced.setdefault(event.container_id, set()).update(kinds)

    def observe_relist(self, events: list[PodLifecycleEvent], first: bool) -> None:
        with self._lock:
            for ev in events:
                seen = self._announced.get(ev.container_id, set())
                if not first and self.active and ev.type in self.judged and ev.type not in seen:
                    self.missed.append(ev)
                    with self.metrics.lock:
                        self.metrics.missed_events += 1
                        self.metrics.missed_by_type[ev.type.value] += 1
                    if self.on_missed is not None:
                        self.on_missed(ev)
                if ev.type is EventType.REMOVED:
                    self._announced.pop(ev.container_id, None)
