"""Names and the machine, as busybox 1.35's: `basename NAME [SUFFIX]` (-a, -s SUFFIX), `dirname
NAME...`, `which NAME...` (through the container's PATH and files; a program
the simulation knows whose file is not modelled is where busybox installs it, /bin), `uname`
(-a -s -n -r -v -m -o -p -i).

uname describes the node: its release and version are those /proc/version shows inside (the
host's, where the node reads the host's /proc), else fixed here (NODE_KERNEL); the machine is
x86_64 and the node name is the container's hostname (its UTS namespace's).
"""
from __future__ import annotations

import posixpath
import re

from fakecri.sim.applets.common import BadUsage, decode, options, usage_error
from fakecri.sim.shell import COMMANDS, Command, Io, Process
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.fs import X
from fakecri.sim.userland.world import FileError

NODE_KERNEL = ("Linux", "6.1.0-fakecri", "#1 SMP PREEMPT_DYNAMIC fakecri", "x86_64", "GNU/Linux")
_BASENAME = "FILE [SUFFIX] | -a FILE... | -s SUFFIX FILE..."


def _base(name: str, suffix: str) -> str:
    stripped = name.rstrip("/")
    if not stripped:
        return "/" if name else ""
    base = stripped.rsplit("/", 1)[-1]
    return base[:-len(suffix)] if suffix and base.endswith(suffix) and base != suffix else base


def basename(args: list[str], io: Io) -> Process:
    o = yield from options(io, "basename", args, "as:", _BASENAME, permute=False)
    if isinstance(o, int):
        return o
    many = o.has("a") or o.has("s")
    names = o.operands
    if not names or (not many and len(names) > 2):
        return (yield from usage_error(io, "basename", _BASENAME, BadUsage("")))
    suffix = o.last("s", "") or ""
    if not many:
        names, suffix = names[:1], (names[1] if len(names) > 1 else "")
    yield from io.write("".join(_base(n, suffix) + "\n" for n in names))
    return 0


def _dir(path: str) -> str:
    """glibc's dirname(3), which busybox calls: trailing slashes and the last name go, and then
    the slashes before it; a path of slashes alone is "/", except that exactly two leading ones
    stay "//" (POSIX leaves them to the system)."""
    last = path.rfind("/")
    if last > 0 and last == len(path) - 1:  # a trailing slash: the one before the last name
        run = last
        while run > 0 and path[run - 1] == "/":
            run -= 1
        if run > 0:
            last = path.rfind("/", 0, run)
    if last < 0:
        return "."
    run = last
    while run > 0 and path[run - 1] == "/":
        run -= 1
    if run == 0:
        return path[:2] if last == 1 else "/"
    return path[:run]


def dirname(args: list[str], io: Io) -> Process:
    o = yield from options(io, "dirname", args, "", "FILENAME")
    if isinstance(o, int):
        return o
    if len(o.operands) != 1:
        return (yield from usage_error(io, "dirname", "FILENAME", BadUsage("")))
    yield from io.write(_dir(o.operands[0]) + "\n")
    return 0


def which(args: list[str], io: Io) -> Process:
    o = yield from options(io, "which", args, "a", "[-a] COMMAND...")
    if isinstance(o, int):
        return o
    if not o.operands:
        return (yield from usage_error(io, "which", "[-a] COMMAND...", BadUsage("")))
    world = yield from looking(io)
    path_dirs = world.env().get("PATH", "").split(":")
    status = 0
    for name in o.operands:
        places = [name] if "/" in name else [posixpath.join(d or ".", name) for d in path_dirs]
        found = [p for p in places if world.exists(p) and not world.is_dir(p) and world.may(p, X)]
        if not found and "/" not in name and (name in io.ctx.commands or name in COMMANDS):
            found = [f"/bin/{name}"]  # a program the image has but whose file is not modelled: busybox's place
        if not found:
            status = 1
            continue
        yield from io.write("".join(p + "\n" for p in (found if o.has("a") else found[:1])))
    return status


def uname(args: list[str], io: Io) -> Process:
    o = yield from options(io, "uname", args, "asnrvmopi", "[-snrvmoai]")
    if isinstance(o, int):
        return o
    sysname, release, version, machine, osname = NODE_KERNEL
    node = "localhost"
    if io.ctx.userland is not None:
        world = yield from looking(io)
        node = world.spec.hostname
        try:  # the node's kernel, as /proc/version inside says (the host's, where the node reads it)
            m = re.match(r"Linux version (\S+) .*?(#\d+[^\n]*)", decode(world.read("/proc/version")))
        except FileError:
            m = None
        if m is not None:
            release, version = m.group(1), m.group(2).strip()
    fields = {"s": sysname, "n": node, "r": release, "v": version, "m": machine, "p": "unknown", "i": "unknown",
              "o": osname}
    if o.has("a"):
        shown = "snrvmo"
    else:
        shown = "".join(ch for ch in "snrvmpio" if o.has(ch)) or "s"
    yield from io.write(" ".join(fields[ch] for ch in shown) + "\n")
    return 0


SYSTEM_COMMANDS: dict[str, Command] = {"basename": basename, "dirname": dirname,
                                       "which": which, "uname": uname}
