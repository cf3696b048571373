"""The device nodes and links runc puts in every container's /dev (its default devices, OCI's
`linux.devices` defaults): null, zero, full, random, urandom and tty as character devices (mode
0666, root's), and the links fd, stdin, stdout, stderr (into /proc/self/fd), core (/proc/kcore)
and ptmx (pts/ptmx).

What they give: null reads nothing and takes anything; zero and full read zero bytes, random and
urandom pseudo-random ones (a generator seeded per container, so a run repeats), in reads of
`CHUNK` bytes (a reader that wants more than that gets its end: the simulation holds no endless
file); zero, random and urandom take writes and drop them; full refuses them (`No space left on
device`). tty has no terminal behind it in a container: `No such device or address`.
"""
from __future__ import annotations

import random

from fakecri.sim.userland.fs import FileStat

CHUNK = 1 << 20
DEVICES = {"/dev/null": (1, 3), "/dev/zero": (1, 5), "/dev/full": (1, 7), "/dev/random": (1, 8),
           "/dev/urandom": (1, 9), "/dev/tty": (5, 0)}
LINKS = {"/dev/fd": "/proc/self/fd", "/dev/stdin": "/proc/self/fd/0", "/dev/stdout": "/proc/self/fd/1",
         "/dev/stderr": "/proc/self/fd/2", "/dev/core": "/proc/kcore", "/dev/ptmx": "pts/ptmx"}
NO_SPACE = "No space left on device"
NO_DEVICE = "No such device or address"


def device_stat(path: str) -> FileStat:
    major, minor = DEVICES[path]
    return FileStat("char", 0o666, 0, 0, rdev=(major << 8) | minor)


def device_read(path: str, seed: str) -> bytes:
    """What one read of the device at `path` gives (FileError reasons raised by the caller)."""
    if path == "/dev/null":
        return b""
    if path in ("/dev/zero", "/dev/full"):
        return bytes(CHUNK)
    if path == "/dev/tty":
        raise OSError(NO_DEVICE)
    return random.Random(seed).randbytes(CHUNK)


def device_write(path: str) -> str:
    """"" when the device at `path` takes a write, else the reason it refuses it."""
    return NO_SPACE if path == "/dev/full" else NO_DEVICE if path == "/dev/tty" else ""
