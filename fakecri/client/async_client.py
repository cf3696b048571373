"""AsyncCRIClient: the same typed calls as CRIClient (calls.py), over grpc.aio.

Every typed method returns a coroutine; `get_container_events()` returns an async
iterator with the same end-of-stream rules as the sync one.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Awaitable
from typing import Any, Protocol, cast

import grpc
import grpc.aio

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc as pb_grpc
from fakecri.client.calls import IMAGES, RUNTIME, AsyncCalls, Item, Listing, R, T, Unary
from fakecri.client.container_events import METHOD, Cancellable, CancellableStream, stream_closed
from fakecri.client.endpoint import Endpoint, parse_endpoint
from fakecri.client.errors import UnavailableError, from_rpc_error
from fakecri.client.sync_client import DEFAULT_TIMEOUT, channel_options


class AsyncEventCall(Cancellable, Protocol):
    """A GetContainerEvents call of grpc.aio: `read()` gives the next event, or grpc.aio.EOF."""

    def read(self) -> Awaitable[object]: ...


class AsyncEventStream(CancellableStream[AsyncEventCall]):
    """`async for` over container events; `cancel()` ends the iteration quietly."""

    def __aiter__(self) -> AsyncEventStream:
        return self

    async def __anext__(self) -> pb.ContainerEventResponse:
        if self._cancelled:
            raise StopAsyncIteration
        try:
            message = await self._call.read()
        except asyncio.CancelledError:
            if self._cancelled:
                raise StopAsyncIteration from None
            raise
        except grpc.RpcError as err:
            if self._cancelled:
                raise StopAsyncIteration from None
            raise stream_closed(err) from None
        if message is grpc.aio.EOF:
            if self._cancelled:
                raise StopAsyncIteration
            raise stream_closed(None)
        return cast(pb.ContainerEventResponse, message)  # whatever is not EOF is an event


class AsyncCRIClient(AsyncCalls):
    """One grpc.aio connection to a CRI runtime. Create and use it inside a running loop."""

    def __init__(self, endpoint: str, *, timeout: float = DEFAULT_TIMEOUT, image_endpoint: str | None = None) -> None:
        self.endpoint: Endpoint = parse_endpoint(endpoint)
        self.image_endpoint: Endpoint = parse_endpoint(image_endpoint) if image_endpoint else self.endpoint
        self.timeout = timeout
        self._channel = grpc.aio.insecure_channel(self.endpoint.target, options=channel_options())
        self._image_channel = (
            self._channel if self.image_endpoint == self.endpoint
            else grpc.aio.insecure_channel(self.image_endpoint.target, options=channel_options())
        )
        self._stubs: dict[str, Any] = {  # grpc generates the stubs without annotations
            RUNTIME: pb_grpc.RuntimeServiceStub(self._channel),  # type: ignore[no-untyped-call,unused-ignore]
            IMAGES: pb_grpc.ImageServiceStub(self._image_channel),  # type: ignore[no-untyped-call,unused-ignore]
        }
        self.unimplemented_streams: set[str] = set()

    async def _unary(self, call: Unary[R, T]) -> T:
        try:
            reply = await self._stub_method(call.service, call.method)(
                call.request, timeout=self.timeout if call.timeout is None else call.timeout)
        except grpc.RpcError as err:
            raise from_rpc_error(err, call.method) from None
        return call.extract(reply)

    async def _collect(self, call: Listing[Item]) -> list[Item]:
        if self._wants_stream(call):
            rpc = call.rpc
            try:
                replies: AsyncIterable[object] = self._stub_method(rpc.service, rpc.stream_method)(
                    call.stream_request(), timeout=self.timeout)
                return [item async for reply in replies for item in call.part(reply)]
            except grpc.RpcError as err:
                self._stream_refused(err, rpc)
        return await self._unary(call.unary())

    async def wait_ready(self, timeout: float = 5.0) -> None:
        try:
            await asyncio.wait_for(self._channel.channel_ready(), timeout)
        except TimeoutError:
            raise UnavailableError(f"not connected after {timeout:g}s") from None

    async def get_container_events(self, *, connect_timeout: float | None = 5.0) -> AsyncEventStream:
        """Connect (UnavailableError if that fails) and open the event stream."""
        if connect_timeout is not None:
            try:
                await self.wait_ready(connect_timeout)
            except UnavailableError as exc:
                exc.method = METHOD
                raise
        return AsyncEventStream(self._stubs[RUNTIME].GetContainerEvents(pb.GetEventsRequest()))

    async def close(self) -> None:
        await self._channel.close()
        if self._image_channel is not self._channel:
            await self._image_channel.close()

    async def __aenter__(self) -> AsyncCRIClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
