"""GenericPLEG: the kubelet's periodic relist (pkg/kubelet/pleg/generic.go), over CRI.

Each relist lists sandboxes and containers, groups them into pods, compares every
pod with the record kept from the previous relist, inspects the pods that changed
into the PodCache and sends PodLifecycleEvents into a bounded channel.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.background import Background
from fakecri.client.errors import CRIError, NotFoundError, UnavailableError
from fakecri.client.pleg.cache import PodCache, PodStatus, sandbox_ips
from fakecri.client.pleg.counters import PLEGMetrics
from fakecri.client.pleg.lifecycle import (
    EventChannel,
    EventType,
    PodLifecycleEvent,
    PodRecord,
    build_pods,
    compute_pod_events,
)
from fakecri.client.pleg.pod_sync import newest_first
from fakecri.client.sync_client import CRIClient

RELIST_PERIOD = 1.0
RELIST_THRESHOLD = 180.0
CHANNEL_CAPACITY = 1000

RelistObserver = Callable[[list[PodLifecycleEvent], bool], None]


class GenericPLEG(Background):
    """Relist on a period (or on demand with `relist()` / `relist_pod(uid)`).

    `now` returns wall-clock nanoseconds and stamps the cache. With
    `use_runtime_timestamp` (the legacy Evented PLEG mode) the cache is stamped with the
    runtime's PodSandboxStatusResponse.timestamp when it gives one, and a pod whose
    update the cache rejected is not advanced.
    """

    def __init__(
        self,
        client: CRIClient,
        *,
        relist_period: float = RELIST_PERIOD,
        relist_threshold: float = RELIST_THRESHOLD,
        channel_capacity: int = CHANNEL_CAPACITY,
        cache: PodCache | None = None,
        channel: EventChannel | None = None,
        metrics: PLEGMetrics | None = None,
        now: Callable[[], int] = time.time_ns,
        streaming: bool = False,
        use_runtime_timestamp: bool = False,
    ) -> None:
        self.client = client
        self.relist_period = relist_period
        self.relist_threshold = relist_threshold
        self.cache = cache if cache is not None else PodCache(reject_stale=False)
        self.events = channel if channel is not None else EventChannel(channel_capacity)
        self.metrics = metrics if metrics is not None else PLEGMetrics()
        self.now = now
        self.streaming = streaming
        self.use_runtime_timestamp = use_runtime_timestamp
        # Called with the transitions a relist found for one pod (CHANGED left out) and
        # whether this is the first successful relist, when the pod's record advances.
        self.relist_observer: RelistObserver | None = None
        # Called after every successful full relist (the evented PLEGs settle their ledger).
        self.after_relist: Callable[[], object] | None = None
        self._old: dict[str, PodRecord] = {}
        self._current: dict[str, PodRecord | None] = {}
        self._reinspect: set[str] = set()
        self._relist_lock = threading.RLock()
        self._relist_time = 0
        self._last_start = 0
        self._relisted_once = False
        self.last_error: CRIError | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self) -> GenericPLEG:
        if self._thread is not None and self._thread.is_alive():
            return self
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="generic-pleg", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.relist()
            except ValueError as exc:  # the client's channel was closed under us
                self.last_error = UnavailableError(str(exc), method="ListPodSandbox")
                with self.metrics.lock:
                    self.metrics.relist_errors += 1
            self._wake.wait(self.relist_period)
            self._wake.clear()

    def stop(self, timeout: float | None = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def set_period(self, relist_period: float, relist_threshold: float | None = None) -> None:
        """Change the period (and threshold); a running loop relists at once and keeps going."""
        self.relist_period = relist_period
        if relist_threshold is not None:
            self.relist_threshold = relist_threshold
        self._wake.set()

    # ------------------------------------------------------------ health

    @property
    def relist_time(self) -> int:
        return self._relist_time

    def healthy(self) -> tuple[bool, str]:
        """Healthy while the last successful relist started within the threshold."""
        if not self._relist_time:
            return False, "pleg has yet to be successful"
        elapsed = (self.now() - self._relist_time) / 1e9
        if elapsed > self.relist_threshold:
            return False, f"pleg was last seen active {elapsed:.1f}s ago; threshold is {self.relist_threshold:g}s"
        return True, ""

    # ------------------------------------------------------------ relist

    def relist(self) -> bool:
        """One full relist. Returns False if listing failed (nothing changes then)."""
        with self._relist_lock:
            start = self.now()
            t0 = time.perf_counter()
            try:
                sandboxes = self.client.list_pod_sandbox(streaming=self.streaming)
                containers = self.client.list_containers(streaming=self.streaming)
            except CRIError as exc:
                self.last_error = exc
                with self.metrics.lock:
                    self.metrics.relist_errors += 1
                    self.metrics.relist_duration.observe(time.perf_counter() - t0)
                return False
            first = not self._relisted_once
            self._relisted_once = True
            with self.metrics.lock:
                if self._last_start:
                    self.metrics.relist_interval.observe((start - self._last_start) / 1e9)
            self._last_start = start
            self._relist_time = start

            pods = build_pods(sandboxes, containers)
            self._current = {uid: pods.get(uid) for uid in set(self._old) | set(pods)}
            failed: set[str] = set()
            inspected: set[str] = set()
            for uid, pod in list(self._current.items()):
                events = compute_pod_events(uid, self._old.get(uid), pod)
                if not events:
                    if uid not in self._reinspect:
                        self._advance(uid)
                    continue
                inspected.add(uid)
                ok, updated = self._update_cache(uid, pod)
                if not ok:
                    failed.add(uid)
                    continue
                if self.use_runtime_timestamp and not updated:
                    continue
                self._advance(uid)
                self._publish(events, first)
            for uid in self._reinspect - inspected:
                ok, _ = self._update_cache(uid, self._current.get(uid))
                if ok:
                    self._advance(uid)
                else:
                    failed.add(uid)
            self._reinspect = failed
            self.cache.update_time(start)
            with self.metrics.lock:
                self.metrics.relists += 1
                self.metrics.relist_duration.observe(time.perf_counter() - t0)
                self.metrics.last_relist_ns = self.now()
        if self.after_relist is not None:
            self.after_relist()
        return True

    def _list_pod(self, uid: str) -> PodRecord | None:
        """The pod's sandboxes and their containers, listed now (CRIError when a call fails)."""
        sandboxes = [s for s in self.client.list_pod_sandbox(streaming=self.streaming) if s.metadata.uid == uid]
        containers: list[pb.Container] = []
        for sb in sandboxes:
            containers.extend(self.client.list_containers({"pod_sandbox_id": sb.id}))
        return build_pods(sandboxes, containers).get(uid)

    def relist_pod(self, uid: str) -> bool:
        """Relist one pod now: list its sandboxes and their containers; if it changed (or waits
        for reinspection) emit its events and refresh its cache entry, otherwise only mark the
        entry observed. Returns False if a call failed (the pod is reinspected on the next
        full relist)."""
        with self._relist_lock:
            observed = self.now()
            try:
                pod = self._list_pod(uid)
            except CRIError as exc:
                self.last_error = exc
                self._reinspect.add(uid)
                return False
            self._current[uid] = pod
            events = compute_pod_events(uid, self._old.get(uid), pod)
            if not events and uid not in self._reinspect:
                # As the kubelet's relistPod: nothing changed, so no inspection; the cached
                # entry only counts as observed now.
                self.cache.set_observed_time(uid, observed)
                return True
            ok, updated = self._update_cache(uid, pod)
            if not ok:
                self._reinspect.add(uid)
                return False
            self._reinspect.discard(uid)
            if self.use_runtime_timestamp and not updated:
                return True
            self._advance(uid)
            self._publish(events, not self._relisted_once)
            return True

    def refresh_pod(self, uid: str) -> bool:
        """Inspect pod `uid` into the cache now, sending no lifecycle events and leaving the
        relist records alone. False if a call failed."""
        with self._relist_lock:
            try:
                pod = self._list_pod(uid)
            except CRIError as exc:
                self.last_error = exc
                return False
            ok, _ = self._update_cache(uid, pod)
            return ok

    def records(self) -> dict[str, PodRecord]:
        """The pod records as of the last relist (a copy)."""
        with self._relist_lock:
            return dict(self._old)

    def _advance(self, uid: str) -> None:
        pod = self._current.get(uid)
        if pod is None:
            self._old.pop(uid, None)
            self._current.pop(uid, None)
        else:
            self._old[uid] = pod

    def _publish(self, events: list[PodLifecycleEvent], first: bool) -> None:
        visible = [e for e in events if e.type is not EventType.CHANGED]
        if self.relist_observer is not None and visible:
            self.relist_observer(visible, first)
        for event in visible:
            sent = self.events.send(event)
            with self.metrics.lock:
                if sent:
                    self.metrics.events_sent[event.type.value] += 1
                else:
                    self.metrics.discard_events += 1

    # ------------------------------------------------------------ inspection

    def _update_cache(self, uid: str, pod: PodRecord | None) -> tuple[bool, bool]:
        """Inspect a pod into the cache. Returns (inspection ok, cache accepted it)."""
        if pod is None:
            self.cache.delete(uid)
            return True, True
        timestamp = self.now()
        try:
            status = self.inspect(pod)
        except CRIError as exc:
            with self.metrics.lock:
                self.metrics.inspect_errors += 1
            self.cache.set(uid, None, str(exc), timestamp)
            return False, False
        if not status.ips:
            previous = self.cache.get(uid)
            if previous is not None and previous.status is not None:
                status.ips = previous.status.ips
        if self.use_runtime_timestamp and status.runtime_timestamp:
            timestamp = status.runtime_timestamp
        return True, self.cache.set(uid, status, None, timestamp)

    def inspect(self, pod: PodRecord) -> PodStatus:
        """PodSandboxStatus for each sandbox of the pod, ContainerStatus for each container.

        Objects that vanished meanwhile (NOT_FOUND) are left out; other errors raise.
        """
        responses: list[pb.PodSandboxStatusResponse] = []
        for sid in pod.sandbox_ids():
            try:
                responses.append(self.client.pod_sandbox_status(sid))
            except NotFoundError:
                continue
        responses.sort(key=lambda r: r.status.created_at, reverse=True)
        status = PodStatus(pod.uid, pod.name, pod.namespace, sandbox_statuses=[r.status for r in responses])
        newest = responses[0] if responses else None
        if newest is not None:
            status.name = status.name or newest.status.metadata.name
            status.namespace = status.namespace or newest.status.metadata.namespace
            if newest.status.state == pb.SANDBOX_READY:
                status.ips = sandbox_ips([newest.status])
        if self.use_runtime_timestamp and newest is not None and newest.timestamp:
            # A timestamp means "my container statuses are current": the kubelet takes them
            # as they are, unsorted, and an empty list as no containers.
            status.runtime_timestamp = newest.timestamp
            status.container_statuses = list(newest.containers_statuses)
            return status
        if newest is not None:
            status.runtime_timestamp = newest.timestamp
        for cid in pod.container_ids():
            try:
                status.container_statuses.append(self.client.container_status(cid).status)
            except NotFoundError:
                continue
        status.container_statuses = newest_first(status.container_statuses)  # as the kubelet sorts them
        return status
