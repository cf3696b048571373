"""Just enough of the protobuf wire format to read a few fields of a CRI config.

The core keeps configs as the serialized bytes the server stored (`Container.spec`,
`Sandbox.spec`) and does not depend on the generated messages. The field numbers used
with this reader are those of runtime.v1 (`api.proto`); the userland tests check them
against the generated classes.
"""
from __future__ import annotations

from typing import Iterator

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated varint")
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) in order: an int for varints, bytes for length-delimited
    fields; fixed-width fields are skipped. Stops quietly at malformed input."""
    i = 0
    try:
        while i < len(data):
            key, i = _varint(data, i)
            number, kind = key >> 3, key & 7
            if kind == VARINT:
                value, i = _varint(data, i)
                yield number, value
            elif kind == BYTES:
                size, i = _varint(data, i)
                yield number, bytes(data[i:i + size])
                i += size
            elif kind == FIXED64:
                i += 8
            elif kind == FIXED32:
                i += 4
            else:
                return
    except ValueError:
        return


def message(data: bytes) -> dict[int, list[int | bytes]]:
    """Every field of one message, repeated ones in order."""
    out: dict[int, list[int | bytes]] = {}
    for number, value in fields(data):
        out.setdefault(number, []).append(value)
    return out


def text(msg: dict[int, list[int | bytes]], number: int) -> str:
    values = [v for v in msg.get(number, ()) if isinstance(v, bytes)]
    return values[-1].decode("utf-8", "replace") if values else ""


def texts(msg: dict[int, list[int | bytes]], number: int) -> list[str]:
    return [v.decode("utf-8", "replace") for v in msg.get(number, ()) if isinstance(v, bytes)]


def sub(msg: dict[int, list[int | bytes]], number: int) -> dict[int, list[int | bytes]]:
    """A nested message (the last one, as protobuf merges), empty when absent."""
    values = [v for v in msg.get(number, ()) if isinstance(v, bytes)]
    return message(values[-1]) if values else {}


def flag(msg: dict[int, list[int | bytes]], number: int) -> bool:
    values = [v for v in msg.get(number, ()) if isinstance(v, int)]
    return bool(values and values[-1])


def signed(value: int) -> int:
    """An int64 read as a varint."""
    return value - (1 << 64) if value >= 1 << 63 else value


def int64s(msg: dict[int, list[int | bytes]], number: int) -> list[int]:
    """A repeated int64, packed or not."""
    out: list[int] = []
    for v in msg.get(number, ()):
        if isinstance(v, int):
            out.append(signed(v))
        else:
            i = 0
            while i < len(v):
                try:
                    n, i = _varint(v, i)
                except ValueError:
                    break
                out.append(signed(n))
    return out
