"""Missed-event accounting: which transitions the event stream announced, and which a
relist found that no event had announced first."""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg.counters import PLEGMetrics
from fakecri.client.pleg.lifecycle import EventType, PodLifecycleEvent

# The relist transitions each CRI event type stands for.
ANNOUNCES: dict[int, tuple[EventType, ...]] = {
    pb.CONTAINER_CREATED_EVENT: (),
    pb.CONTAINER_STARTED_EVENT: (EventType.STARTED,),
    pb.CONTAINER_STOPPED_EVENT: (EventType.DIED,),
    pb.CONTAINER_DELETED_EVENT: (EventType.DIED, EventType.REMOVED),
}


class EventLedger:
    """Remembers announced transitions per container id and counts what a relist found
    unannounced into `metrics.missed_events`. The first relist (the baseline) and any
    relist after `active` is cleared are not counted."""

    def __init__(self, metrics: PLEGMetrics) -> None:
        self.metrics = metrics
        self.active = True
        self._announced: dict[str, set[EventType]] = {}
        self._lock = threading.Lock()
        self.missed: deque[PodLifecycleEvent] = deque(maxlen=10_000)
        self.on_missed: Callable[[PodLifecycleEvent], None] | None = None

    def announce(self, event: pb.ContainerEventResponse) -> None:
        kinds = ANNOUNCES.get(event.container_event_type, ())
        if not kinds:
            return
        with self._lock:
            self._announced.setdefault(event.container_id, set()).update(kinds)

    def observe_relist(self, events: list[PodLifecycleEvent], first: bool) -> None:
        with self._lock:
            for ev in events:
                seen = self._announced.get(ev.container_id, set())
                if not first and self.active and ev.type not in seen:
                    self.missed.append(ev)
                    with self.metrics.lock:
                        self.metrics.missed_events += 1
                        self.metrics.missed_by_type[ev.type.value] += 1
                    if self.on_missed is not None:
                        self.on_missed(ev)
                if ev.type is EventType.REMOVED:
                    self._announced.pop(ev.container_id, None)
