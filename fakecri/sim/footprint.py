"""How much memory a container's program holds at its start when its stats are not scripted.

A memory limit caps what a program holds; it does not fill it. What a container holds is its
program's: a busybox shell running `sleep` holds well under a MiB (memory.current of such a
container under runc reads a few hundred KiB), a Go server like agnhost or an nginx some MiB,
an application whose image fakecri cannot see into anything from a few MiB to tens of MiB.

`start_bytes(c)` is the working set a container starts with (sim/stats.py grows it by half over
ten minutes and keeps it under the limit): its program is the first word of the command it runs,
its config's command and args, or, when it gives none, its image's default (the images fakecri
knows by repository, sim/image_content.py):

| program | working set at the start |
|---|---|
| busybox's shell and applets (`sh`, `sleep`, `cat`, `top`, `dd`, `nc`, `wget`...), `pause` | 192 to 832 KiB |
| the servers and clients fakecri runs (`agnhost`, `nginx`, `httpd`, `curl`...) | 3 to 15 MiB |
| any other | 4 to 64 MiB |
"""
from __future__ import annotations

import hashlib
import posixpath
from functools import lru_cache

from fakecri.engine.errors import InvalidArgument
from fakecri.engine.images import normalize
from fakecri.engine.records import Container
from fakecri.sim.applets import APPLET_COMMANDS
from fakecri.sim.image_content import KNOWN, ImageContent
from fakecri.sim.programs import COMMANDS as PROGRAM_COMMANDS
from fakecri.sim.shell import COMMANDS as SHELL_COMMANDS
from fakecri.sim.userland import USERLAND_COMMANDS

_KIB = 1024
_MIB = 1024 * _KIB
# busybox has these applets too; the pause program is smaller still
_SMALL_PROGRAMS = frozenset({"pause", "nc", "wget", "ip"})
BUSYBOX_PROGRAMS = frozenset({*SHELL_COMMANDS, *APPLET_COMMANDS, *USERLAND_COMMANDS, *_SMALL_PROGRAMS})
SERVER_PROGRAMS = frozenset(PROGRAM_COMMANDS) - BUSYBOX_PROGRAMS | {"nginx"}

# (least, span): the start figure is least + a per-container share of span
BUSYBOX = (192 * _KIB, 640 * _KIB)
SERVER = (3 * _MIB, 12 * _MIB)
OTHER = (4 * _MIB, 60 * _MIB)


def program_of(c: Container) -> str:
    """The base name of what the container runs ("" when neither it nor its image says)."""
    argv = c.command + c.args
    if not c.command:  # Kubernetes: no command runs the image's entrypoint (with these args, or its Cmd)
        content = _known(c.image)
        if content is not None:
            command, args = content.argv((), c.args)
            argv = command + args
    return posixpath.basename(argv[0]) if argv else ""


@lru_cache(maxsize=1024)
def _known(image: str) -> ImageContent | None:
    try:
        return KNOWN.get(normalize(image).name)
    except InvalidArgument:
        return None


def range_of(program: str) -> tuple[int, int]:
    """(least, span) of the working set a program starts with."""
    if program in BUSYBOX_PROGRAMS:
        return BUSYBOX
    if program in SERVER_PROGRAMS:
        return SERVER
    return OTHER


def start_bytes(c: Container) -> int:
    """The working set container `c` starts with: its program's, a fixed share per container."""
    least, span = range_of(program_of(c))
    seed = int.from_bytes(hashlib.sha256(f"mem\0{c.id}".encode()).digest()[:8], "big")
    return least + seed % span
