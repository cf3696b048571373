"""Text tools a container's shell pipes into: `wc`, `head` (awk is fakecri.sim.applets.awk)."""
from __future__ import annotations

import re
from collections.abc import Generator

from fakecri.sim.shell import Io, Process, Step
from fakecri.sim.userland.files import looking, split_flags
from fakecri.sim.userland.world import FileError


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


def _wc(args: list[str], io: Io) -> Process:
    flags, _, paths = split_flags(args)
    text, status = yield from _text(io, paths, "wc")
    counts = {"l": text.count("\n"), "w": len(text.split()), "c": len(text.encode("utf-8", "surrogateescape"))}
    shown = [k for k in "lwc" if k in flags] or ["l", "w", "c"]
    if len(shown) == 1:
        numbers = str(counts[shown[0]])
    else:
        numbers = " ".join(f"{counts[k]:>9}" for k in shown)
    yield from io.write(numbers + (f" {paths[0]}" if len(paths) == 1 else "") + "\n")
    return status


def _head(args: list[str], io: Io) -> Process:
    args = [f"-n{a[1:]}" if re.fullmatch(r"-\d+", a) else a for a in args]
    _, values, paths = split_flags(args, "n")
    try:
        n = int(values.get("n", "10"))
    except ValueError:
        yield from io.error(f"head: invalid number '{values['n']}'\n")
        return 1
    text, status = yield from _text(io, paths, "head")
    yield from io.write("".join(line + "\n" for line in text.splitlines()[:n]))
    return status


TEXT_COMMANDS = {"wc": _wc, "head": _head}
