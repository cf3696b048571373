"""LegacyEventedPLEG: the Evented PLEG of kubelets 1.26-1.36 (the EventedPLEG feature gate).

Container events write the pod cache (an event older than the cached entry is
rejected) and produce lifecycle events; the kubelet sorts an event's container
statuses newest first. After each pod sync the kubelet refreshes the pod's entry at
once (`update_cache`): PodSandboxStatus with a timestamp sets the entry at that
timestamp with the response's container statuses taken as given, in the runtime's
order, even an empty list (fakecri.client.pleg.pod_sync shows why the order matters).
A generic relist still runs, slowly (300 s,
threshold 10 min), and a 2 s tick marks the whole cache fresh. Every stream failure
forces a relist; after 5 the stream is abandoned and the generic relist goes back to
1 s / 3 min for good.

Missed events are counted only at a relist, so with the default 300 s period a
shorter run counts none (docs/client.md says what each PLEG can see).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.errors import CRIError
from fakecri.client.pleg.cache import PodCache, PodStatus, sandbox_ips
from fakecri.client.pleg.evented import EventedPLEG
from fakecri.client.pleg.ledger import SETTLE_S
from fakecri.client.pleg.lifecycle import EventType, PodLifecycleEvent
from fakecri.client.pleg.pod_sync import newest_first
from fakecri.client.pleg.stream import StreamLoop
from fakecri.client.sync_client import CRIClient

RELIST_PERIOD = 300.0
RELIST_THRESHOLD = 600.0
GLOBAL_CACHE_PERIOD = 2.0
MAX_STREAM_RETRIES = 5
FALLBACK_PERIOD = 1.0
FALLBACK_THRESHOLD = 180.0

# What each CRI event type sends once the cache took the event (DELETED always sends).
_SENDS: dict[int, tuple[EventType, ...]] = {
    pb.CONTAINER_CREATED_EVENT: (),
    pb.CONTAINER_STARTED_EVENT: (EventType.STARTED,),
    pb.CONTAINER_STOPPED_EVENT: (EventType.DIED,),
    pb.CONTAINER_DELETED_EVENT: (EventType.DIED, EventType.REMOVED),
}


def status_from_event(event: pb.ContainerEventResponse) -> PodStatus:
    """The pod status an event carries (its sandbox status and container statuses)."""
    sb = event.pod_sandbox_status
    return PodStatus(
        uid=sb.metadata.uid,
        name=sb.metadata.name,
        namespace=sb.metadata.namespace,
        ips=sandbox_ips([sb]) if sb.state == pb.SANDBOX_READY else (),
        sandbox_statuses=[sb],
        container_statuses=newest_first(event.containers_statuses),
        runtime_timestamp=event.created_at,
    )


class LegacyEventedPLEG(EventedPLEG):
    """Events write the cache; a slow relist corrects it. See the module docstring."""

    def __init__(
        self,
        client: CRIClient,
        *,
        relist_period: float = RELIST_PERIOD,
        relist_threshold: float = RELIST_THRESHOLD,
        global_cache_period: float = GLOBAL_CACHE_PERIOD,
        max_stream_retries: int = MAX_STREAM_RETRIES,
        fallback_period: float = FALLBACK_PERIOD,
        fallback_threshold: float = FALLBACK_THRESHOLD,
        channel_capacity: int = 1000,
        connect_timeout: float = 5.0,
        now: Callable[[], int] = time.time_ns,
        streaming: bool = False,
        missed_settle: float = SETTLE_S,
    ) -> None:
        self._relist_with(client, now, missed_settle, relist_period=relist_period, relist_threshold=relist_threshold,
                          channel_capacity=channel_capacity, cache=PodCache(reject_stale=True), streaming=streaming,
                          use_runtime_timestamp=True)
        self.global_cache_period = global_cache_period
        self.fallback_period = fallback_period
        self.fallback_threshold = fallback_threshold
        self.fell_back = threading.Event()
        self._stream = StreamLoop(
            client,
            self.metrics,
            on_event=self.handle_event,
            on_failure=self._on_stream_failure,
            on_exhausted=self._fall_back,
            max_failures=max_stream_retries,
            connect_timeout=connect_timeout,
            name="legacy-evented-pleg",
        )
        self._tick_stop = threading.Event()
        self._tick_thread: threading.Thread | None = None
        self._started = False

    # ------------------------------------------------------------ lifecycle

    def start(self) -> LegacyEventedPLEG:
        if self._started:
            return self
        self._started = True
        self.generic.start()
        self._stream.start()
        self._tick_thread = threading.Thread(target=self._tick, name="legacy-pleg-cache-tick", daemon=True)
        self._tick_thread.start()
        return self

    def stop(self) -> None:
        self._tick_stop.set()
        self._stream.stop()
        if self._tick_thread is not None:
            self._tick_thread.join(5.0)
        self.generic.stop()

    def healthy(self) -> tuple[bool, str]:
        """Unhealthy when the event channel is full, or when the relist is overdue."""
        if not self.fell_back.is_set() and self.events.full():
            return False, "evented PLEG: the event channel is out of capacity"
        return self.generic.healthy()

    def _tick(self) -> None:
        while not self._tick_stop.wait(self.global_cache_period):
            self.cache.update_time(self.now())
            self.ledger.expire()

    def _on_stream_failure(self, exc: CRIError, failures: int) -> None:
        self.generic.relist()

    def _fall_back(self) -> None:
        with self.metrics.lock:
            self.metrics.fallbacks += 1
        self.ledger.active = False
        self._tick_stop.set()
        self.generic.use_runtime_timestamp = False
        self.generic.set_period(self.fallback_period, self.fallback_threshold)
        self.fell_back.set()

    def update_cache(self, uid: str) -> bool:
        """Refresh pod `uid`'s cache entry now, as the kubelet does right after syncing the pod:
        no lifecycle events. False if the runtime could not be asked."""
        return self.generic.refresh_pod(uid)

    # ------------------------------------------------------------ events

    def handle_event(self, event: pb.ContainerEventResponse) -> None:
        """Apply one CRI event to the cache and send the lifecycle events it stands for."""
        received = self.now()
        if not self.accept_event(event):
            return
        uid = event.pod_sandbox_status.metadata.uid
        status = status_from_event(event)
        if not status.ips:
            previous = self.cache.get(uid)
            if previous is not None and previous.status is not None:
                status.ips = previous.status.ips
        with self.metrics.lock:
            self.metrics.event_latency.observe(max(0, received - event.created_at) / 1e9)
        if event.container_event_type == pb.CONTAINER_DELETED_EVENT:
            if event.container_id == event.pod_sandbox_status.id:
                self.cache.delete(uid)
            accepted = True
        else:
            accepted = self.cache.set(uid, status, None, event.created_at)
        if not accepted:
            return
        for kind in _SENDS.get(event.container_event_type, ()):
            sent = self.events.send(PodLifecycleEvent(uid, kind, event.container_id, source="event"))
            with self.metrics.lock:
                if sent:
                    self.metrics.events_sent[kind.value] += 1
                else:
                    self.metrics.discard_events += 1
