"""`sort` and `uniq` as busybox 1.35's.

sort: `-n -g -M -V -f -d -i -b -r -u -s -c -z -o FILE -t CHAR -k START[.C][OPTS][,END[.C][OPTS]]`.
A field starts with the blanks before it (unless `-b`); lines whose keys are equal are ordered
by the whole line (unless `-s`), reversed too under `-r`. A number that is not one sorts as 0.
uniq: `-c -d -u -i -z -f N -s N -w N [INPUT [OUTPUT]]`.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from fakecri.sim.applets.common import (
    BadUsage,
    decode,
    encode,
    fail,
    lines_of,
    options,
    read_inputs,
    usage_error,
    write_path,
)
from fakecri.sim.shell import Command, Io, Process
from fakecri.sim.userland.world import FileError

_MONTHS = {m: n for n, m in enumerate("JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split(), 1)}
# What C's strtod reads at the start of a key (busybox's -n is atof, -g strtod): blanks, a sign,
# a decimal or hex number with its exponent, inf, infinity, nan.
_STRTOD = re.compile(r"\s*([-+]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][-+]?\d+)?"
                     r"|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan))", re.I)


@dataclass(slots=True)
class _Key:
    start: int
    start_char: int
    end: int  # 0: to the end of the line
    end_char: int
    flags: str


def _parse_key(spec: str) -> _Key | None:
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?([bdfgiMnrV]*)(?:,(\d+)(?:\.(\d+))?([bdfgiMnrV]*))?", spec)
    if m is None or int(m.group(1)) == 0:
        return None
    return _Key(int(m.group(1)), int(m.group(2) or 1), int(m.group(4) or 0), int(m.group(5) or 0),
                (m.group(3) or "") + (m.group(6) or ""))


def _fields(line: str, sep: str | None) -> list[tuple[int, int]]:
    """(start, end) of each field: with a separator, between them; else each starts with its blanks."""
    if sep is not None:
        spans, pos = [], 0
        for part in line.split(sep):
            spans.append((pos, pos + len(part)))
            pos += len(part) + 1
        return spans
    return [(m.start(), m.end()) for m in re.finditer(r"[ \t]*[^ \t]+", line)] or [(0, len(line))]


def _key_text(line: str, key: _Key, sep: str | None, blanks: bool) -> str:
    spans = _fields(line, sep)
    if key.start > len(spans):
        return ""
    s0 = spans[key.start - 1][0]
    if blanks or "b" in key.flags:
        while s0 < len(line) and line[s0] in " \t":
            s0 += 1
    begin = s0 + key.start_char - 1
    if key.end == 0 or key.end > len(spans):
        end = len(line)
    elif key.end_char:
        e0 = spans[key.end - 1][0]
        end = e0 + key.end_char
    else:
        end = spans[key.end - 1][1]
    return line[begin:max(begin, end)]


def _strtod(text: str) -> float | None:
    m = _STRTOD.match(text)
    if m is None:
        return None
    t = m.group(1)
    return float.fromhex(t) if "x" in t.lower() else float(t)


def _number(text: str) -> float:
    value = _strtod(text)
    return 0.0 if value is None else value


def _general(text: str) -> float:
    value = _strtod(text)
    return float("-inf") if value is None else value


def _version(text: str) -> list[tuple[int, int | str]]:
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.findall(r"\d+|\D+", text)]


def _compare_text(a: str, b: str, flags: str) -> int:
    if "d" in flags:
        a, b = re.sub(r"[^\w \t]|_", "", a), re.sub(r"[^\w \t]|_", "", b)
    if "i" in flags:
        a, b = "".join(c for c in a if c.isprintable()), "".join(c for c in b if c.isprintable())
    if "f" in flags:
        a, b = a.upper(), b.upper()
    if "n" in flags:
        x, y = _number(a), _number(b)
        return (x > y) - (x < y)
    if "g" in flags:
        x, y = _general(a), _general(b)
        return (x > y) - (x < y)
    if "M" in flags:
        p, q = _MONTHS.get(a.strip()[:3].upper(), 0), _MONTHS.get(b.strip()[:3].upper(), 0)
        return (p > q) - (p < q)
    if "V" in flags:
        v, w = _version(a), _version(b)
        return (v > w) - (v < w)
    ea, eb = encode(a), encode(b)
    return (ea > eb) - (ea < eb)


def _comparer(keys: list[_Key], global_flags: str, sep: str | None, stable: bool) -> Callable[[str, str], int]:
    blanks = "b" in global_flags
    reverse = "r" in global_flags

    def compare(a: str, b: str) -> int:
        for key in keys or [_Key(1, 1, 0, 0, "")]:
            flags = key.flags if set(key.flags) - {"b"} else key.flags + global_flags
            ka = _key_text(a, key, sep, blanks) if keys else a.lstrip(" \t") if blanks else a
            kb = _key_text(b, key, sep, blanks) if keys else b.lstrip(" \t") if blanks else b
            c = _compare_text(ka, kb, flags)
            if c:
                return -c if "r" in flags else c
        if stable:
            return 0
        c = _compare_text(a, b, "")
        return -c if reverse else c
    return compare


def sort(args: list[str], io: Io) -> Process:
    synopsis = "[-nrugMcszbdfiokt] [-o FILE] [-k START[.OFS][OPTS][,END[.OFS][OPTS]] [-t CHAR] [FILE]..."
    o = yield from options(io, "sort", args, "nrugMcszbdfiVmS:T:k:t:o:", synopsis, code=2)
    if isinstance(o, int):
        return o
    keys = []
    for spec in o.all("k"):
        key = _parse_key(spec)
        if key is None:
            return (yield from fail(io, "sort: bad field specification", 2))
        keys.append(key)
    sep = o.last("t")
    if sep is not None and len(encode(sep)) != 1:
        return (yield from fail(io, "sort: bad -t parameter", 2))
    flags = "".join(ch for ch in "nrgMbdfiV" if o.has(ch))
    found, status = yield from read_inputs(io, "sort", o.operands)
    if status:
        return 2
    nul = "\0" if o.has("z") else "\n"
    lines = [line for _, data in found for line in lines_of(decode(data), nul)]
    compare = _comparer(keys, flags, sep, o.has("s"))
    same = _comparer(keys, flags, sep, True)  # -u: lines equal by their keys are one (the first in order kept)
    if o.has("c"):
        for n in range(1, len(lines)):
            c = compare(lines[n - 1], lines[n])
            if c > 0 or (o.has("u") and same(lines[n - 1], lines[n]) == 0):
                yield from io.error(f"Check line {n}\n")  # (busybox's words, without its name)
                return 1
        return 0
    ordered = sorted(lines, key=functools.cmp_to_key(compare))
    if o.has("u"):
        kept: list[str] = []
        for line in ordered:
            if not kept or same(kept[-1], line) != 0:
                kept.append(line)
        ordered = kept
    text = "".join(line + nul for line in ordered)
    target = o.last("o")
    if target is not None:
        try:
            yield from write_path(io, target, encode(text))
        except FileError as exc:
            return (yield from fail(io, f"sort: can't open '{target}': {exc.reason}", 2))
        return 0
    yield from io.write(text)
    return 0


def uniq(args: list[str], io: Io) -> Process:
    o = yield from options(io, "uniq", args, "cduizf:s:w:", "[-cduiz] [-f,s,w N] [FILE [OUTFILE]]")
    if isinstance(o, int):
        return o
    numbers = {}
    for ch in "fsw":
        value = o.last(ch)
        if value is not None:
            if not value.isdigit():
                return (yield from fail(io, f"uniq: invalid number '{value}'"))
            numbers[ch] = int(value)
    if len(o.operands) > 2:
        return (yield from usage_error(io, "uniq", "[-cduiz] [-f,s,w N] [FILE [OUTFILE]]", BadUsage("")))
    source = o.operands[:1]
    found, status = yield from read_inputs(io, "uniq", source, style="open")
    if status:
        return status
    end = "\0" if o.has("z") else "\n"
    lines = lines_of(decode(found[0][1]))

    def key(line: str) -> str:
        if "f" in numbers:
            m = re.match(r"(?:[ \t]*[^ \t]+){" + str(numbers["f"]) + "}", line)
            line = line[m.end():] if m else ""
        line = line[numbers.get("s", 0):]
        if "w" in numbers:
            line = line[:numbers["w"]]
        return line.lower() if o.has("i") else line

    out = []
    n = 0
    while n < len(lines):
        k = n + 1
        while k < len(lines) and key(lines[k]) == key(lines[n]):
            k += 1
        count = k - n
        if not ((o.has("d") and count == 1) or (o.has("u") and count > 1)):
            out.append((f"{count:>7} " if o.has("c") else "") + lines[n] + end)
        n = k
    text = "".join(out)
    if len(o.operands) == 2:
        try:
            yield from write_path(io, o.operands[1], encode(text))
        except FileError as exc:
            return (yield from fail(io, f"uniq: can't open '{o.operands[1]}': {exc.reason}"))
        return 0
    yield from io.write(text)
    return 0


SORT_COMMANDS: dict[str, Command] = {"sort": sort, "uniq": uniq}
