"""A server-side SPDY/3.1 connection: streams opened by the client, over asyncio streams.

One reader task parses frames and hands each new stream to `on_stream`, which accepts
(SYN_REPLY is sent) or refuses it (RST_STREAM). Frames are encoded and written in one
synchronous step, so the header compression context always matches the wire order.

Unread input is bounded in bytes: past `stream_buffer` bytes on one stream, or
`connection_buffer` on all of them together, the reader stops reading the socket until the
handlers read (or a stream ends), so TCP holds the client back. At most `max_streams`
streams are open at once; one more is refused.
"""
from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable

from fakecri.server.streaming import spdy
from fakecri.server.streaming.hangup import PeerGone, wait_unless_hung_up
from fakecri.server.streaming.limits import ByteMeter, StreamingLimits

DATA_CHUNK = 32 * 1024


class SpdyStream:
    """One client-opened stream: read what the client sends, write back, half-close."""

    def __init__(self, conn: SpdyConnection, stream_id: int, headers: spdy.Headers,
                 max_buffered: int) -> None:
        self.conn = conn
        self.id = stream_id
        self.headers = headers
        self._max = max_buffered
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._eof = False
        self._discard = False
        self._readable = asyncio.Event()
        self.local_closed = False
        self.reset_by_peer = False

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")

    # -- inbound (called by the connection's reader) --
    async def deliver(self, data: bytes) -> None:
        conn = self.conn
        while not self._discard and not self._eof and (
                self._size >= self._max or conn.buffered >= conn.limits.connection_buffer):
            await conn.wait_for_room()
        if self._discard or self._eof or not data:
            return
        self._chunks.append(data)
        self._size += len(data)
        conn.held(len(data))
        self._readable.set()

    def drop_all(self) -> None:
        if self._size:
            self.conn.held(-self._size)
        self._chunks.clear()
        self._size = 0
        self.conn.room.set()

    def end_input(self) -> None:
        self._eof = True
        self._readable.set()
        self.conn.room.set()

    # -- the handler's side --
    async def read(self) -> bytes:
        """The next chunk the client sent; b"" once the client half-closed or reset."""
        while not self._chunks:
            if self._eof:
                return b""
            self._readable.clear()
            await self._readable.wait()
        chunk = self._chunks.popleft()
        self._size -= len(chunk)
        self.conn.held(-len(chunk))
        self.conn.room.set()
        return chunk

    async def chunks(self) -> AsyncIterator[bytes]:
        while chunk := await self.read():
            yield chunk

    def discard_input(self) -> None:
        """Stop buffering: what the client sends from now on is dropped."""
        self._discard = True
        self.drop_all()

    async def write(self, data: bytes) -> None:
        """Send bytes on the stream; silently dropped once the stream is closed or reset."""
        for start in range(0, len(data), DATA_CHUNK):
            if self.local_closed or self.reset_by_peer:
                return
            await self.conn.send(spdy.DataFrame(self.id, data[start:start + DATA_CHUNK]))

    async def close(self) -> None:
        """Half-close our side (an empty DATA frame with FIN)."""
        if self.local_closed or self.reset_by_peer:
            return
        self.local_closed = True
        await self.conn.send(spdy.DataFrame(self.id, b"", fin=True))

    def reset(self, status: int = spdy.RST_CANCEL) -> None:
        if not self.reset_by_peer:
            self.conn.send_nowait(spdy.RstStream(self.id, status))
        self.local_closed = True
        self.end_input()


class SpdyConnection:
    """Serve one upgraded connection. `run()` returns when the peer goes away."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 on_stream: Callable[[SpdyStream], bool], idle_timeout_s: float | None = None,
                 limits: StreamingLimits = StreamingLimits(), meter: ByteMeter | None = None) -> None:
        self._reader = reader
        self._writer = writer
        self._on_stream = on_stream
        self._idle = idle_timeout_s
        self.limits = limits
        self._meter = meter if meter is not None else ByteMeter()
        self.buffered = 0  # unread input of all streams
        self.peak_buffered = 0
        self.room = asyncio.Event()
        self._encoder = spdy.FrameEncoder()
        self._decoder = spdy.FrameDecoder(limits.max_control_frame, limits.data_piece)
        self.streams: dict[int, SpdyStream] = {}
        self._last_id = 0
        self._goaway_sent = False
        self.peer_gone_away = False
        self.closed = asyncio.Event()

    # -- input accounting --
    def held(self, n: int) -> None:
        self.buffered += n
        self.peak_buffered = max(self.peak_buffered, self.buffered)
        self._meter.add(n) if n > 0 else self._meter.sub(-n)

    async def wait_for_room(self) -> None:
        """Wait until a handler reads, or a stream ends or drops its input; PeerGone if the
        client hangs up meanwhile."""
        self.room.clear()
        await wait_unless_hung_up(self.room.wait(), self._writer)

    # -- writing --
    def send_nowait(self, frame: spdy.Frame) -> None:
        if self._writer.is_closing():
            return
        self._writer.write(self._encoder.encode(frame))

    async def send(self, frame: spdy.Frame) -> None:
        self.send_nowait(frame)
        try:
            await self._writer.drain()
        except ConnectionError:
            self.closed.set()

    # -- reading --
    async def run(self) -> None:
        try:
            while True:
                try:
                    data = await asyncio.wait_for(self._reader.read(64 * 1024), self._idle)
                except (TimeoutError, ConnectionError):
                    break
                if not data:
                    break
                for frame in self._decoder.feed(data):
                    await self._dispatch(frame)
        except PeerGone:
            pass
        except spdy.SpdyProtocolError:
            self._goaway_sent = True
            self.send_nowait(spdy.GoAway(self._last_id, spdy.GOAWAY_PROTOCOL_ERROR))
        finally:
            self.closed.set()
            for stream in self.streams.values():
                stream.end_input()  # what they hold stays readable until discarded

    async def _dispatch(self, frame: spdy.Frame) -> None:
        if isinstance(frame, spdy.DataFrame):
            stream = self.streams.get(frame.stream_id)
            if stream is None:
                return
            await stream.deliver(frame.data)
            if frame.fin:
                stream.end_input()
        elif isinstance(frame, spdy.SynStream):
            self._open(frame)
        elif isinstance(frame, spdy.RstStream):
            stream = self.streams.get(frame.stream_id)
            if stream is not None:
                stream.reset_by_peer = True
                stream.end_input()
        elif isinstance(frame, spdy.Ping):
            if frame.ping_id % 2 == 1:  # client-initiated: echo it back
                await self.send(frame)
        elif isinstance(frame, spdy.HeadersFrame):
            stream = self.streams.get(frame.stream_id)
            if stream is not None:
                stream.headers.update(frame.headers)
                if frame.fin:
                    stream.end_input()
        elif isinstance(frame, spdy.GoAway):
            self.peer_gone_away = True
        # SETTINGS and WINDOW_UPDATE need no action: no flow control is enforced.

    def _open(self, frame: spdy.SynStream) -> None:
        sid = frame.stream_id
        if sid in self.streams:
            self.send_nowait(spdy.RstStream(sid, spdy.RST_STREAM_IN_USE))
            return
        if sid % 2 == 0 or sid <= self._last_id or self._goaway_sent:
            self.send_nowait(spdy.RstStream(sid, spdy.RST_PROTOCOL_ERROR if not self._goaway_sent
                                            else spdy.RST_REFUSED_STREAM))
            return
        self._last_id = sid
        if len(self.streams) >= self.limits.max_streams:
            self.send_nowait(spdy.RstStream(sid, spdy.RST_REFUSED_STREAM))
            return
        stream = SpdyStream(self, sid, dict(frame.headers), self.limits.stream_buffer)
        if not self._on_stream(stream):
            self.send_nowait(spdy.RstStream(sid, spdy.RST_REFUSED_STREAM))
            return
        self.streams[sid] = stream
        self.send_nowait(spdy.SynReply(sid, {}))
        if frame.fin:
            stream.end_input()

    def forget(self, stream: SpdyStream) -> None:
        """Drop a finished stream from the table (frames for it are ignored from now on)."""
        stream.discard_input()
        self.streams.pop(stream.id, None)

    # -- ending --
    async def shutdown(self, grace_s: float = 2.0) -> None:
        """Half-close every stream, send GOAWAY, give the peer `grace_s` to hang up, close."""
        for stream in list(self.streams.values()):
            with contextlib.suppress(ConnectionError):
                await stream.close()
            stream.discard_input()
        if not self._goaway_sent:
            self._goaway_sent = True
            with contextlib.suppress(ConnectionError):
                await self.send(spdy.GoAway(self._last_id, spdy.GOAWAY_OK))
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.closed.wait(), grace_s)
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()
