"""GetContainerEvents as an iterator (EventStream) or a callback thread (EventWatcher).

Every way a stream can end on the runtime's side (a clean close, UNAVAILABLE,
UNIMPLEMENTED, any other status) is raised or reported as EventStreamClosed. Only a
cancel from our side ends it quietly.
"""
from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Callable, Iterator
from typing import Generic, Protocol, TypeVar

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.background import Background
from fakecri.client.errors import CRIError, EventStreamClosed

METHOD = "GetContainerEvents"


def stream_closed(err: grpc.RpcError | None) -> EventStreamClosed:
    """The EventStreamClosed for a stream that ended with `err` (None: a clean close)."""
    if err is None:
        return EventStreamClosed("the runtime closed the event stream", code=grpc.StatusCode.OK, method=METHOD)
    code = err.code() if callable(getattr(err, "code", None)) else grpc.StatusCode.UNKNOWN
    details = err.details() if callable(getattr(err, "details", None)) else str(err)
    return EventStreamClosed(details or "event stream failed", code=code, method=METHOD)


class Cancellable(Protocol):
    """What grpc's call objects (sync and asyncio) have in common."""

    def cancel(self) -> bool: ...


class EventCall(Cancellable, Protocol):
    """A GetContainerEvents call of grpc's blocking API: an iterator of the events."""

    def __next__(self) -> pb.ContainerEventResponse: ...


C = TypeVar("C", bound=Cancellable)


class CancellableStream(Generic[C]):
    """One GetContainerEvents call; `cancel()` (from any thread) ends it, and the iteration
    over it, quietly."""

    def __init__(self, call: C) -> None:
        self._call = call
        self._cancelled = False

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        self._cancelled = True
        self._call.cancel()


class EventStream(CancellableStream[EventCall], Iterator[pb.ContainerEventResponse]):
    """Iterate to receive events; `cancel()` (from any thread) ends the iteration quietly."""

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> pb.ContainerEventResponse:
        if self._cancelled:
            raise StopIteration
        try:
            return next(self._call)
        except StopIteration:
            if self._cancelled:
                raise
            raise stream_closed(None) from None
        except grpc.RpcError as err:
            if self._cancelled:
                raise StopIteration from None
            raise stream_closed(err) from None

    close = CancellableStream.cancel

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


class EventSource(Protocol):
    """What an EventWatcher needs of a client (CRIClient is one)."""

    def get_container_events(self, *, on_connected: Callable[[], None] | None = ...,
                             connect_timeout: float | None = ...) -> EventStream: ...


class EventThread(Background):
    """Reads GetContainerEvents on a daemon thread, opening streams with `_open()`.
    `stop()` (from any thread) cancels the open stream and joins the thread; a stream
    cancelled that way ends quietly. Subclasses write `_run()`, what the thread does."""

    def __init__(
        self,
        client: EventSource,
        on_event: Callable[[pb.ContainerEventResponse], None],
        *,
        on_connected: Callable[[], None] | None,
        connect_timeout: float,
        name: str,
    ) -> None:
        self._client = client
        self._on_event = on_event
        self._on_connected = on_connected
        self._connect_timeout = connect_timeout
        self._name = name
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._stream: EventStream | None = None
        self._thread: threading.Thread | None = None

    @abstractmethod
    def _run(self) -> None:
        """The thread's body: read the stream until stopped."""

    def _start_thread(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

    def _connected(self) -> None:
        """Runs once a stream is open, before its first event."""
        if self._on_connected is not None:
            self._on_connected()

    def _open(self) -> EventStream:
        """Open one stream (waiting for the connection); stop() can cancel it from now on."""
        stream = self._client.get_container_events(on_connected=self._connected,
                                                   connect_timeout=self._connect_timeout)
        with self._lock:
            self._stream = stream
            if self._stopping.is_set():
                stream.cancel()
        return stream

    def stop(self, timeout: float | None = 5.0) -> None:
        self._stopping.set()
        with self._lock:
            stream = self._stream
        if stream is not None:
            stream.cancel()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)


class EventWatcher(EventThread):
    """Runs one event stream on a background thread and calls `on_event` for each message.

    When the stream ends on its own, `on_error(EventStreamClosed)` is called and `error`
    holds it. `stop()` cancels the stream and joins the thread; no callback runs after it returns.
    """

    def __init__(
        self,
        client: EventSource,
        on_event: Callable[[pb.ContainerEventResponse], None],
        *,
        on_error: Callable[[CRIError], None] | None = None,
        on_connected: Callable[[], None] | None = None,
        connect_timeout: float = 5.0,
    ) -> None:
        super().__init__(client, on_event, on_connected=on_connected, connect_timeout=connect_timeout,
                         name="cri-events")
        self._on_error = on_error
        self.error: CRIError | None = None
        self.done = threading.Event()

    def start(self) -> EventWatcher:
        if self._thread is not None:
            raise RuntimeError("an EventWatcher runs once")
        self._start_thread()
        return self

    def _run(self) -> None:
        try:
            for event in self._open():
                if self._stopping.is_set():
                    break
                self._on_event(event)
        except CRIError as exc:
            if not self._stopping.is_set():
                self.error = exc
                if self._on_error is not None:
                    self._on_error(exc)
        finally:
            self.done.set()
