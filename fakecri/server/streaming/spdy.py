"""SPDY/3.1 framing: frame records, an encoder and an incremental decoder.

Header blocks are zlib streams primed with the SPDY/3 dictionary; each direction of a
connection keeps one compression context for its whole life, so one encoder and one
decoder belong to exactly one connection. No SPDY flow control is enforced (the Go
spdystream peers used by Kubernetes do not enforce it either): a connection that holds
too much unread input stops reading its socket instead (spdy_connection.py).
"""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

VERSION = 3

SYN_STREAM = 1
SYN_REPLY = 2
RST_STREAM = 3
SETTINGS = 4
PING = 6
GOAWAY = 7
HEADERS = 8
WINDOW_UPDATE = 9

FLAG_FIN = 0x01
FLAG_UNIDIRECTIONAL = 0x02
FLAG_SETTINGS_CLEAR = 0x01

# RST_STREAM status codes.
RST_PROTOCOL_ERROR = 1
RST_INVALID_STREAM = 2
RST_REFUSED_STREAM = 3
RST_CANCEL = 5
RST_INTERNAL_ERROR = 6
RST_STREAM_IN_USE = 8
RST_STREAM_ALREADY_CLOSED = 9

# GOAWAY status codes.
GOAWAY_OK = 0
GOAWAY_PROTOCOL_ERROR = 1

MAX_FRAME_LENGTH = 0xFFFFFF
MAX_HEADER_BLOCK = 256 * 1024
STREAM_ID_MASK = 0x7FFFFFFF

# The SPDY/3 header compression dictionary (protocol data from the SPDY/3 draft).
DICTIONARY = (
    b"\x00\x00\x00\x07options\x00\x00\x00\x04head\x00\x00\x00\x04post\x00\x00\x00\x03"
    b"put\x00\x00\x00\x06delete\x00\x00\x00\x05trace\x00\x00\x00\x06accept\x00\x00\x00"
    b"\x0eaccept-charset\x00\x00\x00\x0faccept-encoding\x00\x00\x00\x0faccept-langua"
    b"ge\x00\x00\x00\raccept-ranges\x00\x00\x00\x03age\x00\x00\x00\x05allow\x00\x00\x00"
    b"\rauthorization\x00\x00\x00\rcache-control\x00\x00\x00\nconnection\x00\x00\x00"
    b"\x0ccontent-base\x00\x00\x00\x10content-encoding\x00\x00\x00\x10content-langua"
    b"ge\x00\x00\x00\x0econtent-length\x00\x00\x00\x10content-location\x00\x00\x00\x0b"
    b"content-md5\x00\x00\x00\rcontent-range\x00\x00\x00\x0ccontent-type\x00\x00\x00"
    b"\x04date\x00\x00\x00\x04etag\x00\x00\x00\x06expect\x00\x00\x00\x07expires\x00\x00"
    b"\x00\x04from\x00\x00\x00\x04host\x00\x00\x00\x08if-match\x00\x00\x00\x11if-mod"
    b"ified-since\x00\x00\x00\rif-none-match\x00\x00\x00\x08if-range\x00\x00\x00\x13"
    b"if-unmodified-since\x00\x00\x00\rlast-modified\x00\x00\x00\x08location\x00\x00"
    b"\x00\x0cmax-forwards\x00\x00\x00\x06pragma\x00\x00\x00\x12proxy-authenticate\x00"
    b"\x00\x00\x13proxy-authorization\x00\x00\x00\x05range\x00\x00\x00\x07referer\x00"
    b"\x00\x00\x0bretry-after\x00\x00\x00\x06server\x00\x00\x00\x02te\x00\x00\x00\x07"
    b"trailer\x00\x00\x00\x11transfer-encoding\x00\x00\x00\x07upgrade\x00\x00\x00\nu"
    b"ser-agent\x00\x00\x00\x04vary\x00\x00\x00\x03via\x00\x00\x00\x07warning\x00\x00"
    b"\x00\x10www-authenticate\x00\x00\x00\x06method\x00\x00\x00\x03get\x00\x00\x00\x06"
    b"status\x00\x00\x00\x06200 OK\x00\x00\x00\x07version\x00\x00\x00\x08HTTP/1.1\x00"
    b"\x00\x00\x03url\x00\x00\x00\x06public\x00\x00\x00\nset-cookie\x00\x00\x00\nkee"
    b"p-alive\x00\x00\x00\x06origin1001012012022052063003023033043053063074024054064"
    b"07408409410411412413414415416417502504505203 Non-Authoritative Information204 "
    b"No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404"
    b" Not Found500 Internal Server Error501 Not Implemented503 Service UnavailableJ"
    b"an Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, F"
    b"ri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,application/x"
    b"ml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,"
    b"deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0."
)


class SpdyProtocolError(Exception):
    """The peer sent bytes that are not valid SPDY/3 framing."""


# Header names are lower case on the wire; several values of one name are joined by NUL.
Headers = dict[str, str]


@dataclass(frozen=True)
class DataFrame:
    stream_id: int
    data: bytes = b""
    fin: bool = False


@dataclass(frozen=True)
class SynStream:
    stream_id: int
    headers: Headers = field(default_factory=dict)
    associated_id: int = 0
    priority: int = 0
    fin: bool = False
    unidirectional: bool = False


@dataclass(frozen=True)
class SynReply:
    stream_id: int
    headers: Headers = field(default_factory=dict)
    fin: bool = False


@dataclass(frozen=True)
class RstStream:
    stream_id: int
    status: int


@dataclass(frozen=True)
class Settings:
    entries: tuple[tuple[int, int, int], ...] = ()  # (flags, id, value)
    clear: bool = False


@dataclass(frozen=True)
class Ping:
    ping_id: int


@dataclass(frozen=True)
class GoAway:
    last_good_stream_id: int
    status: int = GOAWAY_OK


@dataclass(frozen=True)
class HeadersFrame:
    stream_id: int
    headers: Headers = field(default_factory=dict)
    fin: bool = False


@dataclass(frozen=True)
class WindowUpdate:
    stream_id: int
    delta: int


Frame = (DataFrame | SynStream | SynReply | RstStream | Settings | Ping | GoAway
         | HeadersFrame | WindowUpdate)


def pack_header_block(headers: Headers) -> bytes:
    """The uncompressed name/value block: a count, then length-prefixed names and values."""
    parts = [struct.pack(">I", len(headers))]
    for name, value in headers.items():
        n = name.lower().encode("utf-8")
        v = value.encode("utf-8")
        parts.append(struct.pack(">I", len(n)) + n + struct.pack(">I", len(v)) + v)
    return b"".join(parts)


def unpack_header_block(block: bytes) -> Headers:
    """Parse an uncompressed name/value block; names come back lower case."""
    try:
        (count,) = struct.unpack_from(">I", block, 0)
        pos = 4
        headers: Headers = {}
        for _ in range(count):
            (nlen,) = struct.unpack_from(">I", block, pos)
            pos += 4
            name = block[pos:pos + nlen]
            pos += nlen
            (vlen,) = struct.unpack_from(">I", block, pos)
            pos += 4
            value = block[pos:pos + vlen]
            pos += vlen
            if len(name) != nlen or len(value) != vlen or not name:
                raise SpdyProtocolError("truncated header block")
            key = name.decode("utf-8").lower()
            text = value.decode("utf-8")
            headers[key] = headers[key] + "\x00" + text if key in headers else text
    except (struct.error, UnicodeDecodeError) as exc:
        raise SpdyProtocolError(f"bad header block: {exc}") from None
    if pos != len(block):
        raise SpdyProtocolError("trailing bytes after header block")
    return headers


def header_values(headers: Headers, name: str) -> list[str]:
    """All values of one header (empty list if absent)."""
    value = headers.get(name.lower())
    return [] if value is None else value.split("\x00")


def _control(ftype: int, flags: int, payload: bytes) -> bytes:
    if len(payload) > MAX_FRAME_LENGTH:
        raise ValueError("control frame too long")
    return struct.pack(">HHI", 0x8000 | VERSION, ftype, (flags << 24) | len(payload)) + payload


def _sid(stream_id: int) -> int:
    if not 0 <= stream_id <= STREAM_ID_MASK:
        raise ValueError(f"stream id out of range: {stream_id}")
    return stream_id


class FrameEncoder:
    """Turns frame records into bytes; owns the outgoing header compression context."""

    def __init__(self) -> None:
        self._zlib = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, 15, 8,
                                      zlib.Z_DEFAULT_STRATEGY, DICTIONARY)

    def _compress(self, headers: Headers) -> bytes:
        raw = pack_header_block(headers)
        return self._zlib.compress(raw) + self._zlib.flush(zlib.Z_SYNC_FLUSH)

    def encode(self, frame: Frame) -> bytes:
        if isinstance(frame, DataFrame):
            if len(frame.data) > MAX_FRAME_LENGTH:
                raise ValueError("data frame too long")
            return struct.pack(">II", _sid(frame.stream_id),
                               ((FLAG_FIN if frame.fin else 0) << 24) | len(frame.data)) + frame.data
        if isinstance(frame, SynStream):
            flags = (FLAG_FIN if frame.fin else 0) | (FLAG_UNIDIRECTIONAL if frame.unidirectional else 0)
            body = struct.pack(">IIBB", _sid(frame.stream_id), _sid(frame.associated_id),
                               (frame.priority & 0x7) << 5, 0)
            return _control(SYN_STREAM, flags, body + self._compress(frame.headers))
        if isinstance(frame, SynReply):
            body = struct.pack(">I", _sid(frame.stream_id)) + self._compress(frame.headers)
            return _control(SYN_REPLY, FLAG_FIN if frame.fin else 0, body)
        if isinstance(frame, HeadersFrame):
            body = struct.pack(">I", _sid(frame.stream_id)) + self._compress(frame.headers)
            return _control(HEADERS, FLAG_FIN if frame.fin else 0, body)
        if isinstance(frame, RstStream):
            return _control(RST_STREAM, 0, struct.pack(">II", _sid(frame.stream_id), frame.status))
        if isinstance(frame, Settings):
            body = struct.pack(">I", len(frame.entries)) + b"".join(
                struct.pack(">II", ((flags & 0xFF) << 24) | (sid & 0xFFFFFF), value)
                for flags, sid, value in frame.entries)
            return _control(SETTINGS, FLAG_SETTINGS_CLEAR if frame.clear else 0, body)
        if isinstance(frame, Ping):
            return _control(PING, 0, struct.pack(">I", frame.ping_id))
        if isinstance(frame, GoAway):
            return _control(GOAWAY, 0, struct.pack(">II", _sid(frame.last_good_stream_id), frame.status))
        if isinstance(frame, WindowUpdate):
            return _control(WINDOW_UPDATE, 0,
                            struct.pack(">II", _sid(frame.stream_id), frame.delta & STREAM_ID_MASK))
        raise TypeError(f"not a SPDY frame: {frame!r}")


class FrameDecoder:
    """Incremental parser: `feed(bytes)` returns the frames seen so far.

    Owns the incoming header decompression context. Unknown control frame types are
    skipped, as the protocol asks. A control frame longer than `max_control` is refused
    before it is buffered. A data frame is never buffered whole: its payload comes out as
    consecutive DataFrames of at most `max_piece` bytes as the bytes arrive, the frame's FIN
    on the last one, so a peer's 16 MiB frame costs no more memory than a small one.
    """

    def __init__(self, max_control: int = MAX_HEADER_BLOCK, max_piece: int = 64 * 1024) -> None:
        self._buf = bytearray()
        self._zlib = zlib.decompressobj(15, zdict=DICTIONARY)
        self._max_control = max_control
        self._max_piece = max_piece
        self._data_sid = 0  # the data frame whose payload is still arriving
        self._data_left = 0
        self._data_fin = False

    @property
    def buffered(self) -> int:
        """Bytes received and not yet handed out as frames."""
        return len(self._buf)

    def _decompress(self, data: bytes) -> Headers:
        try:
            raw = self._zlib.decompress(data, MAX_HEADER_BLOCK + 1)
        except zlib.error as exc:
            raise SpdyProtocolError(f"header decompression failed: {exc}") from None
        if len(raw) > MAX_HEADER_BLOCK or self._zlib.unconsumed_tail:
            raise SpdyProtocolError("header block too large")
        return unpack_header_block(raw)

    def feed(self, data: bytes) -> list[Frame]:
        self._buf += data
        frames: list[Frame] = []
        while True:
            if self._data_left:
                if not self._buf:
                    break
                n = min(self._data_left, len(self._buf), self._max_piece)
                piece = bytes(self._buf[:n])
                del self._buf[:n]
                self._data_left -= n
                frames.append(DataFrame(self._data_sid, piece, self._data_fin and not self._data_left))
                continue
            if len(self._buf) < 8:
                break
            first, second = struct.unpack_from(">II", self._buf, 0)
            flags, length = second >> 24, second & 0xFFFFFF
            if not first & 0x80000000:
                del self._buf[:8]
                if length:
                    self._data_sid, self._data_left = first & STREAM_ID_MASK, length
                    self._data_fin = bool(flags & FLAG_FIN)
                else:
                    frames.append(DataFrame(first & STREAM_ID_MASK, b"", bool(flags & FLAG_FIN)))
                continue
            if length > self._max_control:
                raise SpdyProtocolError(f"control frame of {length} bytes exceeds the limit "
                                        f"of {self._max_control}")
            if len(self._buf) < 8 + length:
                break
            payload = bytes(self._buf[8:8 + length])
            del self._buf[:8 + length]
            frame = self._parse(first, flags, payload)
            if frame is not None:
                frames.append(frame)
        return frames

    def _parse(self, first: int, flags: int, payload: bytes) -> Frame | None:
        version, ftype = (first >> 16) & 0x7FFF, first & 0xFFFF
        if version != VERSION:
            raise SpdyProtocolError(f"unsupported SPDY version {version}")
        fin = bool(flags & FLAG_FIN)
        try:
            if ftype == SYN_STREAM:
                sid, assoc, prio, _slot = struct.unpack_from(">IIBB", payload, 0)
                return SynStream(sid & STREAM_ID_MASK, self._decompress(payload[10:]),
                                 assoc & STREAM_ID_MASK, prio >> 5, fin,
                                 bool(flags & FLAG_UNIDIRECTIONAL))
            if ftype == SYN_REPLY:
                (sid,) = struct.unpack_from(">I", payload, 0)
                return SynReply(sid & STREAM_ID_MASK, self._decompress(payload[4:]), fin)
            if ftype == HEADERS:
                (sid,) = struct.unpack_from(">I", payload, 0)
                return HeadersFrame(sid & STREAM_ID_MASK, self._decompress(payload[4:]), fin)
            if ftype == RST_STREAM:
                sid, status = struct.unpack_from(">II", payload, 0)
                return RstStream(sid & STREAM_ID_MASK, status)
            if ftype == SETTINGS:
                (count,) = struct.unpack_from(">I", payload, 0)
                if len(payload) != 4 + 8 * count:
                    raise SpdyProtocolError("SETTINGS length does not match its entry count")
                entries = []
                for i in range(count):
                    key, value = struct.unpack_from(">II", payload, 4 + 8 * i)
                    entries.append((key >> 24, key & 0xFFFFFF, value))
                return Settings(tuple(entries), bool(flags & FLAG_SETTINGS_CLEAR))
            if ftype == PING:
                (pid,) = struct.unpack_from(">I", payload, 0)
                return Ping(pid)
            if ftype == GOAWAY:
                # Some old peers send only the stream id.
                (sid,) = struct.unpack_from(">I", payload, 0)
                status = struct.unpack_from(">I", payload, 4)[0] if len(payload) >= 8 else GOAWAY_OK
                return GoAway(sid & STREAM_ID_MASK, status)
            if ftype == WINDOW_UPDATE:
                sid, delta = struct.unpack_from(">II", payload, 0)
                return WindowUpdate(sid & STREAM_ID_MASK, delta & STREAM_ID_MASK)
        except struct.error:
            raise SpdyProtocolError(f"control frame type {ftype} is truncated") from None
        return None
