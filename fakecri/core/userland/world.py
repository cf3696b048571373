"""One container's simulated userland: who it runs as, its environment, and its files.

Built on the first command that needs it (nothing is built for containers nobody looks
into) from the container's `UserlandSpec`. The file view is layered: generated files
(`/etc/hostname`, `/etc/hosts`, `/etc/resolv.conf`, `/etc/passwd`, `/etc/group`,
`/proc/sys/...` from the sysctls), then the mounts, which map container paths to real
host paths (reads and writes go to the host; a read-only mount refuses writes), then
an in-memory layer for the rest of the root filesystem (refusing writes when it is
read-only). Masked paths read as empty; read-only paths refuse writes.
"""
from __future__ import annotations

import os
import posixpath
import shutil
from dataclasses import dataclass

from fakecri.core.userland.privilege import Privilege, privilege
from fakecri.core.userland.spec import MountSpec, UserlandSpec

# The image's account files: what the busybox image ships.
PASSWD = """root:x:0:0:root:/root:/bin/sh
daemon:x:1:1:daemon:/usr/sbin:/bin/false
bin:x:2:2:bin:/bin:/bin/false
sys:x:3:3:sys:/dev:/bin/false
sync:x:4:100:sync:/bin:/bin/sync
mail:x:8:8:mail:/var/spool/mail:/bin/false
www-data:x:33:33:www-data:/var/www:/bin/false
operator:x:37:37:Operator:/var:/bin/false
nobody:x:65534:65534:nobody:/home:/bin/false
"""
GROUP = """root:x:0:
daemon:x:1:
bin:x:2:
sys:x:3:
adm:x:4:
tty:x:5:
disk:x:6:
lp:x:7:
mail:x:8:
kmem:x:9:
wheel:x:10:root
cdrom:x:11:
dialout:x:18:
floppy:x:19:
video:x:28:
audio:x:29:
tape:x:32:
www-data:x:33:
operator:x:37:
utmp:x:43:
plugdev:x:46:
staff:x:50:
lock:x:54:
netdev:x:82:
users:x:100:
nogroup:x:65534:
"""
ROOT_DIRS = ("/", "/bin", "/dev", "/etc", "/home", "/proc", "/proc/self", "/proc/1", "/proc/sys", "/root", "/sys",
             "/tmp", "/usr",
             "/usr/bin", "/var", "/var/run", "/var/log")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _on_submount(root: str, path: str) -> bool:
    """Whether host `path` lies on another filesystem mounted under `root` (a non-recursive
    read-only mount leaves those writable)."""
    probe = path
    while not os.path.exists(probe) and probe not in ("", "/") and len(probe) > len(root):
        probe = os.path.dirname(probe)
    try:
        return os.stat(probe).st_dev != os.stat(root).st_dev
    except OSError:
        return False


class FileError(Exception):
    """A file operation that fails; `reason` as the C library words it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


NO_SUCH = "No such file or directory"
READ_ONLY = "Read-only file system"
IS_DIR = "Is a directory"
NOT_DIR = "Not a directory"


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    id: int
    gid: int = 0
    home: str = "/"
    members: tuple[str, ...] = ()


def _accounts(text: str, group: bool) -> list[Account]:
    out = []
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) < 4 or not parts[2].isdigit():
            continue
        if group:
            out.append(Account(parts[0], int(parts[2]), members=tuple(m for m in parts[3].split(",") if m)))
        elif len(parts) >= 6 and parts[3].isdigit():
            out.append(Account(parts[0], int(parts[2]), int(parts[3]), parts[5]))
    return out


class Userland:
    def __init__(self, spec: UserlandSpec, *, ip: str = "") -> None:
        self.spec = spec
        self.ip = ip
        self._files: dict[str, bytes] = {}  # the in-memory layer of the root filesystem
        self._dirs: set[str] = set(ROOT_DIRS)
        self._removed: set[str] = set()  # generated files deleted in this container
        users = _accounts(PASSWD, group=False)
        groups = _accounts(GROUP, group=True)
        by_name = {u.name: u for u in users}
        by_uid = {u.id: u for u in users}
        self._user_names = {u.id: u.name for u in users}
        self._group_names = {g.id: g.name for g in groups}
        if spec.run_as_user is not None:
            self.uid = spec.run_as_user
        elif spec.run_as_username in by_name:
            self.uid = by_name[spec.run_as_username].id
        else:
            self.uid = 0
        account = by_uid.get(self.uid)
        self.user_name = spec.run_as_username or (account.name if account else "")
        self.gid = spec.run_as_group if spec.run_as_group is not None else (account.gid if account else 0)
        self.home = account.home if account else "/"
        ids = [self.gid]
        if not spec.strict_groups and self.user_name:
            ids += [g.id for g in groups if self.user_name in g.members]
        ids += list(spec.supplemental_groups)
        self.groups = list(dict.fromkeys(ids))

    # ------------------------------------------------------------ identity and environment

    @property
    def privilege(self) -> Privilege:
        spec = self.spec
        return privilege(privileged=spec.privileged, add=spec.add_capabilities, drop=spec.drop_capabilities,
                         uid=self.uid, no_new_privs=spec.no_new_privs, seccomp=spec.seccomp)

    def _status(self) -> bytes:
        """/proc/self/status of a process in the container (the fields that follow its config)."""
        p = self.privilege
        return (f"Name:\tsh\nState:\tR (running)\nUid:\t{self.uid}\t{self.uid}\t{self.uid}\t{self.uid}\n"
                f"Gid:\t{self.gid}\t{self.gid}\t{self.gid}\t{self.gid}\n"
                f"Groups:\t{' '.join(str(g) for g in self.groups)}\n"
                f"CapInh:\t{0:016x}\nCapPrm:\t{p.effective:016x}\nCapEff:\t{p.effective:016x}\n"
                f"CapBnd:\t{p.bounding:016x}\nCapAmb:\t{0:016x}\n"
                f"NoNewPrivs:\t{int(p.no_new_privs)}\nSeccomp:\t{p.seccomp_mode}\n"
                f"Seccomp_filters:\t{1 if p.seccomp_mode else 0}\n").encode()

    def user_named(self, uid: int) -> str:
        return self._user_names.get(uid, "")

    def group_named(self, gid: int) -> str:
        return self._group_names.get(gid, "")

    def env(self) -> dict[str, str]:
        out = {"PATH": PATH, "HOSTNAME": self.spec.hostname, "HOME": self.home}
        out.update(self.spec.envs)
        return out

    # ------------------------------------------------------------ generated files

    def _generated(self, path: str) -> bytes | None:
        spec = self.spec
        if path in self._removed:
            return None
        if path == "/etc/hostname":
            return (spec.hostname + "\n").encode()
        if path == "/etc/hosts":
            lines = ["127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback",
                     "fe00::0\tip6-localnet", "fe00::0\tip6-mcastprefix", "fe00::1\tip6-allnodes",
                     "fe00::2\tip6-allrouters"]
            if self.ip and spec.hostname:
                lines.append(f"{self.ip}\t{spec.hostname}")
            return ("\n".join(lines) + "\n").encode()
        if path == "/etc/resolv.conf":
            lines = []
            if spec.dns_searches:
                lines.append("search " + " ".join(spec.dns_searches))
            lines += [f"nameserver {s}" for s in spec.dns_servers]
            if spec.dns_options:
                lines.append("options " + " ".join(spec.dns_options))
            return ("\n".join(lines) + "\n").encode() if lines else b""
        if path == "/etc/passwd":
            return PASSWD.encode()
        if path == "/etc/group":
            return GROUP.encode()
        if path in ("/proc/self/status", "/proc/1/status"):
            return self._status()
        if path.startswith("/proc/sys/"):
            key = path[len("/proc/sys/"):].replace("/", ".")
            if key in spec.sysctls:
                return (spec.sysctls[key] + "\n").encode()
        return None

    def _generated_dirs(self) -> set[str]:
        out = set()
        for key in self.spec.sysctls:
            parts = key.split(".")
            for i in range(1, len(parts)):
                out.add("/proc/sys/" + "/".join(parts[:i]))
        return out

    # ------------------------------------------------------------ paths

    def abspath(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.spec.working_dir or "/", path)) if path else ""

    def _mount(self, path: str) -> tuple[MountSpec, str] | None:
        """The mount `path` is under (the deepest one) and the host path it maps to."""
        best: MountSpec | None = None
        for m in self.spec.mounts:
            root = posixpath.normpath(m.container_path or "/")
            if (path == root or path.startswith(root.rstrip("/") + "/")) and (
                    best is None or len(root) > len(posixpath.normpath(best.container_path))):
                best = m
        if best is None or not best.host_path:
            return None
        root = posixpath.normpath(best.container_path)
        rel = posixpath.relpath(path, root)
        return best, (best.host_path if rel == "." else os.path.join(best.host_path, rel))

    def masked_program(self, word: str) -> bool:
        """Whether running `word` hits a masked path (the program file itself, or through PATH)."""
        if not self.spec.masked_paths:
            return False
        paths = [self.abspath(word)] if "/" in word else [f"{d}/{word}" for d in PATH.split(":")]
        return any(self._under(p, self.spec.masked_paths) for p in paths)

    def _under(self, path: str, prefixes: tuple[str, ...]) -> bool:
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes)

    # ------------------------------------------------------------ queries

    def is_dir(self, path: str) -> bool:
        path = self.abspath(path)
        mounted = self._mount(path)
        if mounted is not None:
            return os.path.isdir(mounted[1])
        return path in self._dirs or path in self._generated_dirs() or any(
            posixpath.normpath(m.container_path) == path for m in self.spec.mounts)

    def exists(self, path: str) -> bool:
        path = self.abspath(path)
        mounted = self._mount(path)
        if mounted is not None:
            return os.path.lexists(mounted[1])
        return self.is_dir(path) or path in self._files or self._generated(path) is not None

    def read(self, path: str) -> bytes:
        path = self.abspath(path)
        if self._under(path, self.spec.masked_paths):
            return b""
        mounted = self._mount(path)
        if mounted is not None:
            try:
                with open(mounted[1], "rb") as f:
                    return f.read()
            except IsADirectoryError:
                raise FileError(IS_DIR) from None
            except OSError as exc:
                raise FileError(exc.strerror or NO_SUCH) from None
        if self.is_dir(path):
            raise FileError(IS_DIR)
        if path in self._files:
            return self._files[path]
        data = self._generated(path)
        if data is None:
            raise FileError(NO_SUCH)
        return data

    def listdir(self, path: str) -> list[str]:
        path = self.abspath(path)
        mounted = self._mount(path)
        if mounted is not None:
            try:
                return sorted(os.listdir(mounted[1]))
            except NotADirectoryError:
                raise FileError(NOT_DIR) from None
            except OSError as exc:
                raise FileError(exc.strerror or NO_SUCH) from None
        if not self.is_dir(path):
            raise FileError(NOT_DIR if self.exists(path) else NO_SUCH)
        names = set()
        prefix = path.rstrip("/") + "/"
        candidates = (set(self._files) | self._dirs | self._generated_dirs()
                      | {posixpath.normpath(m.container_path) for m in self.spec.mounts}
                      | {"/etc/hostname", "/etc/hosts", "/etc/resolv.conf", "/etc/passwd", "/etc/group"}
                      | {"/proc/sys/" + k.replace(".", "/") for k in self.spec.sysctls})
        for p in candidates:
            if p.startswith(prefix) and p != path and p not in self._removed:
                names.add(p[len(prefix):].split("/", 1)[0])
        return sorted(names)

    # ------------------------------------------------------------ changes

    def _writable(self, path: str) -> tuple[MountSpec, str] | None:
        """Check a write to `path` may happen; the mount it goes to (None: the root filesystem)."""
        if self._under(path, self.spec.readonly_paths) or path.startswith("/proc/sys/"):
            raise FileError(READ_ONLY)
        mounted = self._mount(path)
        if mounted is not None:
            if mounted[0].readonly and (mounted[0].recursive_read_only or not _on_submount(mounted[0].host_path,
                                                                                          mounted[1])):
                raise FileError(READ_ONLY)
            return mounted
        if self.spec.readonly_rootfs:
            raise FileError(READ_ONLY)
        if not self.is_dir(posixpath.dirname(path)):
            raise FileError(NO_SUCH)
        return None

    def write(self, path: str, data: bytes, *, append: bool = False) -> None:
        path = self.abspath(path)
        if self.is_dir(path):
            raise FileError(IS_DIR)
        mounted = self._writable(path)
        if mounted is not None:
            try:
                with open(mounted[1], "ab" if append else "wb") as f:
                    f.write(data)
            except OSError as exc:
                raise FileError(exc.strerror or NO_SUCH) from None
            return
        old = self._files.get(path, self._generated(path) or b"") if append else b""
        self._files[path] = old + data
        self._removed.discard(path)

    def touch(self, path: str) -> None:
        if not self.exists(path):
            self.write(path, b"")
        else:
            self._writable(self.abspath(path))

    def mkdir(self, path: str, parents: bool = False) -> None:
        path = self.abspath(path)
        if self.exists(path):
            if parents and self.is_dir(path):
                return
            raise FileError("File exists")
        if parents and not self.is_dir(posixpath.dirname(path)):
            self.mkdir(posixpath.dirname(path), parents=True)
        mounted = self._writable(path)
        if mounted is not None:
            try:
                os.mkdir(mounted[1])
            except OSError as exc:
                raise FileError(exc.strerror or NO_SUCH) from None
            return
        self._dirs.add(path)

    def remove(self, path: str, recursive: bool = False) -> None:
        path = self.abspath(path)
        if not self.exists(path):
            raise FileError(NO_SUCH)
        if self.is_dir(path) and not recursive:
            raise FileError(IS_DIR)
        mounted = self._writable(path)
        if mounted is not None:
            try:
                if os.path.isdir(mounted[1]) and not os.path.islink(mounted[1]):
                    shutil.rmtree(mounted[1])
                else:
                    os.remove(mounted[1])
            except OSError as exc:
                raise FileError(exc.strerror or NO_SUCH) from None
            return
        prefix = path.rstrip("/") + "/"
        for p in [p for p in self._files if p == path or p.startswith(prefix)]:
            del self._files[p]
        self._dirs = {d for d in self._dirs if not (d == path or d.startswith(prefix))}
        if self._generated(path) is not None:
            self._removed.add(path)
