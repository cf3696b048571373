"""Line filters as busybox 1.35's: `cut` (-b -c -f -d -s -O -D -n; bytes, as busybox counts
them), `tr` (-c -d -s; ranges, `[:class:]`, `[=c=]`, octal and C escapes; no `[c*n]`), `rev`,
`tac`, `paste` (-d -s), `fold` (-w -s -b), `nl` (-b a|t|n -w -s -v -i), `cat` (-n -b -v -t -e -A). Each reads its files
(or standard input) and writes the result once.
"""
from __future__ import annotations

import re

from fakecri.sim.applets.common import (
    BadUsage,
    decode,
    encode,
    fail,
    getopt,
    lines_of,
    not_modelled,
    options,
    read_inputs,
    usage_error,
)
from fakecri.sim.shell import Command, Io, Process


def _bytes(text: str) -> str:
    """One character per byte (busybox's cut, tr, fold count bytes)."""
    return encode(text).decode("latin-1")


def _text(latin: str) -> str:
    return decode(latin.encode("latin-1"))


def _ranges(spec: str) -> list[tuple[int, int]] | str:
    """A cut LIST as (first, last) ranges, 1-based and inclusive; or busybox's complaint."""
    out = []
    for part in spec.split(","):
        m = re.fullmatch(r"(\d*)(-?)(\d*)", part)
        if m is None or part in ("", "-"):
            bad = next((p for p in re.split(r"[-,]", spec) if p and not p.isdigit()), part)
            return f"invalid number '{bad}'" if bad else "invalid byte or field list"
        a, dash, b = m.groups()
        lo = max(int(a), 1) if a else 1
        hi = (int(b) if b else 1 << 30) if dash else lo
        if hi < lo:
            return "1<2"
        out.append((lo, hi))
    return out


def _pick(items: list[str], ranges: list[tuple[int, int]], keep_order: bool) -> list[str]:
    if keep_order:
        return [items[i - 1] for lo, hi in ranges for i in range(lo, min(hi, len(items)) + 1)]
    wanted = sorted({i for lo, hi in ranges for i in range(lo, min(hi, len(items)) + 1)})
    return [items[i - 1] for i in wanted]


def _fields(line: str, ranges: list[tuple[int, int]], delim: str, regex: re.Pattern[str] | None, odelim: str,
            suppress: bool, keep_order: bool) -> str | None:
    """busybox's cut -f/-F walk of a line (its loop over the sorted ranges, ported as it is): a
    range past the line's last field still adds the output delimiter before its (empty) text,
    as busybox does (`echo 'a b' | cut -d' ' -f1,5` is `a ` and a newline). None: -s and no
    delimiter."""
    lists = [(lo - 1, hi - 1) for lo, hi in (ranges if keep_order else sorted(ranges))]
    n = len(line)
    uu = start = end = out = dcount = cl = 0
    pieces: list[str] = []
    while True:
        if end == n or dcount > lists[cl][1]:
            cl += 1
            if cl >= len(lists):
                break
            if keep_order:
                start = dcount = uu = 0
            end = 0
        if uu == n:
            if not cl and not dcount and regex is None:
                if suppress:
                    return None
            elif dcount < lists[cl][0]:
                start = n
            end = n
        else:
            if regex is not None:
                m = regex.search(line, uu)
                if m is None or m.end() == m.start():
                    uu = n
                    continue
                end, uu = m.start(), m.end()
            else:
                end, uu = uu, uu + 1
                if line[end] != delim:
                    continue
            counted, dcount = dcount, dcount + 1
            if counted < lists[cl][0]:
                start = uu
                continue
        if end != start or regex is None:
            pieces.append((odelim if out else "") + line[start:end])
            out += 1
        start = uu
        if not dcount:
            break
    return "".join(pieces)


def cut(args: list[str], io: Io) -> Process:
    synopsis = "[OPTIONS] [FILE]..."
    try:
        o = getopt("cut", args, "b:c:f:F:d:O:sDn")
    except BadUsage as exc:
        return (yield from usage_error(io, "cut", synopsis, exc))
    kinds = [ch for ch in "bcfF" if o.has(ch)]
    if not kinds:
        return (yield from fail(io, "cut: expected a list of bytes, characters, or fields"))
    if len(kinds) > 1:
        return (yield from usage_error(io, "cut", synopsis, BadUsage("")))
    kind = kinds[0]
    if o.has("d") and kind in "bc":
        return (yield from fail(io, "cut: a delimiter may be specified only when operating on fields"))
    ranges = _ranges(o.last(kind) or "")
    if isinstance(ranges, str):
        return (yield from fail(io, f"cut: {ranges}"))
    found, status = yield from read_inputs(io, "cut", o.operands)
    delim = _bytes(o.last("d") or ("" if kind == "F" else "\t"))
    out_delim = _bytes(o.last("O") or "") if o.has("O") else (" " if kind == "F" and not o.has("d") else delim[:1])
    regex = re.compile(delim or r"\s+") if kind == "F" else None
    out = []
    for _, data in found:
        for line in lines_of(_bytes(decode(data))):
            if kind in "bc":
                out.append("".join(_pick(list(line), ranges, o.has("D"))) + "\n")
                continue
            picked = _fields(line, ranges, delim[:1], regex, out_delim, o.has("s"), o.has("D"))
            if picked is not None:
                out.append(picked + "\n")
    yield from io.write(_text("".join(out)))
    return status


_CLASSES = {
    "alpha": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "digit": "0123456789",
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "lower": "abcdefghijklmnopqrstuvwxyz", "space": " \t\n\r\f\v",
    "blank": " \t", "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "xdigit": "0123456789ABCDEFabcdef",
    "cntrl": "".join(map(chr, range(32))) + "\x7f", "print": "".join(map(chr, range(32, 127))),
    "graph": "".join(map(chr, range(33, 127))),
}
_CLASSES["alnum"] = _CLASSES["digit"] + _CLASSES["upper"] + _CLASSES["lower"]
_ESC = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def _set(spec: str) -> str:
    """A tr SET expanded to its characters, in order."""
    chars: list[str] = []
    i = 0
    while i < len(spec):
        m = re.match(r"\[:(\w+):\]", spec[i:])
        if m and m.group(1) in _CLASSES:
            chars += _CLASSES[m.group(1)]
            i += m.end()
            continue
        m = re.match(r"\[=(.)=\]", spec[i:], re.S)
        if m:
            chars.append(m.group(1))
            i += m.end()
            continue
        c, i = _char(spec, i)
        if i < len(spec) - 1 and spec[i] == "-":
            end, j = _char(spec, i + 1)
            chars += [chr(k) for k in range(ord(c), ord(end) + 1)]
            i = j
            continue
        chars.append(c)
    return "".join(chars)


def _char(spec: str, i: int) -> tuple[str, int]:
    if spec[i] == "\\" and i + 1 < len(spec):
        m = re.match(r"[0-7]{1,3}", spec[i + 1:])
        if m:
            return chr(int(m.group(0), 8) & 0xFF), i + 1 + m.end()
        return _ESC.get(spec[i + 1], spec[i + 1]), i + 2
    return spec[i], i + 1


def tr(args: list[str], io: Io) -> Process:
    synopsis = "[-cds] STRING1 [STRING2]"
    try:
        o = getopt("tr", args, "cdsC")
    except BadUsage as exc:
        return (yield from usage_error(io, "tr", synopsis, exc))
    if not o.operands or len(o.operands) > 2:
        return (yield from usage_error(io, "tr", synopsis, BadUsage("")))
    set1 = _set(_bytes(o.operands[0]))
    set2 = _set(_bytes(o.operands[1])) if len(o.operands) > 1 else ""
    if o.has("c") or o.has("C"):
        set1 = "".join(chr(k) for k in range(256) if chr(k) not in set1)
    found, _ = yield from read_inputs(io, "tr", [])
    data = _bytes(decode(found[0][1] if found else b""))
    delete, squeeze = o.has("d"), o.has("s")
    if delete:
        data = data.translate({ord(c): None for c in set1})
        squeeze_set = set(set2)
    elif set2:
        table: dict[int, str] = {}
        for k, c in enumerate(set1):
            table[ord(c)] = set2[min(k, len(set2) - 1)]
        data = data.translate(table)
        squeeze_set = set(set2)
    else:
        squeeze_set = set(set1)
    if squeeze:
        out: list[str] = []
        for c in data:
            if not (out and out[-1] == c and c in squeeze_set):
                out.append(c)
        data = "".join(out)
    yield from io.write(_text(data))
    return 0


def rev(args: list[str], io: Io) -> Process:
    o = yield from options(io, "rev", args, "", "[FILE]...")
    if isinstance(o, int):
        return o
    found, status = yield from read_inputs(io, "rev", o.operands)
    out = []
    for _, data in found:
        text = decode(data)
        for line in text.splitlines(keepends=True):
            body = line.rstrip("\n")
            out.append(body[::-1] + line[len(body):])
    yield from io.write("".join(out))
    return status


def tac(args: list[str], io: Io) -> Process:
    o = yield from options(io, "tac", args, "", "[FILE]...")
    if isinstance(o, int):
        return o
    found, status = yield from read_inputs(io, "tac", o.operands)
    for _, data in found:
        yield from io.write("".join(reversed(decode(data).splitlines(keepends=True))))
    return status


def paste(args: list[str], io: Io) -> Process:
    try:
        o = getopt("paste", args, "d:s")
    except BadUsage as exc:
        return (yield from usage_error(io, "paste", "[-d LIST] [-s] [FILE]...", exc))
    delims = [_char(d, 0)[0] for d in re.findall(r"\\.|.", o.last("d") or "\t", re.S)] or [""]
    paths = o.operands or ["-"]
    stdin_at = [n for n, p in enumerate(paths) if p == "-"]
    found, status = yield from read_inputs(io, "paste", [p for p in dict.fromkeys(paths)])
    by_path = {p: lines_of(decode(d)) for p, d in found}
    if status:
        return status
    if len(stdin_at) > 1:  # `paste - -`: the lines of standard input dealt out in turn
        lines = by_path["-"]
        by_path = {f"-{n}": lines[k::len(stdin_at)] for k, n in enumerate(stdin_at)}
        paths = [f"-{n}" if p == "-" else p for n, p in enumerate(paths)]
    out = []
    if o.has("s"):
        for p in paths:
            lines = by_path.get(p, [])
            if not lines:  # (an empty input adds no line, as busybox's paste -s has it)
                continue
            out.append("".join(line + (delims[k % len(delims)] if k < len(lines) - 1 else "")
                               for k, line in enumerate(lines)) + "\n")
    else:
        columns = [by_path.get(p, []) for p in paths]
        for row in range(max((len(c) for c in columns), default=0)):
            for k, col in enumerate(columns):
                if row < len(col):  # (a file that has ended adds nothing, not even its delimiter: busybox's way)
                    out.append(col[row] + (delims[k % len(delims)] if k < len(columns) - 1 else "\n"))
    yield from io.write("".join(out))
    return 0


def fold(args: list[str], io: Io) -> Process:
    try:
        o = getopt("fold", args, "bsw:")
    except BadUsage as exc:
        return (yield from usage_error(io, "fold", "[-bs] [-w WIDTH] [FILE]...", exc))
    width_s = o.last("w", "80") or "80"
    if not width_s.isdigit():
        return (yield from fail(io, f"fold: invalid number '{width_s}'"))
    if not 1 <= int(width_s) <= 10000:
        return (yield from fail(io, f"fold: number {width_s} is not in 1..10000 range"))
    width = int(width_s)
    found, status = yield from read_inputs(io, "fold", o.operands)
    out = []
    for _, data in found:
        for line in _bytes(decode(data)).splitlines(keepends=True):
            body, end = line.rstrip("\n"), "\n" if line.endswith("\n") else ""
            while len(body) > width:
                cut_at = width
                if o.has("s"):
                    space = body.rfind(" ", 0, width)
                    cut_at = space + 1 if space >= 0 else width
                out.append(body[:cut_at] + "\n")
                body = body[cut_at:]
            out.append(body + end)
    yield from io.write(_text("".join(out)))
    return status


def nl(args: list[str], io: Io) -> Process:
    try:
        o = getopt("nl", args, "pb:n:s:v:w:i:")
    except BadUsage as exc:
        return (yield from usage_error(io, "nl", "[OPTIONS] [FILE]...", exc))
    style = o.last("b", "t") or "t"
    if o.has("n"):
        return (yield from not_modelled(io, "nl", "-n"))
    if style not in ("a", "t", "n"):
        return (yield from not_modelled(io, "nl", f"-b {style}"))
    try:
        width, number, step = int(o.last("w", "6") or 6), int(o.last("v", "1") or 1), int(o.last("i", "1") or 1)
    except ValueError:
        return (yield from fail(io, "nl: invalid number"))
    sep = o.last("s", "\t") or ""
    found, status = yield from read_inputs(io, "nl", o.operands)
    out = []
    for _, data in found:
        for line in lines_of(decode(data)):
            if style == "a" or (style == "t" and line.strip()):
                out.append(f"{number:>{width}}{sep}{line}\n")
                number += step
            else:
                out.append(" " * (width + len(sep)) + line + "\n")
    yield from io.write("".join(out))
    return status


def _visible(data: bytes, tabs: bool, ends: bool) -> bytes:
    """cat -v (with -t: tabs too; -e: a `$` at each line's end)."""
    out = bytearray()
    for b in data:
        if b == 10:
            out += b"$\n" if ends else b"\n"
            continue
        if b == 9 and not tabs:
            out.append(9)
            continue
        prefix = b""
        if b >= 128:
            prefix, b = b"M-", b - 128
        if b < 32 or b == 127:
            out += prefix + b"^" + bytes([b ^ 0x40])
        else:
            out += prefix + bytes([b])
    return bytes(out)


def cat(args: list[str], io: Io) -> Process:
    """`cat [-nbvteA] [FILE]...` (`-` or no file: standard input, read where it comes)."""
    o = yield from options(io, "cat", args, "nbvteAu", "[-nbvteA] [FILE]...")
    if isinstance(o, int):
        return o
    if not o.given and all(p in ("-", "/dev/stdin") for p in o.operands):
        while (chunk := (yield from io.stdin.read())) is not None:  # as it comes (a terminal's cat echoes each line)
            yield from io.write(decode(chunk))
        return 0
    found, status = yield from read_inputs(io, "cat", o.operands, style="open")
    number = 0
    for _, data in found:
        if o.has("A") or o.has("v") or o.has("e") or o.has("t"):
            data = _visible(data, o.has("A") or o.has("t"), o.has("A") or o.has("e"))
        if o.has("n") or o.has("b"):
            lines = []
            for line in decode(data).splitlines(keepends=True):
                if o.has("b") and line == "\n":
                    lines.append(line)
                    continue
                number += 1
                lines.append(f"{number:>6}\t{line}" + ("" if line.endswith("\n") else "\n"))
            yield from io.write("".join(lines))
        else:
            yield from io.write(decode(data))
    return status


TEXT_COMMANDS: dict[str, Command] = {"cat": cat, "cut": cut, "tr": tr, "rev": rev, "tac": tac, "paste": paste,
                                     "fold": fold, "nl": nl}
