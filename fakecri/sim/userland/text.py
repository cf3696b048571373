"""Text tools a container's shell pipes into: `awk` (a small part of it).

awk runs programs of the form `[PATTERN] [{ print EXPR, ... }]`, a PATTERN being `/regex/`
or `NR==N`, an EXPR `$N`, `$NF`, `$0`, `NR`, `NF` or a "string"; `-F SEP` splits fields
(else runs of blanks do). Other programs say they are not modelled (exit 2).
"""
from __future__ import annotations

import re
from collections.abc import Generator

from fakecri.sim.shell import Io, Process, Step
from fakecri.sim.userland.files import looking, split_flags
from fakecri.sim.userland.world import FileError

_PROGRAM = re.compile(r"\s*(/(?:[^/\\]|\\.)*/|NR\s*==\s*\d+)?\s*(?:\{\s*print\b([^}]*)\}\s*)?")
_ITEM = re.compile(r'\s*(\$\d+|\$NF|NR|NF|"[^"]*")\s*(?:,|$)')


def _text(io: Io, paths: list[str], tool: str) -> Generator[Step, bytes | None, tuple[str, int]]:
    """(the text of the files in `paths`, or of standard input when there are none; 1 when a
    file could not be read, which was reported)."""
    if not paths:
        chunks = []
        while (chunk := (yield from io.stdin.read())) is not None:
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", "surrogateescape"), 0
    world = yield from looking(io)
    parts, status = [], 0
    for path in paths:
        try:
            parts.append(world.read(path).decode("utf-8", "surrogateescape"))
        except FileError as exc:
            yield from io.error(f"{tool}: {path}: {exc.reason}\n")
            status = 1
    return "".join(parts), status


def _items(text: str) -> list[str] | None:
    items: list[str] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _ITEM.match(text, pos)
        if m is None or m.end() == pos:
            return None
        items.append(m.group(1))
        pos = m.end()
    return items


def _awk(args: list[str], io: Io) -> Process:
    _, values, rest = split_flags(args, "F")
    if not rest:
        yield from io.error("awk: no program\n")
        return 2
    program, paths = rest[0], rest[1:]
    m = _PROGRAM.fullmatch(program)
    items = _items(m.group(2)) if m is not None and m.group(2) is not None else []
    if m is None or items is None or (m.group(1) is None and m.group(2) is None):
        yield from io.error(f"awk: the program {program!r} is not modelled\n")
        return 2
    pattern = m.group(1) or ""
    sep = values.get("F")
    try:
        matcher = re.compile(pattern[1:-1]) if pattern.startswith("/") else None
        splitter = re.compile(sep) if sep and len(sep) > 1 else None
    except re.error as exc:
        yield from io.error(f"awk: bad regular expression: {exc}\n")
        return 2
    text, status = yield from _text(io, paths, "awk")
    out = []
    for nr, line in enumerate(text.splitlines(), 1):
        if matcher is not None and not matcher.search(line):
            continue
        if pattern.startswith("NR") and nr != int(pattern.split("==")[1]):
            continue
        fields = splitter.split(line) if splitter else line.split(sep) if sep else line.split()

        def value(item: str, fields: list[str] = fields, nr: int = nr, line: str = line) -> str:
            if item == "NR":
                return str(nr)
            if item == "NF":
                return str(len(fields))
            if item.startswith('"'):
                return item[1:-1]
            n = len(fields) if item == "$NF" else int(item[1:])
            return line if n == 0 else (fields[n - 1] if n <= len(fields) else "")
        out.append(" ".join(value(i) for i in items) if items else line)
    yield from io.write("".join(line + "\n" for line in out))
    return status


TEXT_COMMANDS = {"awk": _awk}  # (wc and head are in sim/applets)
