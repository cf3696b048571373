"""The real host as the container simulation sees it: fakecri.sim.host.HostView over the
file system, the mount table and /proc.

This is the one place a simulated container reaches the machine: the files of its
hostPath and volume mounts, the host's mount points (for mount propagation), the host's
listening sockets and /proc files (for containers on the host's network, PID or IPC
namespace), and Localhost seccomp profiles.
"""
from __future__ import annotations

import errno
import os
import shutil
import stat as st

from fakecri.server.host_mounts import HostMounts
from fakecri.sim.host import HostError, HostFs, HostStat

_KINDS = ((st.S_ISLNK, "link"), (st.S_ISDIR, "dir"), (st.S_ISREG, "file"))


def _error(exc: OSError | ValueError) -> HostError:
    if isinstance(exc, ValueError):  # a path with a NUL byte in it
        return HostError(os.strerror(errno.EINVAL))
    return HostError(exc.strerror or os.strerror(exc.errno or errno.EIO))


def _parse_proc_net_tcp(text: str) -> list[tuple[str, str]]:
    out = []
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 4 or fields[3] != "0A":  # 0A: LISTEN
            continue
        address, _, port = fields[1].partition(":")
        try:
            raw = bytes.fromhex(address)
            if len(raw) == 4:
                host = ".".join(str(b) for b in raw[::-1])
            else:  # four host-order 32-bit words
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                host = ":".join(words[i:i + 2].hex() for i in range(0, 16, 2))
                host = "::" if host == "0000:0000:0000:0000:0000:0000:0000:0000" else host
            out.append((host, str(int(port, 16))))
        except ValueError:
            continue
    return out


class LocalHost:
    """HostView over this machine."""

    def __init__(self) -> None:
        self._mounts = HostMounts()

    def stat(self, path: str, *, follow: bool = True) -> HostStat:
        try:
            s = os.stat(path) if follow else os.lstat(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None
        kind = next((name for test, name in _KINDS if test(s.st_mode)), "other")
        return HostStat(kind, st.S_IMODE(s.st_mode), s.st_uid, s.st_gid, s.st_size, s.st_mtime_ns, s.st_dev,
                        nlink=s.st_nlink, blocks=getattr(s, "st_blocks", 0), inode=s.st_ino)

    def read(self, path: str) -> bytes:
        try:
            with open(path, "rb") as f:
                return f.read()
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def readlink(self, path: str) -> str:
        try:
            return os.readlink(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def listdir(self, path: str) -> list[str]:
        try:
            return os.listdir(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def write(self, path: str, data: bytes, *, append: bool = False) -> None:
        try:
            with open(path, "ab" if append else "wb") as f:
                f.write(data)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def mkdir(self, path: str) -> None:
        try:
            os.mkdir(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def symlink(self, target: str, path: str) -> None:
        try:
            os.symlink(target, path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def chmod(self, path: str, mode: int) -> None:
        try:
            os.chmod(path, mode)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def chown(self, path: str, uid: int, gid: int) -> None:
        try:
            os.chown(path, uid, gid, follow_symlinks=False)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def remove(self, path: str) -> None:
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def statfs(self, path: str) -> HostFs:
        try:
            s = os.statvfs(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None
        point, entry = self._mounts.entry_for(os.path.realpath(path))
        return HostFs(fs_type=entry.fs_type, block_size=s.f_frsize or s.f_bsize, blocks=s.f_blocks,
                      blocks_free=s.f_bfree, blocks_available=s.f_bavail, files=s.f_files, files_free=s.f_ffree,
                      mount_point=point, source=entry.source, options=entry.options, name_max=s.f_namemax)

    def mount_points(self) -> frozenset[str]:
        return self._mounts.current()

    def listeners(self) -> list[tuple[str, str]]:
        out = []
        for proto, path in (("tcp", "/proc/net/tcp"), ("tcp6", "/proc/net/tcp6")):
            try:
                with open(path, encoding="ascii") as f:
                    text = f.read()
            except OSError:
                continue
            out += [(proto, f"{host}:{port}") for host, port in _parse_proc_net_tcp(text)]
        return out

    def proc_file(self, path: str) -> bytes:
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError:
            return b""

    def close(self) -> None:
        self._mounts.close()
