"""What the container simulation may see and touch of the real host, as a protocol.

Containers in fakecri run no processes, but their mounts are real host paths: a container
that writes into a hostPath volume writes a real file, and one that shares the host's PID
or network namespace sees the host's. Every such access goes through a `HostView`, which
the server implements over the real file system and /proc (fakecri/server/host/host.py) and
which can confine what callers reach. The simulation itself opens nothing.

Paths are host paths. Failures raise `HostError` with the C library's wording.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class HostError(Exception):
    """A host operation that failed; `reason` as strerror words it ("No such file or directory")."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class HostStat:
    """What stat(2) says of a host path (not following a final symlink when `link` is set)."""

    kind: str  # "file", "dir", "link", "other"
    mode: int  # permission bits (and setuid/setgid/sticky)
    uid: int
    gid: int
    size: int
    mtime_ns: int
    device: int
    nlink: int = 1
    blocks: int = 0  # allocated, in 512-byte units
    inode: int = 0


@dataclass(frozen=True, slots=True)
class HostFs:
    """What statfs(2) and the mount table say of the file system holding a host path."""

    fs_type: str  # "ext4", "tmpfs", ...
    block_size: int
    blocks: int
    blocks_free: int
    blocks_available: int
    files: int
    files_free: int
    mount_point: str
    source: str = ""  # what is mounted there, as /proc/mounts names it ("/dev/vda1", "tmpfs")
    options: str = ""  # its options, as /proc/mounts shows them ("rw,relatime,size=10240k")
    name_max: int = 255


class HostView(Protocol):
    def stat(self, path: str, *, follow: bool = True) -> HostStat: ...

    def read(self, path: str) -> bytes: ...

    def readlink(self, path: str) -> str: ...

    def listdir(self, path: str) -> list[str]: ...

    def write(self, path: str, data: bytes, *, append: bool = False) -> None: ...

    def mkdir(self, path: str) -> None: ...

    def symlink(self, target: str, path: str) -> None: ...

    def link(self, existing: str, path: str) -> None:
        """A hard link: `path` another name of the file at `existing` (a final symlink not followed)."""

    def chmod(self, path: str, mode: int) -> None:
        """Set the permission bits of `path` (following a final symlink)."""

    def chown(self, path: str, uid: int, gid: int) -> None:
        """Set the owner of `path` itself (not following a final symlink); -1 leaves one as it is."""

    def set_mtime(self, path: str, mtime_ns: int) -> None:
        """Set the access and modification times of `path` (following a final symlink)."""

    def remove(self, path: str) -> None:
        """Remove a file, a link, or a directory with everything under it."""

    def statfs(self, path: str) -> HostFs: ...

    def mount_points(self) -> frozenset[str]:
        """The host's mount points now."""

    def mount_propagation(self, path: str) -> tuple[str, str] | None:
        """(mount point, its propagation tags as mountinfo's optional fields give them, "shared:1
        master:2") of the host mount `path` lies on, symlinks resolved; None: the table is unknown."""

    def listeners(self) -> list[tuple[str, str]]:
        """(protocol, "address:port") of the host's listening TCP sockets."""

    def proc_file(self, path: str) -> bytes:
        """A file of the host's /proc (b"" where it cannot be read)."""


class NoHost:
    """A host with nothing on it: every path is missing, nothing is mounted or listening."""

    def _missing(self, path: str) -> HostError:
        return HostError("No such file or directory")

    def stat(self, path: str, *, follow: bool = True) -> HostStat:
        raise self._missing(path)

    def read(self, path: str) -> bytes:
        raise self._missing(path)

    def readlink(self, path: str) -> str:
        raise self._missing(path)

    def listdir(self, path: str) -> list[str]:
        raise self._missing(path)

    def write(self, path: str, data: bytes, *, append: bool = False) -> None:
        raise self._missing(path)

    def mkdir(self, path: str) -> None:
        raise self._missing(path)

    def remove(self, path: str) -> None:
        raise self._missing(path)

    def symlink(self, target: str, path: str) -> None:
        raise self._missing(path)

    def link(self, existing: str, path: str) -> None:
        raise self._missing(existing)

    def chmod(self, path: str, mode: int) -> None:
        raise self._missing(path)

    def chown(self, path: str, uid: int, gid: int) -> None:
        raise self._missing(path)

    def set_mtime(self, path: str, mtime_ns: int) -> None:
        raise self._missing(path)

    def statfs(self, path: str) -> HostFs:
        raise self._missing(path)

    def mount_points(self) -> frozenset[str]:
        return frozenset()

    def mount_propagation(self, path: str) -> tuple[str, str] | None:
        return None

    def listeners(self) -> list[tuple[str, str]]:
        return []

    def proc_file(self, path: str) -> bytes:
        return b""


def exists(host: HostView, path: str) -> bool:
    """Whether `path` exists on the host (a dangling symlink counts)."""
    try:
        host.stat(path, follow=False)
    except HostError:
        return False
    return True


def is_dir(host: HostView, path: str) -> bool:
    try:
        return host.stat(path).kind == "dir"
    except HostError:
        return False
