"""CurrentEventedPLEG: the narrowed Evented PLEG of kubelets from mid-2026.

The generic relist at 1 s stays the only writer of the cache and the only source of
lifecycle events. The event stream is a hint: a CONTAINER_STOPPED event (container or
sandbox) asks for an immediate relist of that pod through a bounded queue (200, drops
when full); other event types are ignored. A queued request is skipped when a global relist
began after it was made, and a pod relist that finds no change inspects nothing (it only
marks the cached entry observed). After 5 stream failures (a clean close counts) the fast
path is disabled and only the periodic relist remains.

Compared with the kubelet's pkg/kubelet/pleg/evented.go after kubernetes/kubernetes#139262
(and its follow-up that dropped the exit-code filter) and generic.go with the on-demand pod
relist of kubernetes/kubernetes#137362; docs/bug-lab.md says what was compared.
"""
from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg.cache import PodCache
from fakecri.client.pleg.evented import EventedPLEG
from fakecri.client.pleg.ledger import CURRENT_ANNOUNCES, SETTLE_S
from fakecri.client.pleg.stream import StreamLoop
from fakecri.client.sync_client import CRIClient

RELIST_PERIOD = 1.0
RELIST_THRESHOLD = 180.0
MAX_STREAM_RETRIES = 5
RELIST_REQUEST_CAPACITY = 200


class CurrentEventedPLEG(EventedPLEG):
    """Relist every second; relist one pod at once when its container or sandbox stops."""

    def __init__(
        self,
        client: CRIClient,
        *,
        relist_period: float = RELIST_PERIOD,
        relist_threshold: float = RELIST_THRESHOLD,
        max_stream_retries: int = MAX_STREAM_RETRIES,
        request_capacity: int = RELIST_REQUEST_CAPACITY,
        channel_capacity: int = 1000,
        retry_delay: float = 0.0,
        connect_timeout: float = 5.0,
        now: Callable[[], int] = time.time_ns,
        streaming: bool = False,
        missed_settle: float = SETTLE_S,
    ) -> None:
        self._relist_with(client, now, missed_settle, relist_period=relist_period, relist_threshold=relist_threshold,
                          channel_capacity=channel_capacity, cache=PodCache(reject_stale=False), streaming=streaming,
                          announces=CURRENT_ANNOUNCES)
        self.requests: queue.Queue[tuple[str, int]] = queue.Queue(maxsize=request_capacity)
        self.fast_path_disabled = threading.Event()
        # (pod uid, seconds from the STOPPED event's arrival to the end of its relist)
        self.targeted: deque[tuple[str, float]] = deque(maxlen=10_000)
        self._stream = StreamLoop(
            client,
            self.metrics,
            on_event=self.handle_event,
            on_exhausted=self._disable_fast_path,
            max_failures=max_stream_retries,
            retry_delay=retry_delay,
            connect_timeout=connect_timeout,
            name="current-evented-pleg",
        )
        self._stop = threading.Event()
        self._worker: threading.Thread | None = None
        self._started = False

    # ------------------------------------------------------------ lifecycle

    def start(self) -> CurrentEventedPLEG:
        if self._started:
            return self
        self._started = True
        self.generic.start()
        self._worker = threading.Thread(target=self._serve_requests, name="pleg-relist-requests", daemon=True)
        self._worker.start()
        self._stream.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._stream.stop()
        if self._worker is not None:
            self._worker.join(10.0)
        self.generic.stop()

    def healthy(self) -> tuple[bool, str]:
        return self.generic.healthy()

    def _disable_fast_path(self) -> None:
        self.ledger.active = False
        self.fast_path_disabled.set()

    # ------------------------------------------------------------ events

    def handle_event(self, event: pb.ContainerEventResponse) -> None:
        """Record latency; turn a STOPPED event into a relist request for its pod."""
        received = self.now()
        if not self.accept_event(event):
            return
        with self.metrics.lock:
            self.metrics.event_latency.observe(max(0, received - event.created_at) / 1e9)
        if event.container_event_type != pb.CONTAINER_STOPPED_EVENT:
            return
        self.request_relist(event.pod_sandbox_status.metadata.uid, received)

    def request_relist(self, uid: str, requested_at: int | None = None) -> bool:
        """Queue a relist of one pod; False (and counted) if the queue is full."""
        try:
            self.requests.put_nowait((uid, self.now() if requested_at is None else requested_at))
        except queue.Full:
            with self.metrics.lock:
                self.metrics.relist_requests_dropped += 1
            return False
        with self.metrics.lock:
            self.metrics.relist_requests += 1
        return True

    def serve_pending(self) -> int:
        """Run every queued relist request now, on this thread; returns how many ran."""
        served = 0
        while True:
            try:
                item = self.requests.get_nowait()
            except queue.Empty:
                return served
            self._serve(*item)
            served += 1

    def _serve_requests(self) -> None:
        while not self._stop.is_set():
            self.ledger.expire()
            try:
                uid, requested_at = self.requests.get(timeout=0.1)
            except queue.Empty:
                continue
            self._serve(uid, requested_at)

    def _serve(self, uid: str, requested_at: int) -> None:
        if requested_at <= self.generic.relist_time:
            # A global relist began after the request: it has seen the pod already.
            with self.metrics.lock:
                self.metrics.targeted_relists_skipped += 1
            return
        if self.generic.relist_pod(uid):
            latency = max(0, self.now() - requested_at) / 1e9
            self.targeted.append((uid, latency))
            with self.metrics.lock:
                self.metrics.targeted_relists += 1
                self.metrics.targeted_relist_latency.observe(latency)
