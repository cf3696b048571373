"""`wc`, `head`, `tail`, `tee` as busybox 1.35's.

wc: `-l -w -c -m -L`, a total line for several files. head: `-n [-]N`, `-c [-]N`, `-N`, `-q -v`.
tail: `-n [+]N`, `-c [+]N`, `-N`, `+N`, `-q -v`, and `-f`/`-F`: what is there is printed, then it
waits until stopped (nothing in the simulation appends to a file while it waits, so no more
comes). tee: `-a`, `-i`, several files (standard output too).
"""
from __future__ import annotations

import re
from collections.abc import Generator

from fakecri.sim.applets.common import decode, fail, options, read_inputs, read_path, write_path
from fakecri.sim.shell import Command, Io, Process, Reply, Sleep, Step
from fakecri.sim.userland.world import FileError


def _counts(data: bytes) -> dict[str, int]:
    width = 0
    longest = 0
    for b in data:
        if b == 10:
            longest, width = max(longest, width), 0
        elif b == 9:
            width += 8 - width % 8
        elif 32 <= b < 127:
            width += 1
    return {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data),
            "m": len(data),  # (characters are bytes in the C locale a container's busybox runs in)
            "L": max(longest, width)}


def wc(args: list[str], io: Io) -> Process:
    o = yield from options(io, "wc", args, "lwcmL", "[-cmlwL] [FILE]...")
    if isinstance(o, int):
        return o
    shown = [ch for ch in "lwcmL" if o.has(ch)] or ["l", "w", "c"]
    found, status = yield from read_inputs(io, "wc", o.operands)
    total = dict.fromkeys(shown, 0)
    lines = []
    bare = len(shown) == 1 and len(o.operands) <= 1

    def row(counts: dict[str, int], name: str) -> str:
        figures = " ".join(str(counts[k]) if bare else f"{counts[k]:>9}" for k in shown)
        return figures + (f" {name}" if name else "") + "\n"

    for path, data in found:
        counts = _counts(data)
        for k in shown:
            total[k] = max(total[k], counts[k]) if k == "L" else total[k] + counts[k]
        lines.append(row(counts, path if o.operands else ""))
    if len(o.operands) > 1:
        lines.append(row(total, "total"))
    yield from io.write("".join(lines))
    return status


def _amount(applet: str, o_value: str | None, default: str) -> tuple[str, int] | str:
    """(the sign given, "", "-" or "+"; the number) of -n/-c; or the bad value."""
    text = default if o_value is None else o_value
    m = re.fullmatch(r"([-+]?)(\d+)([bkmKMG]?)", text)
    if m is None:
        return text
    scale = {"": 1, "b": 512, "k": 1024, "K": 1024, "m": 1 << 20, "M": 1 << 20, "G": 1 << 30}[m.group(3)]
    return m.group(1), int(m.group(2)) * scale


def _numeric_first(args: list[str]) -> list[str]:
    """`-N` (and for tail `+N`) as `-n N`."""
    out = []
    for n, a in enumerate(args):
        if n == 0 and re.fullmatch(r"[-+]\d+", a):
            out += ["-n", a[1:] if a[0] == "-" else a]
        else:
            out.append(a)
    return out


def _headers(paths: list[str], opts_q: bool, opts_v: bool) -> bool:
    return opts_v or (len(paths) > 1 and not opts_q)


def _first(io: Io, n: int, by_bytes: bool) -> Generator[Step, Reply, bytes]:
    """The first `n` lines (or bytes) of standard input, read no further than they go."""
    got = bytearray()
    count = 0
    while count < n:
        if by_bytes:
            chunk = yield from io.stdin.read()
            if chunk is None:
                break
            got += chunk
            count = len(got)
        else:
            line = yield from io.stdin.readline()
            if line is None:
                break
            got += line
            count += 1
    return bytes(got[:n]) if by_bytes else bytes(got)


def head(args: list[str], io: Io) -> Process:
    o = yield from options(io, "head", _numeric_first(args), "n:c:qv", "[OPTIONS] [FILE]...")
    if isinstance(o, int):
        return o
    by_bytes = o.has("c") and (not o.has("n") or [c for c, _ in o.given if c in "nc"][-1] == "c")
    amount = _amount("head", o.last("c") if by_bytes else o.last("n"), "10")
    if isinstance(amount, str) or amount[0] == "+":
        return (yield from fail(io, f"head: invalid number '{amount if isinstance(amount, str) else o.last('n')}'"))
    sign, n = amount
    paths = o.operands or ["-"]
    headers = _headers(paths, o.has("q"), o.has("v"))
    status = 0
    for k, path in enumerate(paths):
        if path == "-" and sign == "":  # standard input: read only as far as needed (`yes | head` ends)
            data = yield from _first(io, n, by_bytes)
            if headers:
                yield from io.write(("\n" if k else "") + "==> standard input <==\n")
            yield from io.write(decode(data))
            continue
        try:
            data = yield from read_path(io, path)
        except FileError as exc:
            yield from io.error(f"head: {path}: {exc.reason}\n")
            status = 1
            continue
        if headers:
            yield from io.write(("\n" if k else "") + f"==> {'standard input' if path == '-' else path} <==\n")
        if by_bytes:
            part = data[:len(data) - n] if sign == "-" else data[:n]
        else:
            lines = data.splitlines(keepends=True)
            part = b"".join(lines[:len(lines) - n] if sign == "-" else lines[:n])
        yield from io.write(decode(part))
    return status


def tail(args: list[str], io: Io) -> Process:
    o = yield from options(io, "tail", _numeric_first(args), "n:c:qvfFs:", "[OPTIONS] [FILE]...")
    if isinstance(o, int):
        return o
    by_bytes = o.has("c") and (not o.has("n") or [c for c, _ in o.given if c in "nc"][-1] == "c")
    amount = _amount("tail", o.last("c") if by_bytes else o.last("n"), "10")
    if isinstance(amount, str):
        return (yield from fail(io, f"tail: invalid number '{amount}'"))
    sign, n = amount
    opened: list[tuple[str, bytes]] = []
    status = 0
    for path in o.operands or ["-"]:  # (all are opened first: the headers are for those that opened)
        try:
            opened.append((path, (yield from read_path(io, path))))
        except FileError as exc:
            yield from io.error(f"tail: can't open '{path}': {exc.reason}\n")
            status = 1
    headers = _headers([p for p, _ in opened], o.has("q"), o.has("v"))
    shown = 0
    for path, data in opened:
        if headers:
            yield from io.write(("\n" if shown else "") + f"==> {'standard input' if path == '-' else path} <==\n")
        shown += 1
        if by_bytes:
            part = data[max(n - 1, 0):] if sign == "+" else (data[-n:] if n else b"")
        else:
            lines = data.splitlines(keepends=True)
            part = b"".join(lines[max(n - 1, 0):] if sign == "+" else (lines[-n:] if n else []))
        yield from io.write(decode(part))
    if not shown and o.operands:
        return (yield from fail(io, "tail: no files"))
    if o.has("f") or o.has("F"):
        yield Sleep(None)  # following: nothing more is written to the file while it waits, until stopped
    return status


def tee(args: list[str], io: Io) -> Process:
    o = yield from options(io, "tee", args, "ai", "[-ai] [FILE]...")
    if isinstance(o, int):
        return o
    found, _ = yield from read_inputs(io, "tee", [])
    data = found[0][1] if found else b""
    status = 0
    for path in o.operands:
        try:
            yield from write_path(io, path, data, append=o.has("a"))
        except FileError as exc:
            yield from io.error(f"tee: {path}: {exc.reason}\n")
            status = 1
    yield from io.write(decode(data))
    return status


COUNT_COMMANDS: dict[str, Command] = {"wc": wc, "head": head, "tail": tail, "tee": tee}
