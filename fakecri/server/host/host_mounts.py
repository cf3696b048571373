"""The host's mount table as this process sees it: for mount propagation, and for what file
system (type, source, options) holds a path.

A container whose mount is private (PROPAGATION_PRIVATE, the default) does not see mounts the
host makes under it after the container started. To tell those apart, the runtime notes the
host's mount points when such a container starts; a command in the container later compares
them with the table of the moment. The table is /proc/self/mountinfo, re-read only when the
kernel reports a change on it (poll), so noting it costs one system call while nothing moves.
"""
from __future__ import annotations

import os
import re
import select
import weakref
from dataclasses import dataclass
from typing import Any

_ESCAPE = re.compile(rb"\\([0-7]{3})")


def _unescape(field: bytes) -> str:
    return _ESCAPE.sub(lambda m: bytes([int(m.group(1), 8)]), field).decode("utf-8", "surrogateescape")


@dataclass(frozen=True, slots=True)
class MountEntry:
    """One line of the mount table: what is mounted, its type, and its options as /proc/mounts
    shows them (the mount's own, then the file system's: "rw,relatime,size=10240k")."""

    fs_type: str
    source: str = ""
    options: str = ""
    tags: str = ""  # the optional fields: its propagation ("shared:1", "master:2", none: private)


def _options(mount_opts: bytes, super_opts: bytes) -> str:
    own = [o for o in mount_opts.decode("ascii", "replace").split(",") if o]
    seen = set(own)
    for o in super_opts.decode("ascii", "replace").split(","):
        if o and o not in ("rw", "ro") and o not in seen:
            own.append(o)
            seen.add(o)
    return ",".join(own)


def parse_mountinfo_entries(data: bytes) -> dict[str, MountEntry]:
    """Mount point (fifth field) -> its entry, of a mountinfo text; the last mount on a point
    wins, as it hides the ones below."""
    out: dict[str, MountEntry] = {}
    for line in data.splitlines():
        parts = line.split(b" ", 6)
        if len(parts) > 4:
            before, _, after = line.partition(b" - ")
            fs_type, source, super_opts = (after.split(b" ", 2) + [b"", b"", b""])[:3]
            own = parts[5] if len(parts) > 5 else b""
            tags = b" ".join(before.split(b" ")[6:]).decode("ascii", "replace")
            out[_unescape(parts[4])] = MountEntry(fs_type.decode("ascii", "replace"), _unescape(source),
                                                  _options(own, super_opts), tags)
    return out


def parse_mountinfo(data: bytes) -> dict[str, str]:
    """Mount point -> file system type (the first field after " - ") of a mountinfo text."""
    return {point: e.fs_type for point, e in parse_mountinfo_entries(data).items()}


class HostMounts:
    def __init__(self, path: str = "/proc/self/mountinfo") -> None:
        self._path = path
        self._fd: int | None = None
        self._poll: Any = None  # a select.poll object
        self._broken = False
        self._points: frozenset[str] = frozenset()
        self._entries: dict[str, MountEntry] = {}

    def current(self) -> frozenset[str]:
        """The mount points now (empty where the table cannot be read: nothing is then told apart)."""
        if self._fd is None:
            if self._broken:
                return self._points
            try:
                fd = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)  # kept open to be polled
            except OSError:
                self._broken = True
                return self._points
            self._fd = fd
            self._closer = weakref.finalize(self, os.close, fd)
            self._poll = select.poll()
            self._poll.register(fd, select.POLLPRI | select.POLLERR)
            self._read()
        elif self._poll is not None and self._poll.poll(0):
            self._read()
        return self._points

    def _read(self) -> None:
        assert self._fd is not None
        chunks = []
        try:
            os.lseek(self._fd, 0, os.SEEK_SET)
            while chunk := os.read(self._fd, 65536):
                chunks.append(chunk)
        except OSError:
            return
        self._entries = parse_mountinfo_entries(b"".join(chunks))
        self._points = frozenset(self._entries)

    def readable(self) -> bool:
        """Whether the table could be read."""
        self.current()
        return self._fd is not None

    def holding(self, path: str) -> tuple[str, str]:
        """(mount point, file system type) of the mount `path` lies on (its deepest mount point)."""
        point, entry = self.entry_for(path)
        return point, entry.fs_type

    def entry_for(self, path: str) -> tuple[str, MountEntry]:
        """(mount point, entry) of the mount `path` lies on (its deepest mount point)."""
        self.current()
        probe = path
        while True:
            if probe in self._entries:
                return probe, self._entries[probe]
            if probe in ("/", ""):
                return "/", self._entries.get("/", MountEntry(""))
            probe = os.path.dirname(probe)

    def close(self) -> None:
        if self._fd is not None:
            self._closer()
            self._fd = None
