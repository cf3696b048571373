"""The Kubernetes channel protocol over WebSocket (websockets' sans-I/O protocol).

Every data message starts with a channel number: one byte in the binary protocols,
one ASCII digit in the base64 ones (whose payload is then base64 text). Remote command
uses 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize; v5 adds 255 "close channel N".
Port forward uses two channels per requested port: data (2i) and error (2i+1), so one
connection carries at most 128 ports; more are refused with a close frame that says so.
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
from collections.abc import AsyncIterator, Sequence

from websockets.exceptions import InvalidState, NegotiationError
from websockets.frames import Frame, Opcode
from websockets.server import ServerProtocol
from websockets.typing import Subprotocol

from fakecri.server.streaming import remotecommand as rc
from fakecri.server.streaming.backend import StreamingBackend
from fakecri.server.streaming.hangup import PeerGone, wait_unless_hung_up
from fakecri.server.streaming.limits import StreamingLimits
from fakecri.server.streaming.portforward import forward
from fakecri.server.streaming.prepared import AttachRequest, ExecRequest, PortForwardRequest
from fakecri.server.streaming.tasks import cancel_tasks

STDIN, STDOUT, STDERR, ERROR, RESIZE, CLOSE = 0, 1, 2, 3, 4, 255

COMMAND_PROTOCOLS = (
    "v5.channel.k8s.io", "v5.base64.channel.k8s.io",
    "v4.channel.k8s.io", "v4.base64.channel.k8s.io",
    "channel.k8s.io", "base64.channel.k8s.io",
)
PORT_FORWARD_PROTOCOLS = ("v4.channel.k8s.io", "v4.base64.channel.k8s.io")
MAX_PORTS = 128  # two channels each, and a channel is one byte
CLOSE_POLICY_VIOLATION = 1008
CLOSE_GRACE_S = 2.0  # how long the peer gets to answer our close frame


def handshake_protocol(supported: tuple[str, ...],
                       max_message: int = StreamingLimits.max_ws_message) -> ServerProtocol:
    """A sans-I/O server protocol that picks the client's first supported subprotocol.

    A client that offers no subprotocol gets the legacy binary channel protocol.
    """

    def select(_: ServerProtocol, offered: Sequence[Subprotocol]) -> Subprotocol | None:
        if not offered:
            return None
        for name in offered:
            if name in supported:
                return name
        raise NegotiationError(f"none of the offered subprotocols is supported: {offered}")

    return ServerProtocol(subprotocols=[Subprotocol(p) for p in supported],
                          select_subprotocol=select, max_size=max_message)


def version_of(subprotocol: str | None) -> str:
    """The remote-command version a negotiated subprotocol stands for."""
    if subprotocol and subprotocol.startswith("v5."):
        return rc.V5
    if subprotocol and subprotocol.startswith("v4."):
        return rc.V4
    return rc.V1


class ChannelSocket:
    """An accepted WebSocket carrying channel-tagged messages."""

    def __init__(self, protocol: ServerProtocol, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, subprotocol: str | None,
                 idle_timeout_s: float | None) -> None:
        self._protocol = protocol
        self._reader = reader
        self._writer = writer
        self.subprotocol = subprotocol
        self.base64 = bool(subprotocol and "base64" in subprotocol)
        self._idle = idle_timeout_s
        self.closed = asyncio.Event()

    async def flush(self) -> None:
        for data in self._protocol.data_to_send():
            if data:
                self._writer.write(data)
            elif self._writer.can_write_eof():
                with contextlib.suppress(OSError):
                    self._writer.write_eof()
        try:
            await self._writer.drain()
        except ConnectionError:
            self.closed.set()

    async def send(self, channel: int, data: bytes) -> None:
        if self.closed.is_set():
            return
        try:
            if self.base64:
                text = chr(ord("0") + channel) + base64.b64encode(data).decode("ascii")
                self._protocol.send_text(text.encode("utf-8"))
            else:
                self._protocol.send_binary(bytes([channel]) + data)
        except InvalidState:
            self.closed.set()
            return
        await self.flush()

    def _decode(self, opcode: Opcode, payload: bytes) -> tuple[int, bytes] | None:
        if not payload:
            return None
        if opcode is Opcode.TEXT or self.base64:
            text = payload.decode("utf-8", errors="replace")
            try:
                return ord(text[0]) - ord("0"), base64.b64decode(text[1:])
            except (binascii.Error, ValueError):
                return None
        return payload[0], payload[1:]

    async def messages(self) -> AsyncIterator[tuple[int, bytes]]:
        """(channel, payload) for each data message, until the peer closes or goes quiet."""
        pending_opcode: Opcode | None = None
        parts: list[bytes] = []
        try:
            while not self.closed.is_set():
                try:
                    data = await asyncio.wait_for(self._reader.read(64 * 1024), self._idle)
                except (TimeoutError, ConnectionError):
                    return
                if not data:
                    self._protocol.receive_eof()
                    return
                self._protocol.receive_data(data)
                events = self._protocol.events_received()
                await self.flush()  # pongs and the closing handshake
                for frame in events:
                    if not isinstance(frame, Frame):
                        continue
                    if frame.opcode in (Opcode.TEXT, Opcode.BINARY):
                        pending_opcode, parts = frame.opcode, [bytes(frame.data)]
                    elif frame.opcode is Opcode.CONT and pending_opcode is not None:
                        parts.append(bytes(frame.data))
                    else:
                        continue
                    if frame.fin and pending_opcode is not None:
                        message = self._decode(pending_opcode, b"".join(parts))
                        pending_opcode, parts = None, []
                        if message is not None:
                            yield message
                if self._protocol.close_rcvd is not None:
                    return
        finally:
            self.closed.set()

    async def feed(self, pipe: rc.StdinPipe, data: bytes) -> None:
        """Queue input for a command; while the pipe is full the socket is not read, so the
        client is held back, and a client that hangs up meanwhile ends the wait (PeerGone)."""
        if pipe.would_wait(len(data)):
            await wait_unless_hung_up(pipe.feed(data), self._writer)
        else:
            await pipe.feed(data)

    async def close(self, grace_s: float = CLOSE_GRACE_S, code: int = 1000, reason: str = "") -> None:
        """Start the closing handshake, wait briefly for the peer, drop the connection."""
        with contextlib.suppress(InvalidState):
            self._protocol.send_close(code, reason)
        await self.flush()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_s
        with contextlib.suppress(asyncio.TimeoutError, ConnectionError):
            while self._protocol.close_rcvd is None and (remaining := deadline - loop.time()) > 0:
                data = await asyncio.wait_for(self._reader.read(64 * 1024), remaining)
                if not data:
                    break
                self._protocol.receive_data(data)
                self._protocol.events_received()
                if self._protocol.close_rcvd is not None:
                    break
        await self.flush()
        self.closed.set()
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()


async def serve_command(ws: ChannelSocket, backend: StreamingBackend,
                        request: ExecRequest | AttachRequest,
                        limits: StreamingLimits = StreamingLimits()) -> None:
    """Run one exec or attach over the channel protocol."""
    version = version_of(ws.subprotocol)
    # Tell the client the streams are ready: an empty message on the first output channel.
    first = STDOUT if request.stdout else STDERR if request.stderr else ERROR
    await ws.send(first, b"")
    pipe = rc.StdinPipe(limits.stdin_buffer, limits.stdin_piece) if request.stdin else None

    async def read_client() -> None:
        with contextlib.suppress(PeerGone):
            async for channel, data in ws.messages():
                if channel == STDIN and pipe is not None:
                    await ws.feed(pipe, data)
                elif channel == RESIZE:
                    rc.apply_resize(backend, request.container_id, data)
                elif channel == CLOSE and version == rc.V5 and data[:1] == bytes([STDIN]):
                    if pipe is not None:
                        await pipe.finish()

    async def out(data: bytes) -> None:
        await ws.send(STDOUT, data)

    async def err(data: bytes) -> None:
        await ws.send(STDERR, data)

    reading = asyncio.create_task(read_client())
    command = asyncio.create_task(rc.run_command(
        backend, request, stdin=pipe, stdout_write=out if request.stdout else None,
        stderr_write=err if request.stderr else None))
    grace_s = CLOSE_GRACE_S
    try:
        await asyncio.wait({command, reading}, return_when=asyncio.FIRST_COMPLETED)
        if command.done() and not ws.closed.is_set():
            body = rc.encode_status(version, command.result())
            if body:
                await ws.send(ERROR, body)
    except asyncio.CancelledError:
        grace_s = 0.0  # the server is stopping: do not linger
        raise
    finally:
        await rc.stop_command(pipe, command, reading)
        await ws.close(grace_s)


async def serve_port_forward(ws: ChannelSocket, backend: StreamingBackend,
                             request: PortForwardRequest, ports: list[int],
                             limits: StreamingLimits = StreamingLimits()) -> None:
    """One forwarded connection per port in the URL's `port` query, until the client closes."""
    if len(ports) > MAX_PORTS:
        await ws.close(code=CLOSE_POLICY_VIOLATION,
                       reason=f"{len(ports)} ports asked; one WebSocket forwards at most {MAX_PORTS}")
        return
    pipes = [rc.StdinPipe(limits.stdin_buffer, limits.stdin_piece) for _ in ports]
    for index, port in enumerate(ports):
        tag = port.to_bytes(2, "little")
        await ws.send(2 * index, tag)
        await ws.send(2 * index + 1, tag)

    async def serve_one(index: int, port: int) -> None:
        chunks = pipes[index].__aiter__()

        async def read() -> bytes:
            try:
                return await chunks.__anext__()
            except StopAsyncIteration:
                return b""

        async def write(data: bytes) -> None:
            await ws.send(2 * index, data)

        message = await forward(backend, request, port, read, write)
        if message:
            await ws.send(2 * index + 1, message.encode())

    async def read_client() -> None:
        with contextlib.suppress(PeerGone):
            async for channel, data in ws.messages():
                index = channel // 2
                if channel % 2 == 0 and index < len(pipes):
                    await ws.feed(pipes[index], data)

    workers = [asyncio.create_task(serve_one(i, p)) for i, p in enumerate(ports)]
    try:
        await read_client()
    finally:
        for pipe in pipes:
            pipe.abort()
        await cancel_tasks(*workers)
        await ws.close(grace_s=0.0)
