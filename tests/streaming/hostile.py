"""Hostile streaming clients: each pushes bytes at the server that a well-behaved client never
would, and stops when the server stops taking them (its writes stall) or when all is sent.

They measure nothing themselves: the tests look at the server's buffered-byte counters, or at
the peak resident memory of a `fakecri serve` child, afterwards.
"""
from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from dataclasses import dataclass

from .clients import SpdyClient, spdy_upgrade

MIB = 1024 * 1024
FRAME = 16 * MIB - 1  # the largest SPDY data frame the 24-bit length allows
STALL_S = 1.5  # a write that makes no progress this long means the server stopped reading


@dataclass
class Pushed:
    sent: int = 0  # bytes of frames handed to the socket and taken by the server's side
    stalled: bool = False  # the server stopped reading before everything was sent
    refused: int = 0  # streams the server reset


async def _push(client: SpdyClient, sid: int, payload: bytes, out: Pushed) -> bool:
    """One data frame, written in pieces so a stalled server is noticed; False once stalled."""
    head = struct.pack("!LL", sid, len(payload))
    view = memoryview(head + payload)
    for start in range(0, len(view), MIB):
        client.writer.write(view[start:start + MIB])
        try:
            await asyncio.wait_for(client.writer.drain(), STALL_S)
        except (TimeoutError, ConnectionError):
            out.stalled = True
            return False
        out.sent += min(MIB, len(view) - start)
    return True


async def flood_unpaired_port_forward(url: str, streams: int = 200, frame: int = FRAME) -> Pushed:
    """Open `streams` port-forward data streams that never get their error stream, and send
    one big frame on each: data a pairing stream would have to hold for someone."""
    out = Pushed()
    up = await spdy_upgrade(url, ["portforward.k8s.io"])
    assert up.status == 101, (up.status, up.body)
    client = SpdyClient(up)
    payload = bytes(frame)
    try:
        for i in range(streams):
            stream = await client.open_stream({"streamType": "data", "port": "80", "requestID": str(i)},
                                              wait_reply=False)
            if not await _push(client, stream.sid, payload, out):
                break
        await asyncio.sleep(0)
        out.refused = sum(1 for s in client.streams.values() if s.reset_status is not None)
    finally:
        await _hang_up(client)
    return out


async def flood_exec_stdin(url: str, frames: int = 100, frame: int = FRAME) -> Pushed:
    """Exec a command that never reads its input, and send `frames` big frames of input."""
    out = Pushed()
    up = await spdy_upgrade(url, ["v4.channel.k8s.io"])
    assert up.status == 101, (up.status, up.body)
    client = SpdyClient(up)
    payload = bytes(frame)
    try:
        for kind in ("error", "stdin", "stdout", "stderr"):
            await client.open_stream({"streamType": kind})
        stdin = next(s for s in client.streams.values() if s.sid == 3)
        for _ in range(frames):
            if not await _push(client, stdin.sid, payload, out):
                break
    finally:
        await _hang_up(client)
    return out


async def _hang_up(client: SpdyClient) -> None:
    """Drop the connection with what is still unsent, with a reset as a killed client's
    kernel sends (a polite close would wait for the server to read it all, which is what it
    refuses to do)."""
    sock = client.writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.writer.transport.abort()
    with contextlib.suppress(Exception):
        await client.close()
