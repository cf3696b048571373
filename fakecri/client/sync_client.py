"""CRIClient: a typed, synchronous client for the CRI RuntimeService and ImageService.

It speaks only standard CRI (runtime.v1), so it works against containerd, CRI-O or
fakecri. Calls take and return the generated protobuf messages; list calls return
the list of items. Failures raise fakecri.client.errors.CRIError subclasses. The
typed methods themselves live in calls.py, shared with the asyncio client.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc as pb_grpc
from fakecri.client.calls import CRI_API_VERSION, IMAGES, RUNTIME, BlockingCalls, Item, Listing, R, T, Unary
from fakecri.client.container_events import EventStream, EventWatcher
from fakecri.client.endpoint import Endpoint, parse_endpoint
from fakecri.client.errors import CRIError, UnavailableError, from_rpc_error

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
DEFAULT_TIMEOUT = 120.0

__all__ = ["CRI_API_VERSION", "CRIClient", "DEFAULT_TIMEOUT", "MAX_MESSAGE_BYTES", "channel_options"]


def channel_options() -> list[tuple[str, int]]:
    return [
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ]


def wait_channel_ready(channel: grpc.Channel, timeout: float) -> None:
    """Return once `channel` is connected; UnavailableError if it fails fast or times out."""
    settled = threading.Event()
    seen: list[grpc.ChannelConnectivity] = []
    final = (grpc.ChannelConnectivity.READY, grpc.ChannelConnectivity.TRANSIENT_FAILURE,
             grpc.ChannelConnectivity.SHUTDOWN)

    def on_change(state: grpc.ChannelConnectivity) -> None:
        if state in final and not settled.is_set():
            seen.append(state)
            settled.set()

    channel.subscribe(on_change, try_to_connect=True)
    try:
        if not settled.wait(timeout):
            raise UnavailableError(f"not connected after {timeout:g}s")
        if seen[0] is not grpc.ChannelConnectivity.READY:
            raise UnavailableError(f"cannot connect to the runtime (channel {seen[0].name})")
    finally:
        channel.unsubscribe(on_change)


# grpc polls a channel's connectivity on a thread for up to this long after the last
# unsubscribe; closing the channel under it makes that thread raise.
CONNECTIVITY_POLL_S = 0.25


class CRIClient(BlockingCalls):
    """One connection to a CRI runtime (and optionally a separate image service)."""

    def __init__(self, endpoint: str, *, timeout: float = DEFAULT_TIMEOUT, image_endpoint: str | None = None) -> None:
        self.endpoint: Endpoint = parse_endpoint(endpoint)
        self.image_endpoint: Endpoint = parse_endpoint(image_endpoint) if image_endpoint else self.endpoint
        self.timeout = timeout
        self._channel = grpc.insecure_channel(self.endpoint.target, options=channel_options())
        if self.image_endpoint == self.endpoint:
            self._image_channel = self._channel
        else:
            self._image_channel = grpc.insecure_channel(self.image_endpoint.target, options=channel_options())
        self._stubs: dict[str, Any] = {  # grpc generates the stubs without annotations
            RUNTIME: pb_grpc.RuntimeServiceStub(self._channel),  # type: ignore[no-untyped-call,unused-ignore]
            IMAGES: pb_grpc.ImageServiceStub(self._image_channel),  # type: ignore[no-untyped-call,unused-ignore]
        }
        self.unimplemented_streams: set[str] = set()
        self._closed = False
        self._watched_until = 0.0  # when wait_ready last stopped watching the channel's connectivity

    # ------------------------------------------------------------ how calls are made

    def _unary(self, call: Unary[R, T]) -> T:
        try:
            reply = self._stub_method(call.service, call.method)(
                call.request, timeout=self.timeout if call.timeout is None else call.timeout)
        except grpc.RpcError as err:
            raise from_rpc_error(err, call.method) from None
        return call.extract(reply)

    def _collect(self, call: Listing[Item]) -> list[Item]:
        if self._wants_stream(call):
            rpc = call.rpc
            try:
                replies: Iterable[object] = self._stub_method(rpc.service, rpc.stream_method)(
                    call.stream_request(), timeout=self.timeout)
                return [item for reply in replies for item in call.part(reply)]
            except grpc.RpcError as err:
                self._stream_refused(err, rpc)
        return self._unary(call.unary())

    # ------------------------------------------------------------ connection

    def wait_ready(self, timeout: float = 5.0) -> None:
        """Block until the runtime socket is connected (UnavailableError otherwise)."""
        self._wait_connected(timeout)

    def _wait_connected(self, timeout: float) -> None:
        try:
            wait_channel_ready(self._channel, timeout)
        finally:
            self._watched_until = time.monotonic()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        settle = self._watched_until + CONNECTIVITY_POLL_S - time.monotonic()
        if self._watched_until and settle > 0:
            time.sleep(settle)  # grpc's connectivity poll may still be running; let it end first
        self._channel.close()
        if self._image_channel is not self._channel:
            self._image_channel.close()

    def __enter__(self) -> CRIClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ events

    def get_container_events(
        self,
        *,
        on_connected: Callable[[], None] | None = None,
        connect_timeout: float | None = 5.0,
    ) -> EventStream:
        """Open the event stream. Waits for the connection first (fails fast if the runtime
        is down), then calls `on_connected`. The stream has no deadline."""
        if connect_timeout is not None:
            try:
                self._wait_connected(connect_timeout)
            except UnavailableError as exc:
                exc.method = "GetContainerEvents"
                raise
        call = self._stubs[RUNTIME].GetContainerEvents(pb.GetEventsRequest())
        if on_connected is not None:
            on_connected()
        return EventStream(call)

    def watch_container_events(
        self,
        on_event: Callable[[pb.ContainerEventResponse], None],
        *,
        on_error: Callable[[CRIError], None] | None = None,
        on_connected: Callable[[], None] | None = None,
    ) -> EventWatcher:
        """Start a background thread delivering events to `on_event`; call `.stop()` to end it."""
        return EventWatcher(self, on_event, on_error=on_error, on_connected=on_connected).start()
