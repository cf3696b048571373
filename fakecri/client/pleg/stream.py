"""The event-stream loop both evented PLEGs share: connect, hand each event on, count
failures, give up after a number of them. Stopping it is quiet."""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.errors import CRIError, UnavailableError
from fakecri.client.container_events import EventStream
from fakecri.client.pleg.counters import PLEGMetrics
from fakecri.client.sync_client import CRIClient


class StreamLoop:
    """Runs GetContainerEvents on a thread, reconnecting after each failure.

    `on_event` gets every message; `on_failure(exc, failures)` runs after each failure
    (a clean close counts); after `max_failures` of them `on_exhausted()` runs and the
    loop ends. Failures are counted over the loop's whole life, as the kubelet does.
    """

    def __init__(
        self,
        client: CRIClient,
        metrics: PLEGMetrics,
        *,
        on_event: Callable[[pb.ContainerEventResponse], None],
        on_failure: Callable[[CRIError, int], None] | None = None,
        on_exhausted: Callable[[], None] | None = None,
        on_connected: Callable[[], None] | None = None,
        max_failures: int = 5,
        retry_delay: float = 0.0,
        connect_timeout: float = 5.0,
        name: str = "pleg-events",
    ) -> None:
        self.client = client
        self.metrics = metrics
        self.on_event = on_event
        self.on_failure = on_failure
        self.on_exhausted = on_exhausted
        self.on_connected = on_connected
        self.max_failures = max_failures
        self.retry_delay = retry_delay
        self.connect_timeout = connect_timeout
        self.failures = 0
        self.errors: deque[CRIError] = deque(maxlen=100)  # the latest failures
        self.exhausted = threading.Event()
        self.connected = threading.Event()
        self._name = name
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._stream: EventStream | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

    def _on_connected(self) -> None:
        with self.metrics.lock:
            self.metrics.connection_successes += 1
        self.connected.set()
        if self.on_connected is not None:
            self.on_connected()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.failures >= self.max_failures:
                self.exhausted.set()
                if self.on_exhausted is not None:
                    self.on_exhausted()
                return
            try:
                stream = self.client.get_container_events(
                    on_connected=self._on_connected, connect_timeout=self.connect_timeout
                )
                with self._lock:
                    self._stream = stream
                    if self._stop.is_set():
                        stream.cancel()
                for event in stream:
                    self.on_event(event)
            except (CRIError, ValueError) as exc:
                # ValueError: grpc refuses calls on a channel closed under us.
                if self._stop.is_set():
                    return
                if isinstance(exc, ValueError):
                    exc = UnavailableError(str(exc), method="GetContainerEvents")
                self.failures += 1
                self.errors.append(exc)
                with self.metrics.lock:
                    self.metrics.connection_errors += 1
                if self.on_failure is not None:
                    self.on_failure(exc, self.failures)
                if self.retry_delay:
                    self._stop.wait(self.retry_delay)
            finally:
                with self._lock:
                    self._stream = None

    def stop(self, timeout: float | None = 10.0) -> None:
        self._stop.set()
        with self._lock:
            stream = self._stream
        if stream is not None:
            stream.cancel()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()
