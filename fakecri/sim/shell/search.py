"""The search of PATH for a command that is no builtin, function or applet (a script the user put
in /usr/local/bin, a tool a pod's image ships), and ash's table of what it found (`hash`).

As ash: the search takes the first directory of PATH that holds a regular file of the name
(executable or not) and notes its index in the table; running it tries that directory and the
ones after it, so a file that may not be executed there is passed over for a later one, and
`Permission denied` (126) is the answer only when no later one runs. A `cd` marks every entry
(`hash` shows a `*`): the next use looks again along the relative directories; an assignment of
PATH (even to its value) empties the table (Shell.set). busybox's applets never enter the table
(its build runs them without looking at PATH), nor does a search along a PATH given to one
command (`PATH=/x cmd`).
"""
from __future__ import annotations

import posixpath

from fakecri.sim.shell.io import Io
from fakecri.sim.shell.state import Shell

TABLE_SIZE = 31  # ash's hash table: `hash` lists its entries bucket by bucket


def directories(path: str | None) -> list[str]:
    return [] if path is None else path.split(":")


def joined(directory: str, name: str) -> str:
    """A PATH entry and a name as ash joins them (an empty entry is the working directory)."""
    return f"{directory}/{name}" if directory else name


def _absolute(full: str, cwd: str) -> str:
    return posixpath.normpath(posixpath.join(cwd or "/", full))


def kind(full: str, io: Io, cwd: str) -> str:
    """What stat(2) finds at `full`: "file", "dir", another kind, or "" when nothing is there."""
    if io.ctx.userland is None:
        return ""
    try:
        return str(io.ctx.userland().stat(_absolute(full, cwd)).kind)
    except Exception:  # the userland's FileError: nothing there, or a directory on the way is not one
        return ""


def find(name: str, io: Io, cwd: str, path: str | None, sh: Shell | None) -> int | None:
    """The index in `path` of the directory to run `name` from, None when none holds it; `sh`: the
    shell whose table the search reads and notes into (None: a PATH of one command's own)."""
    dirs = directories(path)
    prev = -1
    if sh is not None and name in sh.hashed:
        index, stale = sh.hashed[name]
        if not stale:
            return index
        prev = index
    for i, directory in enumerate(dirs):
        full = joined(directory, name)
        if full.startswith("/") and i <= prev:  # (a cd changes nothing for an absolute directory)
            if i < prev:
                continue
            sh.hashed[name] = (i, False)  # type: ignore[union-attr]
            return i
        if kind(full, io, cwd) != "file":
            continue
        if sh is not None:
            sh.hashed.pop(name, None)
            sh.hashed[name] = (i, False)
        return i
    if sh is not None:
        sh.hashed.pop(name, None)
    return None


def runnable(name: str, start: int, io: Io, cwd: str, path: str | None) -> tuple[str | None, bool]:
    """The file to run for `name` from directory `start` on: (its path, or None, and whether one was
    there that may not be executed: `Permission denied` rather than `not found`)."""
    denied = False
    if io.ctx.userland is None:
        return None, False
    world = io.ctx.userland()
    for directory in directories(path)[start:]:
        full = joined(directory, name)
        what = kind(full, io, cwd)
        if not what:
            continue
        if what != "file" or not world.may(_absolute(full, cwd), 1):
            denied = True
            continue
        return full, denied
    return None, denied


def _bucket(name: str) -> int:
    data = name.encode("utf-8", "surrogateescape")
    value = (data[0] << 4) if data else 0
    value += sum(data)
    return (value & 0x7FFF) % TABLE_SIZE


def listing(sh: Shell) -> str:
    """`hash` without arguments: each entry's path, `*` after one a `cd` made stale."""
    dirs = directories(sh.get("PATH"))
    order = sorted(enumerate(sh.hashed.items()), key=lambda e: (_bucket(e[1][0]), e[0]))
    lines = []
    for _, (name, (index, stale)) in order:
        if index < len(dirs):
            lines.append(joined(dirs[index], name) + ("*" if stale else "") + "\n")
    return "".join(lines)
