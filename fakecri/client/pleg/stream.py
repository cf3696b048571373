"""The event-stream loop both evented PLEGs share: connect, hand each event on, count
failures, give up after a number of them. Stopping it is quiet."""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.container_events import EventThread
from fakecri.client.errors import CRIError, UnavailableError
from fakecri.client.pleg.counters import PLEGMetrics
from fakecri.client.sync_client import CRIClient


class StreamLoop(EventThread):
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
        super().__init__(client, on_event, on_connected=on_connected, connect_timeout=connect_timeout, name=name)
        self.metrics = metrics
        self.on_failure = on_failure
        self.on_exhausted = on_exhausted
        self.max_failures = max_failures
        self.retry_delay = retry_delay
        self.failures = 0
        self.errors: deque[CRIError] = deque(maxlen=100)  # the latest failures
        self.exhausted = threading.Event()
        self.connected = threading.Event()

    def start(self) -> StreamLoop:
        self._start_thread()
        return self

    def _connected(self) -> None:
        with self.metrics.lock:
            self.metrics.connection_successes += 1
        self.connected.set()
        super()._connected()

    def _run(self) -> None:
        while not self._stopping.is_set():
            if self.failures >= self.max_failures:
                self.exhausted.set()
                if self.on_exhausted is not None:
                    self.on_exhausted()
                return
            try:
                for event in self._open():
                    self._on_event(event)
            except (CRIError, ValueError) as exc:
                # ValueError: grpc refuses calls on a channel closed under us.
                if self._stopping.is_set():
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
                    self._stopping.wait(self.retry_delay)
            finally:
                with self._lock:
                    self._stream = None

    def stop(self, timeout: float | None = 10.0) -> None:
        super().stop(timeout)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()
