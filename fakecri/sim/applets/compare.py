"""`cmp` and `diff` as busybox 1.35's, for regular files and standard input.

cmp: `-s` (silent), `-l` (every differing byte: offset, the two bytes in octal); exit 0 same,
1 different, 2 trouble. diff: the unified form (busybox's default, `-u` accepted) with three lines
of context, `-q`; exit 0 same, 1 different, 2 trouble. Other options, directories and a file
without a final newline are refused as not modelled.
"""
from __future__ import annotations

import difflib
from collections.abc import Generator

from fakecri.sim.applets.common import decode, lines_of, not_modelled, options, read_path
from fakecri.sim.shell import Command, Io, Process, Reply, Step
from fakecri.sim.userland.world import FileError


def _read(io: Io, applet: str, path: str, style: str) -> Generator[Step, Reply, bytes | None]:
    try:
        return (yield from read_path(io, path))
    except FileError as exc:
        where = f"can't stat '{path}'" if style == "stat" else path
        yield from io.error(f"{applet}: {where}: {exc.reason}\n")
        return None


def cmp(args: list[str], io: Io) -> Process:
    o = yield from options(io, "cmp", args, "ls", "[-ls] FILE1 [FILE2]", code=2)
    if isinstance(o, int):
        return o
    if not 1 <= len(o.operands) <= 2:
        return (yield from not_modelled(io, "cmp", "offsets (SKIP operands)" if o.operands else "no operand", 2))
    names = [*o.operands, "-"][:2]
    a = yield from _read(io, "cmp", names[0], "plain")
    if a is None:
        return 2
    b = yield from _read(io, "cmp", names[1], "plain")
    if b is None:
        return 2
    status = 0
    line = 1
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            if o.has("s"):
                return 1
            if not o.has("l"):
                yield from io.write(f"{names[0]} {names[1]} differ: char {i + 1}, line {line}\n")
                return 1
            yield from io.write(f"{i + 1} {x:o} {y:o}\n")
            status = 1
        elif x == 0x0A:
            line += 1
    if len(a) != len(b):
        if not o.has("s"):
            yield from io.error(f"cmp: EOF on {names[0] if len(a) < len(b) else names[1]}\n")
        return 1
    return status


def diff(args: list[str], io: Io) -> Process:
    o = yield from options(io, "diff", args, "uq", "[-uq] FILE1 FILE2", code=2)
    if isinstance(o, int):
        return o
    if len(o.operands) != 2:
        return (yield from not_modelled(io, "diff", "other than two FILE operands", 2))
    left, right = o.operands
    if io.ctx.userland is not None and any(p != "-" and io.ctx.userland().is_dir(p) for p in (left, right)):
        return (yield from not_modelled(io, "diff", "directories", 2))
    a = yield from _read(io, "diff", left, "stat")
    if a is None:
        return 2
    b = yield from _read(io, "diff", right, "stat")
    if b is None:
        return 2
    if a == b:
        return 0
    if o.has("q"):
        yield from io.write(f"Files {left} and {right} differ\n")
        return 1
    if any(data and not data.endswith(b"\n") for data in (a, b)):
        return (yield from not_modelled(io, "diff", "a file without a final newline", 2))
    old = [line + "\n" for line in lines_of(decode(a))]
    new = [line + "\n" for line in lines_of(decode(b))]
    text = "".join(difflib.unified_diff(old, new, fromfile=left, tofile=right, lineterm="\n"))
    yield from io.write(text)
    return 1


COMPARE_COMMANDS: dict[str, Command] = {"cmp": cmp, "diff": diff}
