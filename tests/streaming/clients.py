"""Test clients that speak the streaming protocols the way crictl, kubelet and kubectl do.

The SPDY client has its own framing code (struct + zlib); only the SPDY/3 compression
dictionary, which is protocol data, is shared with the server. WebSocket goes through
the `websockets` client library.
"""
from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import struct
import zlib
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from fakecri.server.streaming.backend import StreamingBackend
from fakecri.server.streaming.server import StreamingServer
from fakecri.server.streaming.spdy import DICTIONARY

T = TypeVar("T")
TIMEOUT = 10.0
# The opening handshake's bound: generous, since CI runs the suite beside the package check on 2 cores
# and a loaded machine once took longer than 5 s to answer an upgrade.
OPEN_TIMEOUT_S = 30.0


def run(coro: Awaitable[T], timeout: float = TIMEOUT) -> T:
    """Run one test coroutine on a fresh loop, bounded by `timeout` seconds."""
    return asyncio.run(asyncio.wait_for(coro, timeout))  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def serving(backend: StreamingBackend, **kw: Any) -> AsyncIterator[StreamingServer]:
    server = StreamingServer(backend, host="127.0.0.1", port=0, **kw)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


# ---------------------------------------------------------------- plain HTTP upgrade

@dataclass
class Upgraded:
    status: int
    headers: dict[str, list[str]]
    body: bytes
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    def header(self, name: str) -> str:
        values = self.headers.get(name.lower(), [])
        return values[0] if values else ""


async def http_upgrade(url: str, headers: list[tuple[str, str]], method: str = "POST") -> Upgraded:
    """Send an upgrade request and read the response head (and body, if not 101)."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    lines = [f"{method} {target} HTTP/1.1", f"Host: {parts.netloc}"]
    lines += [f"{k}: {v}" for k, v in headers]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *rest = head.decode("latin-1").split("\r\n")
    status = int(status_line.split(" ")[1])
    parsed: dict[str, list[str]] = {}
    for line in rest:
        if line:
            k, _, v = line.partition(":")
            parsed.setdefault(k.strip().lower(), []).append(v.strip())
    body = b""
    if status != 101:
        length = int(parsed.get("content-length", ["0"])[0])
        body = await reader.readexactly(length)
        writer.close()
    return Upgraded(status, parsed, body, reader, writer)


async def spdy_upgrade(url: str, versions: list[str], method: str = "POST") -> Upgraded:
    headers = [("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1")]
    headers += [("X-Stream-Protocol-Version", v) for v in versions]
    return await http_upgrade(url, headers, method)


# ---------------------------------------------------------------- SPDY client

def _name_value_block(headers: dict[str, str]) -> bytes:
    out = struct.pack("!L", len(headers))
    for k, v in headers.items():
        kb, vb = k.lower().encode(), v.encode()
        out += struct.pack("!L", len(kb)) + kb + struct.pack("!L", len(vb)) + vb
    return out


def _read_name_values(block: bytes) -> dict[str, str]:
    (n,), pos, result = struct.unpack("!L", block[:4]), 4, {}
    for _ in range(n):
        (ln,) = struct.unpack("!L", block[pos:pos + 4])
        name = block[pos + 4:pos + 4 + ln].decode()
        pos += 4 + ln
        (lv,) = struct.unpack("!L", block[pos:pos + 4])
        result[name] = block[pos + 4:pos + 4 + lv].decode()
        pos += 4 + lv
    return result


@dataclass
class ClientStream:
    sid: int
    data: bytearray = field(default_factory=bytearray)
    fin: asyncio.Event = field(default_factory=asyncio.Event)
    replied: asyncio.Event = field(default_factory=asyncio.Event)
    reply_headers: dict[str, str] = field(default_factory=dict)
    reset_status: int | None = None
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def read_until_fin(self, timeout: float = 5.0) -> bytes:
        await asyncio.wait_for(self.fin.wait(), timeout)
        return bytes(self.data)

    async def wait_for_data(self, size: int, timeout: float = 5.0) -> bytes:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.data) < size and not self.fin.is_set():
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), max(0.01, deadline - loop.time()))
        return bytes(self.data)


class SpdyClient:
    """A client end of a SPDY/3.1 session: opens odd-numbered streams, as spdystream does."""

    def __init__(self, up: Upgraded) -> None:
        self.reader, self.writer = up.reader, up.writer
        self.version = up.header("x-stream-protocol-version")
        self._deflate = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, DICTIONARY)
        self._inflate = zlib.decompressobj(zdict=DICTIONARY)
        self._next_id = 1
        self.streams: dict[int, ClientStream] = {}
        self.goaway = asyncio.Event()
        self.pings: list[int] = []
        self.pong = asyncio.Event()
        self.eof = asyncio.Event()
        self._task = asyncio.create_task(self._read_loop())

    def _headers(self, headers: dict[str, str]) -> bytes:
        return self._deflate.compress(_name_value_block(headers)) + self._deflate.flush(zlib.Z_SYNC_FLUSH)

    def _control(self, ftype: int, flags: int, payload: bytes) -> None:
        self.writer.write(struct.pack("!HHL", 0x8003, ftype, (flags << 24) | len(payload)) + payload)

    async def open_stream(self, headers: dict[str, str], *, wait_reply: bool = True) -> ClientStream:
        sid = self._next_id
        self._next_id += 2
        stream = self.streams[sid] = ClientStream(sid)
        self._control(1, 0, struct.pack("!LLH", sid, 0, 0) + self._headers(headers))
        await self.writer.drain()
        if wait_reply:
            await asyncio.wait_for(stream.replied.wait(), 5.0)
        return stream

    async def send(self, stream: ClientStream, data: bytes, fin: bool = False) -> None:
        self.writer.write(struct.pack("!LL", stream.sid, ((1 if fin else 0) << 24) | len(data)) + data)
        await self.writer.drain()

    async def ping(self, ping_id: int) -> None:
        self._control(6, 0, struct.pack("!L", ping_id))
        await self.writer.drain()

    async def _read_loop(self) -> None:
        try:
            while True:
                head = await self.reader.readexactly(8)
                a, b = struct.unpack("!LL", head)
                flags, length = b >> 24, b & 0xFFFFFF
                payload = await self.reader.readexactly(length)
                if a & 0x80000000:
                    self._on_control(a & 0xFFFF, flags, payload)
                else:
                    stream = self.streams.get(a & 0x7FFFFFFF)
                    if stream is not None:
                        stream.data += payload
                        stream.arrived.set()
                        if flags & 1:
                            stream.fin.set()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.eof.set()
            for stream in self.streams.values():
                stream.fin.set()
                stream.arrived.set()

    def _on_control(self, ftype: int, flags: int, payload: bytes) -> None:
        if ftype == 2:  # SYN_REPLY
            (sid,) = struct.unpack("!L", payload[:4])
            stream = self.streams[sid & 0x7FFFFFFF]
            stream.reply_headers = _read_name_values(self._inflate.decompress(payload[4:]))
            stream.replied.set()
        elif ftype == 3:  # RST_STREAM
            sid, status = struct.unpack("!LL", payload)
            stream = self.streams[sid & 0x7FFFFFFF]
            stream.reset_status = status
            stream.replied.set()
            stream.fin.set()
        elif ftype == 6:  # PING
            (pid,) = struct.unpack("!L", payload)
            self.pings.append(pid)
            self.pong.set()
        elif ftype == 7:  # GOAWAY
            self.goaway.set()

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


@dataclass
class CommandResult:
    stdout: bytes
    stderr: bytes
    error: bytes
    protocol: str

    @property
    def status(self) -> dict[str, Any]:
        return json.loads(self.error) if self.error else {}

    @property
    def exit_code(self) -> int:
        """Read the exit code the way client-go does from a v4+ Status."""
        status = self.status
        if not status or status.get("status") == "Success":
            return 0
        assert status["reason"] == "NonZeroExitCode", status
        causes = status["details"]["causes"]
        return int(next(c["message"] for c in causes if c["reason"] == "ExitCode"))


async def spdy_command(url: str, *, stdin: bytes | None = None, stdout: bool = True,
                       stderr: bool = True, tty: bool = False, resize: list[dict] | None = None,
                       versions: tuple[str, ...] = ("v4.channel.k8s.io", "v3.channel.k8s.io",
                                                    "v2.channel.k8s.io", "channel.k8s.io"),
                       ) -> CommandResult:
    """Exec or attach like kubectl: error stream first, then stdin/stdout/stderr/resize."""
    up = await spdy_upgrade(url, list(versions))
    assert up.status == 101, (up.status, up.body)
    client = SpdyClient(up)
    try:
        error = await client.open_stream({"streamType": "error"})
        streams: dict[str, ClientStream] = {}
        if stdin is not None:
            streams["stdin"] = await client.open_stream({"streamType": "stdin"})
        if stdout:
            streams["stdout"] = await client.open_stream({"streamType": "stdout"})
        if stderr and not tty:
            streams["stderr"] = await client.open_stream({"streamType": "stderr"})
        if tty:
            streams["resize"] = await client.open_stream({"streamType": "resize"})
            for size in resize or []:
                await client.send(streams["resize"], json.dumps(size).encode())
        if stdin is not None:
            if stdin:
                await client.send(streams["stdin"], stdin)
            await client.send(streams["stdin"], b"", fin=True)
        err = await error.read_until_fin()
        out = await streams["stdout"].read_until_fin() if "stdout" in streams else b""
        errout = await streams["stderr"].read_until_fin() if "stderr" in streams else b""
        return CommandResult(out, errout, err, client.version)
    finally:
        await client.close()


async def spdy_forward_once(client: SpdyClient, port: int, request_id: int, payload: bytes,
                            *, half_close: bool = True) -> tuple[bytes, bytes]:
    """One forwarded connection like kubectl port-forward: error stream, then data stream."""
    headers = {"streamType": "error", "port": str(port), "requestID": str(request_id)}
    error = await client.open_stream(headers)
    await client.send(error, b"", fin=True)  # kubectl never writes to the error stream
    data = await client.open_stream({**headers, "streamType": "data"})
    if payload:
        await client.send(data, payload)
    if half_close:
        await client.send(data, b"", fin=True)
    received = await data.read_until_fin()
    message = await error.read_until_fin()
    return received, message


# ---------------------------------------------------------------- WebSocket client

def ws_url(url: str) -> str:
    return "ws://" + url.removeprefix("http://")


def _encode(protocol: str, channel: int, data: bytes) -> bytes | str:
    if "base64" in protocol:
        return chr(ord("0") + channel) + base64.b64encode(data).decode()
    return bytes([channel]) + data


def _decode(protocol: str, message: bytes | str) -> tuple[int, bytes]:
    if isinstance(message, str):
        return ord(message[0]) - ord("0"), base64.b64decode(message[1:])
    return message[0], message[1:]


async def ws_command(url: str, protocol: str = "v5.channel.k8s.io", *, stdin: bytes | None = None,
                     resize: list[dict] | None = None, hang_up_after: float | None = None
                     ) -> tuple[CommandResult, list[tuple[int, bytes]]]:
    """Exec or attach over WebSocket; returns the result and every message in order."""
    messages: list[tuple[int, bytes]] = []
    async with ws_connect(ws_url(url), subprotocols=[protocol], max_size=None,  # type: ignore[list-item]
                          open_timeout=OPEN_TIMEOUT_S, close_timeout=2) as conn:
        chosen = conn.subprotocol or ""
        for size in resize or []:
            await conn.send(_encode(chosen, 4, json.dumps(size).encode()))
        if stdin is not None:
            if stdin:
                await conn.send(_encode(chosen, 0, stdin))
            if chosen.startswith("v5."):
                await conn.send(_encode(chosen, 255, bytes([0])))
        try:
            async with asyncio.timeout(hang_up_after):
                async for message in conn:
                    messages.append(_decode(chosen, message))
        except (ConnectionClosed, TimeoutError):
            pass
    by = {1: b"", 2: b"", 3: b""}
    for channel, data in messages:
        if channel in by:
            by[channel] += data
    return CommandResult(by[1], by[2], by[3], chosen), messages
