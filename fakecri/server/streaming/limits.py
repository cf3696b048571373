"""How many bytes, streams, connections and tokens the streaming server holds at most, and a
meter of the bytes it holds now. docs/guarantees.md states every number here.

What a client sends is held in a few places, each bounded in bytes: the frame decoder of its
connection (a data frame is handed on in pieces as it arrives, never buffered whole), the
unread input of each stream and of the whole connection (past it the server stops reading
the socket, so TCP makes the client wait), and the input pipe of a command.
"""
from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True)
class StreamingLimits:
    # Upgraded or upgrading connections at once (each is a file descriptor); one more is
    # answered 503 and closed.
    max_connections: int = 128
    # Streams open at once on one SPDY connection (a forwarded connection takes two); one
    # more is refused with RST_STREAM (REFUSED_STREAM).
    max_streams: int = 512
    # Unread input held for one stream, and for all the streams of one connection.
    stream_buffer: int = 256 * KIB
    connection_buffer: int = 1 * MIB
    # The largest SPDY control frame (a header block, at most 256 KiB once inflated); a
    # bigger one ends the connection with GOAWAY (PROTOCOL_ERROR). Data frames may be as
    # large as SPDY allows (16 MiB): they are read in pieces of at most `data_piece`.
    max_control_frame: int = 256 * KIB
    data_piece: int = 64 * KIB
    # The largest WebSocket message (close code 1009 past it).
    max_ws_message: int = 1 * MIB
    # Input queued for a command that has not read it yet, in pieces of `stdin_piece`.
    stdin_buffer: int = 128 * KIB
    stdin_piece: int = 8 * KIB
    # Prepared URLs not yet redeemed (each lives `token_ttl_s`), by count and by the bytes
    # of what they hold (an exec's argv, a port list); past either, RESOURCE_EXHAUSTED.
    max_tokens: int = 1000
    token_bytes: int = 64 * MIB
    # An exec's argv, all strings together (as Linux's ARG_MAX): INVALID_ARGUMENT past it.
    max_argv_bytes: int = 2 * MIB


class ByteMeter:
    """Bytes of client input the server holds now, and the most it ever held at once."""

    def __init__(self) -> None:
        self.held = 0
        self.peak = 0

    def add(self, n: int) -> None:
        self.held += n
        if self.held > self.peak:
            self.peak = self.held

    def sub(self, n: int) -> None:
        self.held -= n
