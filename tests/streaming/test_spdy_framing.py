"""SPDY/3.1 framing: every frame type round-trips; the decoder is incremental and strict."""
from __future__ import annotations

import struct
import zlib

import pytest

from fakecri.server.streaming import spdy

from .clients import _name_value_block, _read_name_values

FRAMES = [
    spdy.SynStream(1, {"streamtype": "error", "port": "8080"}, associated_id=0, priority=3),
    spdy.SynStream(3, {"streamtype": "stdin"}, fin=True, unidirectional=True),
    spdy.SynReply(1, {}),
    spdy.SynReply(3, {"x-a": "1"}, fin=True),
    spdy.HeadersFrame(3, {"requestid": "7"}, fin=True),
    spdy.DataFrame(1, b"hello"),
    spdy.DataFrame(1, b"", fin=True),
    spdy.DataFrame(5, bytes(range(256)) * 100),
    spdy.RstStream(5, spdy.RST_CANCEL),
    spdy.Settings(((0, 4, 100), (1, 7, 65536)), clear=True),
    spdy.Settings(),
    spdy.Ping(1),
    spdy.Ping(0xFFFFFFFF),
    spdy.GoAway(7, spdy.GOAWAY_OK),
    spdy.WindowUpdate(3, 65536),
]


def test_every_frame_type_round_trips_through_one_connection_context():
    enc, dec = spdy.FrameEncoder(), spdy.FrameDecoder()
    wire = b"".join(enc.encode(f) for f in FRAMES)
    assert dec.feed(wire) == FRAMES


def _joined(frames: list) -> list:
    """Data frames as the sender wrote them: consecutive pieces of one frame put together."""
    out: list = []
    for frame in frames:
        last = out[-1] if out else None
        if (isinstance(frame, spdy.DataFrame) and isinstance(last, spdy.DataFrame) and frame.data
                and last.stream_id == frame.stream_id and not last.fin and last.data):
            out[-1] = spdy.DataFrame(frame.stream_id, last.data + frame.data, frame.fin)
        else:
            out.append(frame)
    return out


def test_decoder_is_incremental_byte_by_byte():
    enc, dec = spdy.FrameEncoder(), spdy.FrameDecoder()
    wire = b"".join(enc.encode(f) for f in FRAMES)
    got = []
    for i in range(len(wire)):
        got += dec.feed(wire[i:i + 1])
    assert _joined(got) == FRAMES


def test_header_compression_context_spans_frames():
    enc, dec = spdy.FrameEncoder(), spdy.FrameDecoder()
    first = enc.encode(spdy.SynStream(1, {"streamtype": "stdout"}))
    second = enc.encode(spdy.SynStream(3, {"streamtype": "stdout"}))
    assert len(second) < len(first)  # the second block refers back into the first
    assert dec.feed(first + second)[1].headers == {"streamtype": "stdout"}
    # A fresh decoder cannot read the second block without the first.
    with pytest.raises(spdy.SpdyProtocolError):
        spdy.FrameDecoder().feed(second)


def test_wire_layout_matches_an_independent_encoder():
    # Build a SYN_STREAM by hand (as the test client does) and decode it.
    comp = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, spdy.DICTIONARY)
    block = comp.compress(_name_value_block({"streamType": "data", "port": "80"}))
    block += comp.flush(zlib.Z_SYNC_FLUSH)
    payload = struct.pack("!LLH", 9, 0, 0) + block
    wire = struct.pack("!HHL", 0x8003, 1, len(payload)) + payload
    (frame,) = spdy.FrameDecoder().feed(wire)
    assert frame == spdy.SynStream(9, {"streamtype": "data", "port": "80"})
    # And the encoder's SYN_REPLY decodes by hand.
    raw = spdy.FrameEncoder().encode(spdy.SynReply(9, {"a": "b"}))
    assert raw[:4] == struct.pack("!HH", 0x8003, 2)
    assert struct.unpack("!L", raw[8:12])[0] == 9
    assert _read_name_values(zlib.decompressobj(zdict=spdy.DICTIONARY).decompress(raw[12:])) == {"a": "b"}
    data = spdy.FrameEncoder().encode(spdy.DataFrame(9, b"xy", fin=True))
    assert data == struct.pack("!LL", 9, (1 << 24) | 2) + b"xy"


def test_multi_valued_headers_use_nul_separators():
    block = spdy.pack_header_block({"x-stream-protocol-version": "v4.channel.k8s.io\x00channel.k8s.io"})
    headers = spdy.unpack_header_block(block)
    assert spdy.header_values(headers, "X-Stream-Protocol-Version") == ["v4.channel.k8s.io", "channel.k8s.io"]
    assert spdy.header_values(headers, "missing") == []


def test_unknown_control_frames_are_skipped():
    unknown = struct.pack("!HHL", 0x8003, 10, 4) + b"abcd"  # CREDENTIAL, unused by us
    ping = spdy.FrameEncoder().encode(spdy.Ping(3))
    assert spdy.FrameDecoder().feed(unknown + ping) == [spdy.Ping(3)]


@pytest.mark.parametrize("wire", [
    struct.pack("!HHL", 0x8002, 6, 4) + b"\0\0\0\1",          # SPDY/2
    struct.pack("!HHL", 0x8003, 3, 4) + b"\0\0\0\1",          # truncated RST_STREAM
    struct.pack("!HHL", 0x8003, 4, 4) + b"\0\0\0\5",          # SETTINGS count lies
    struct.pack("!HHL", 0x8003, 2, 8) + b"\0\0\0\1garb",      # header block not zlib
])
def test_malformed_frames_raise(wire):
    with pytest.raises(spdy.SpdyProtocolError):
        spdy.FrameDecoder().feed(wire)


def test_oversized_control_frame_is_refused_before_buffering_it():
    dec = spdy.FrameDecoder(max_control=1024)
    with pytest.raises(spdy.SpdyProtocolError):
        dec.feed(struct.pack("!HHL", 0x8003, 1, 4096))


def test_a_16_mib_data_frame_comes_out_in_pieces_as_it_arrives():
    dec = spdy.FrameDecoder(max_piece=64 * 1024)
    size = 0xFFFFFF
    got = dec.feed(struct.pack("!LL", 5, (1 << 24) | size))
    assert got == [] and dec.buffered == 0
    sent, pieces = 0, []
    while sent < size:
        chunk = bytes(min(100_000, size - sent))
        sent += len(chunk)
        pieces += dec.feed(chunk)
        assert dec.buffered < 64 * 1024  # never the whole frame
    assert all(p.stream_id == 5 and len(p.data) <= 64 * 1024 for p in pieces)
    assert sum(len(p.data) for p in pieces) == size
    assert [p.fin for p in pieces] == [False] * (len(pieces) - 1) + [True]
    assert dec.feed(spdy.FrameEncoder().encode(spdy.Ping(1))) == [spdy.Ping(1)]


def test_header_block_bomb_is_refused():
    comp = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, spdy.DICTIONARY)
    huge = _name_value_block({"x": "a" * (spdy.MAX_HEADER_BLOCK + 10)})
    block = comp.compress(huge) + comp.flush(zlib.Z_SYNC_FLUSH)
    wire = struct.pack("!HHL", 0x8003, 2, 4 + len(block)) + struct.pack("!L", 1) + block
    with pytest.raises(spdy.SpdyProtocolError):
        spdy.FrameDecoder().feed(wire)


def test_encoder_rejects_out_of_range_values():
    enc = spdy.FrameEncoder()
    with pytest.raises(ValueError):
        enc.encode(spdy.DataFrame(1 << 31, b""))
    with pytest.raises(TypeError):
        enc.encode("not a frame")  # type: ignore[arg-type]
