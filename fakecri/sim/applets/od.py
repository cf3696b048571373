"""`od [-bcdovx] [-A d|o|x|n] [-t TYPE]... [-v] [FILE]...` as busybox 1.35's: 16 bytes a line,
each TYPE its own line (c; d u o x with a size 1, 2, 4 or 8, little-endian, a short last group
padded with zeros), a line equal to the one before shown as `*` (unless -v), the length last.
Types `a` and `f`, and -j -N -S -w, are not modelled.
"""
from __future__ import annotations

import re

from fakecri.sim.applets.common import fail, not_modelled, options, read_inputs
from fakecri.sim.shell import Command, Io, Process

_WIDE = {"o": {1: 3, 2: 6, 4: 11, 8: 22}, "u": {1: 3, 2: 5, 4: 10, 8: 20}, "d": {1: 4, 2: 6, 4: 11, 8: 20},
         "x": {1: 2, 2: 4, 4: 8, 8: 16}}
_SHORT = {"b": "o1", "c": "c", "d": "u2", "o": "o2", "x": "x2"}
_NAMED = {0: "\\0", 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}
_ADDRESS = {"o": ("o", 7), "d": ("d", 7), "x": ("x", 6), "n": ("", 0)}


def _field(kind: str, size: int, chunk: bytes) -> str:
    if kind == "c":
        return "".join(f"{_NAMED[b]:>4}" if b in _NAMED else f"{chr(b):>4}" if 32 <= b < 127 else f" {b:03o}"
                       for b in chunk)
    out = []
    for k in range(0, len(chunk), size):
        value = int.from_bytes(chunk[k:k + size].ljust(size, b"\0"), "little", signed=kind == "d")
        width = _WIDE[kind][size]
        if kind in "ox":
            out.append(f" {value:0{width}{kind}}")
        else:
            out.append(f" {value:>{width}}")
    return "".join(out)


def od(args: list[str], io: Io) -> Process:
    o = yield from options(io, "od", args, "A:t:bcdoxvj:N:S:w:ifl", "[-abcdfhilovxs] [-t TYPE] [-A RADIX] [FILE]...")
    if isinstance(o, int):
        return o
    for ch in "jNSwifl":
        if o.has(ch):
            return (yield from not_modelled(io, "od", f"-{ch}"))
    types: list[tuple[str, int]] = []
    given = [g for g in o.given if g[0] in _SHORT] + [g for g in o.given if g[0] == "t"]  # (busybox's order)
    for ch, value in given:
        if ch == "t" and (bad := re.sub(r"[a-z]\d*", "", value)[:1] or next(
                (c for c in re.findall(r"[a-z]", value) if c not in "acduoxf"), "")):
            return (yield from fail(io, f"od: invalid character '{bad}' in type string '{value}'"))
        specs = [_SHORT[ch]] if ch in _SHORT else re.findall(r"[a-z]\d*", value) if ch == "t" else []
        for spec in specs:
            kind, size = spec[0], int(spec[1:] or (1 if spec[0] == "c" else 4))
            if kind in "af" or kind not in "cduox" or (kind != "c" and size not in (1, 2, 4, 8)):
                if kind in "af":
                    return (yield from not_modelled(io, "od", f"-t {spec}"))
                return (yield from fail(io, f"od: invalid type string '{value}'"))
            types.append((kind, 1 if kind == "c" else size))
    types = types or [("o", 2)]
    radix = o.last("A", "o") or "o"
    if radix not in _ADDRESS:
        return (yield from fail(io, f"od: bad output address radix '{radix}' (must be [doxn])"))
    fmt, width = _ADDRESS[radix]
    found, status = yield from read_inputs(io, "od", o.operands)
    data = b"".join(d for _, d in found)
    out = []
    previous: bytes | None = None
    starred = False
    for at in range(0, len(data), 16):
        chunk = data[at:at + 16]
        if chunk == previous and len(chunk) == 16 and not o.has("v"):
            if not starred:
                out.append("*\n")
                starred = True
            continue
        previous, starred = chunk, False
        for n, (kind, size) in enumerate(types):
            address = f"{at:0{width}{fmt}}" if width and n == 0 else " " * width
            out.append(address + _field(kind, size, chunk) + "\n")
    if width:
        out.append(f"{len(data):0{width}{fmt}}\n")
    yield from io.write("".join(out))
    return status


OD_COMMANDS: dict[str, Command] = {"od": od}
