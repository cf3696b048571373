"""`ls` as busybox 1.35 prints into a pipe (one name a line): `-a -A -1 -d -l -R -F -p -S -t
-r -h -n -L`, several operands (files first, then each directory under a `name:` header).

Names sort as bytes; `-S` by size and `-t` by modification time, largest and newest first
(ties by name); `-r` turns any order over. Another option busybox has (`-i -s -c -u -C -x`...)
says it is not modelled, exit 2.
"""
from __future__ import annotations

import posixpath

from fakecri.sim.shell import Io, Process
from fakecri.sim.usage import bad_command_line
from fakecri.sim.userland.files import looking, split_flags
from fakecri.sim.userland.formats import ls_line
from fakecri.sim.userland.fs import FileStat
from fakecri.sim.userland.world import FileError, Userland

_MODELLED = frozenset("aA1dlRFpStrhnL")
_KNOWN = frozenset("1AaCxdLHRFplinshrSXvctuwgkQT")  # busybox's (the others not modelled)
_LONGS = ("full-time", "color", "group-directories-first")


def _names(world: Userland, st: FileStat, numeric: bool) -> tuple[str, str]:
    if numeric:
        return str(st.uid), str(st.gid)
    return world.user_named(st.uid) or str(st.uid), world.group_named(st.gid) or str(st.gid)


def _suffix(st: FileStat, flags: set[str]) -> str:
    if "F" in flags:
        if st.kind == "dir":
            return "/"
        if st.kind == "link":
            return "@"
        if st.kind == "file" and st.mode & 0o111:
            return "*"
        return ""
    return "/" if "p" in flags and st.kind == "dir" else ""


class _Ls:
    def __init__(self, world: Userland, flags: set[str]) -> None:
        self.world = world
        self.flags = flags

    def stat(self, path: str, top: bool) -> FileStat:
        f = self.flags
        follow = "L" in f or (top and not ("l" in f or "d" in f or "F" in f))
        return self.world.stat(path, follow=follow)

    def order(self, items: list[tuple[str, FileStat]]) -> list[tuple[str, FileStat]]:
        items = sorted(items, key=lambda it: it[0].encode("utf-8", "surrogateescape"))
        if "S" in self.flags:
            items.sort(key=lambda it: -it[1].size)
        elif "t" in self.flags:
            items.sort(key=lambda it: -it[1].mtime_ns)
        return items[::-1] if "r" in self.flags else items

    def line(self, name: str, st: FileStat) -> str:
        shown = name + _suffix(st, self.flags)
        if "l" not in self.flags:
            return shown + "\n"
        return ls_line(st, shown, *_names(self.world, st, "n" in self.flags), human="h" in self.flags) + "\n"

    def entries(self, path: str) -> tuple[list[tuple[str, FileStat]], list[str]]:
        """(the entries of a directory as shown, with their stats; any errors)."""
        names = self.world.listdir(path)
        if "a" in self.flags:
            names = [".", ".."] + names
        elif "A" not in self.flags:
            names = [n for n in names if not n.startswith(".")]
        items, errors = [], []
        for name in names:
            try:
                items.append((name, self.world.stat(posixpath.join(path, name), follow="L" in self.flags)))
            except FileError as exc:
                errors.append(f"ls: {posixpath.join(path, name)}: {exc.reason}\n")
        return self.order(items), errors

    def listing(self, path: str, header: bool, out: list[str], err: list[str]) -> None:
        try:
            items, errors = self.entries(path)
        except FileError as exc:
            err.append(f"ls: can't open '{path}': {exc.reason}\n")
            return
        err += errors
        if header:
            out.append(f"{path}:\n")
        if "l" in self.flags:
            out.append(f"total {(1 + sum(st.blocks for _, st in items)) >> 1}\n")
        out += [self.line(name, st) for name, st in items]
        if "R" in self.flags:
            for name, st in items:
                if st.kind == "dir" and name not in (".", ".."):
                    out.append("\n")
                    self.listing(posixpath.join(path, name), True, out, err)


def ls(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    problem = bad_command_line("ls", args, "".join(_KNOWN), "w", _LONGS)
    if problem:
        yield from io.error(problem)
        return 1
    long = next((a for a in args if a.startswith("--") and a not in ("--", "--color=never", "--color=auto")), None)
    if long is not None:  # (no terminal here: --color=auto colours nothing)
        yield from io.error(f"ls: {long.split('=')[0]} is not modelled by fakecri\n")
        return 2
    flags, _, paths = split_flags([a for a in args if not a.startswith("--color=")])
    unknown = sorted(flags - _MODELLED)
    if unknown:
        yield from io.error(f"ls: -{unknown[0]} is not modelled by fakecri\n")
        return 2
    run = _Ls(world, flags)
    status = 0
    files: list[tuple[str, FileStat]] = []
    dirs: list[tuple[str, FileStat]] = []
    for path in paths or ["."]:
        try:
            st = run.stat(path, True)
        except FileError as exc:
            yield from io.error(f"ls: {path}: {exc.reason}\n")
            status = 1
            continue
        (dirs if st.kind == "dir" and "d" not in flags else files).append((path, st))
    out: list[str] = [run.line(path, st) for path, st in run.order(files)]
    err: list[str] = []
    several = len(files) + len(dirs) > 1 or "R" in flags
    for path, _ in run.order(dirs):
        if out:
            out.append("\n")
        run.listing(path, several, out, err)
    if err:
        yield from io.error("".join(err))
        status = 1
    yield from io.write("".join(out))
    return status

