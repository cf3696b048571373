"""The real host as the container simulation sees it: fakecri.sim.host_view.HostView over the
file system, the mount table and /proc; and how much of it callers may name.

This is the one place a simulated container reaches the machine: the files of its
hostPath and volume mounts, the host's mount points (for mount propagation), the host's
listening sockets and /proc files (for containers on the host's network, PID or IPC
namespace), and Localhost seccomp profiles.

`HostRoot` confines it (`--host-root DIR`): every host path a caller names (a mount's
host path, a log directory or path, a checkpoint archive, a Localhost seccomp profile) must
lie under DIR as written, with no `..`, and its symlinks resolved must stay under DIR.
The CRI calls refuse what does not (PERMISSION_DENIED naming the field and the path), and
`LocalHost`, the log files and the checkpoint archives check again at every access (a state
file written before the option was given may hold older paths), so a fake run in shared CI
hands its callers nothing of the host outside DIR: not its files, not its /proc, not its
listening sockets, not its mount points.
"""
from __future__ import annotations

import errno
import os
import shutil
import stat as st

from fakecri.engine.specs import LOCALHOST, ContainerSpec, SandboxSpec, Seccomp
from fakecri.server.exceptions import PermissionDenied, SettingError
from fakecri.server.host.host_mounts import HostMounts
from fakecri.sim.host_view import HostError, HostFs, HostStat


class HostRoot:
    """The part of the host callers may name: all of it (`root` None), or what lies under `root`."""

    def __init__(self, root: str | None = None) -> None:
        self.given = root
        self.root: str | None = None
        if root is not None:
            if not os.path.isabs(root):
                root = os.path.abspath(root)
            if not os.path.isdir(root):
                raise SettingError("host_root", f"{root} is not a directory")
            self.root = os.path.realpath(root)
        self.confined = self.root is not None  # set once: every CreateContainer asks

    def _inside(self, path: str) -> bool:
        assert self.root is not None
        return path == self.root or path.startswith(self.root.rstrip("/") + "/")

    def why_not(self, path: str, *, follow: bool = True) -> str | None:
        """Why a caller may not name host path `path`, or None if it may (`follow=False`: a
        final symlink is taken as itself, as lstat, readlink and unlink take it)."""
        if self.root is None:
            return None
        if "\0" in path:
            return "holds a NUL byte"
        if not os.path.isabs(path):
            return "is not an absolute path"
        if ".." in path.split("/"):
            return "climbs with '..'"
        if not self._inside(os.path.normpath(path)):
            return f"is outside {self.root}, the only part of the host callers may name (--host-root)"
        head, tail = os.path.split(os.path.normpath(path))
        real = os.path.realpath(path) if follow else os.path.join(os.path.realpath(head), tail)
        if not self._inside(real):
            return f"leads by a symlink to {real}, outside {self.root} (--host-root)"
        return None

    def why_not_log(self, path: str) -> str | None:
        """Why a container may not log to `path`, or None. An absolute path must be one callers
        may name; a relative one (a pod without a log directory) goes under fakecri's own root,
        so it may not climb out of it."""
        if self.root is None or not path:
            return None
        if os.path.isabs(path):
            return self.why_not(path)
        if ".." in path.split("/"):
            return "climbs with '..' out of fakecri's root"
        return None

    def check_sandbox(self, log_directory: str, spec: SandboxSpec, where: str = "") -> None:
        """The host paths of a pod's config: its log directory and a Localhost seccomp profile."""
        if self.root is None:
            return
        if log_directory and (why := self.why_not_log(log_directory)) is not None:
            raise PermissionDenied(f"{where}log_directory {log_directory!r} {why}")
        self._check_seccomp(spec.seccomp, f"{where}linux.security_context.seccomp.localhost_ref")

    def check_container(self, spec: ContainerSpec, log_path: str, where: str = "") -> None:
        """The host paths of a container's config: its mounts' host paths, where its log goes (the
        pod's log directory joined with its log_path) and a Localhost seccomp profile."""
        if self.root is None:
            return
        for i, m in enumerate(spec.mounts):
            if m.host_path:
                self.check(m.host_path, f"{where}mounts[{i}].host_path")
        if log_path and (why := self.why_not_log(log_path)) is not None:
            raise PermissionDenied(f"{where}log_path {log_path!r} {why}")
        self._check_seccomp(spec.seccomp, f"{where}linux.security_context.seccomp.localhost_ref")

    def _check_seccomp(self, seccomp: Seccomp | None, what: str) -> None:
        if seccomp is not None and seccomp.kind == LOCALHOST and seccomp.localhost_ref:
            self.check(seccomp.localhost_ref, what)

    def allows(self, path: str, *, follow: bool = True) -> bool:
        return self.why_not(path, follow=follow) is None

    def check(self, path: str, what: str) -> None:
        """PERMISSION_DENIED naming `what` (the request field) and the path, unless callers may name it."""
        why = self.why_not(path)
        if why is not None:
            raise PermissionDenied(f"{what} {path!r} {why}")



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
    """HostView over this machine, or over the part of it under a `HostRoot`."""

    def __init__(self, root: HostRoot | None = None) -> None:
        self._mounts = HostMounts()
        self.root = root if root is not None else HostRoot()

    def _may(self, path: str, *, follow: bool = True) -> None:
        """Permission denied, as the kernel words it, for a path outside the host root."""
        if not self.root.allows(path, follow=follow):
            raise HostError(os.strerror(errno.EACCES))

    def stat(self, path: str, *, follow: bool = True) -> HostStat:
        self._may(path, follow=follow)
        try:
            s = os.stat(path) if follow else os.lstat(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None
        kind = next((name for test, name in _KINDS if test(s.st_mode)), "other")
        return HostStat(kind, st.S_IMODE(s.st_mode), s.st_uid, s.st_gid, s.st_size, s.st_mtime_ns, s.st_dev,
                        nlink=s.st_nlink, blocks=getattr(s, "st_blocks", 0), inode=s.st_ino)

    def read(self, path: str) -> bytes:
        self._may(path)
        try:
            with open(path, "rb") as f:
                return f.read()
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def readlink(self, path: str) -> str:
        self._may(path, follow=False)
        try:
            return os.readlink(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def listdir(self, path: str) -> list[str]:
        self._may(path)
        try:
            return os.listdir(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def write(self, path: str, data: bytes, *, append: bool = False) -> None:
        self._may(path)
        try:
            with open(path, "ab" if append else "wb") as f:
                f.write(data)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def mkdir(self, path: str) -> None:
        self._may(path)
        try:
            os.mkdir(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def symlink(self, target: str, path: str) -> None:
        try:
            os.symlink(target, path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def link(self, existing: str, path: str) -> None:
        self._may(existing, follow=False)
        self._may(path, follow=False)
        try:
            os.link(existing, path, follow_symlinks=False)
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

    def set_mtime(self, path: str, mtime_ns: int) -> None:
        try:
            os.utime(path, ns=(mtime_ns, mtime_ns))
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def remove(self, path: str) -> None:
        self._may(path, follow=False)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None

    def statfs(self, path: str) -> HostFs:
        self._may(path)
        try:
            s = os.statvfs(path)
        except (OSError, ValueError) as exc:
            raise _error(exc) from None
        point, entry = self._mounts.entry_for(os.path.realpath(path))
        return HostFs(fs_type=entry.fs_type, block_size=s.f_frsize or s.f_bsize, blocks=s.f_blocks,
                      blocks_free=s.f_bfree, blocks_available=s.f_bavail, files=s.f_files, files_free=s.f_ffree,
                      mount_point=point, source=entry.source, options=entry.options, name_max=s.f_namemax)

    def mount_points(self) -> frozenset[str]:
        points = self._mounts.current()
        if self.root.confined:
            return frozenset(p for p in points if self.root.allows(p))
        return points

    def mount_propagation(self, path: str) -> tuple[str, str] | None:
        if not self._mounts.readable():
            return None
        point, entry = self._mounts.entry_for(os.path.realpath(path))
        return point, entry.tags

    def listeners(self) -> list[tuple[str, str]]:
        if self.root.confined:
            return []  # the host's sockets are read from its /proc, which is not under the root
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
        if not self.root.allows(path):
            return b""  # as a file that cannot be read
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError:
            return b""

    def close(self) -> None:
        self._mounts.close()
