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

import posixpath
from collections.abc import Callable

from fakecri.engine.specs import BIDIRECTIONAL, NODE, PRIVATE, Mount
from fakecri.sim.host import HostError, HostView, NoHost, exists, is_dir
from fakecri.sim.image_content import BUSYBOX, ImageContent
from fakecri.sim.userland.identity import accounts, identity
from fakecri.sim.userland.privilege import Privilege, privilege
from fakecri.sim.userland.spec import UserlandSpec

ROOT_DIRS = ("/", "/bin", "/dev", "/etc", "/home", "/proc", "/proc/self", "/proc/1", "/proc/sys", "/proc/sysvipc",
             "/root", "/sys",
             "/tmp", "/usr",
             "/usr/bin", "/var", "/var/run", "/var/log")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TMPFS = "\0tmpfs"  # where a tmpfs mounted inside keeps its files (no path a command can name)
SHOWN_LIMIT = 1000  # entries a bidirectional mount copies out to the host at most


def _id_map_text(mapping: tuple[tuple[int, int, int], ...] | None, host_map: bytes) -> bytes:
    """A user-namespace map as the kernel prints it; without a namespace of the pod's own, the
    host's (`host_map`), which is what a container in the node's user namespace reads."""
    if mapping is None:
        if host_map:
            return host_map
        mapping = ((0, 0, 4294967295),)
    return "".join(f"{c:>10} {h:>10} {n:>10}\n" for c, h, n in mapping).encode()


class FileError(Exception):
    """A file operation that fails; `reason` as the C library words it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


NO_SUCH = "No such file or directory"
READ_ONLY = "Read-only file system"
IS_DIR = "Is a directory"
NOT_DIR = "Not a directory"


class Userland:
    def __init__(self, spec: UserlandSpec, *, ip: str = "", content: ImageContent = BUSYBOX,
                 processes: Callable[[], list[tuple[int, str]]] | None = None,
                 mounts_at_start: frozenset[str] | None = None, host: HostView | None = None) -> None:
        """`processes`: what its PID namespace shows; `mounts_at_start`: the host's mount points
        when the container started (a private mount hides what the host mounted under it
        since); `host`: what of the host its mounts and shared namespaces reach."""
        self.spec = spec
        self.host: HostView = host if host is not None else NoHost()
        # (pid, command line) its PID namespace shows, pid 1 first (the runtime knows them)
        self.processes = processes or (lambda: [(1, "sh")])
        self.ip = ip
        self.content = content
        self._mounts_at_start = mounts_at_start
        self._since: tuple[frozenset[str], frozenset[str]] | None = None  # (table, its points new since start)
        self._binds: dict[str, str] = {}  # mounts made inside: target -> source path ("" for a tmpfs)
        self._shown: dict[str, list[str]] = {}  # target -> host paths a bidirectional mount copied out
        self._files: dict[str, bytes] = {}  # the in-memory layer of the root filesystem
        self._dirs: set[str] = set(ROOT_DIRS)
        self._removed: set[str] = set()  # generated files deleted in this container
        self.oom_killed = False  # a process of the container went beyond its memory limit
        self._user_names = {u.id: u.name for u in accounts(content.passwd, False)}
        self._group_names = {g.id: g.name for g in accounts(content.group, True)}
        who = identity(content, run_as_user=spec.run_as_user, run_as_group=spec.run_as_group,
                       run_as_username=spec.run_as_username, supplemental_groups=spec.supplemental_groups,
                       strict=spec.strict_groups)
        self.identity = who
        self.uid, self.gid, self.user_name, self.home = who.uid, who.gid, who.user_name, who.home
        self.groups = who.groups

    # ------------------------------------------------------------ identity and environment

    @property
    def privilege(self) -> Privilege:
        spec = self.spec
        return privilege(privileged=spec.privileged, add=spec.add_capabilities, drop=spec.drop_capabilities,
                         uid=self.uid, no_new_privs=spec.no_new_privs, seccomp=spec.seccomp,
                         read_profile=self.host.read)

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

    def listening(self) -> list[tuple[str, str]]:
        """(protocol, local address) of the listening TCP sockets the container sees: the host's,
        read from the host's /proc/net, on the host network; its image's web server otherwise."""
        if self.spec.network_mode == NODE:
            return self.host.listeners()
        return [("tcp", f"0.0.0.0:{port}") for port in self.content.http_ports]

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
            return self.content.passwd.encode()
        if path == "/etc/group":
            return self.content.group.encode()
        if path == "/proc/1/cmdline":
            if self.spec.pid_mode == NODE:
                return self.host.proc_file("/proc/1/cmdline")
            title = self.processes()[0][1]
            if title.split(" ", 1)[0].endswith(":"):  # a title the program wrote over its argv (nginx's)
                return (title + "\0").encode()
            return "".join(word + "\0" for word in title.split(" ")).encode()
        if path == "/proc/sysvipc/shm" and self.spec.ipc_mode == NODE:
            return self.host.proc_file(path)
        if path == "/var/run/nginx.pid" and self.content.http_server == "nginx" and self.content.http_ports:
            mine = [pid for pid, line in self.processes() if line.startswith("nginx: master process")]
            return f"{mine[0]}\n".encode() if mine else None
        if path in ("/proc/self/status", "/proc/1/status"):
            return self._status()
        if path in ("/proc/self/uid_map", "/proc/1/uid_map", "/proc/self/gid_map", "/proc/1/gid_map"):
            own = spec.uid_map if path.endswith("uid_map") else spec.gid_map
            host_map = self.host.proc_file(path.replace("/proc/1/", "/proc/self/")) if own is None else b""
            return _id_map_text(own, host_map)
        if path.startswith("/proc/sys/"):
            value = spec.sysctl(path[len("/proc/sys/"):])
            if value is not None:
                return (value + "\n").encode()
        return None

    def _generated_dirs(self) -> set[str]:
        out = set()
        for key, _ in self.spec.sysctls:
            parts = key.split("/")
            for i in range(1, len(parts)):
                out.add("/proc/sys/" + "/".join(parts[:i]))
        return out

    # ------------------------------------------------------------ paths

    def abspath(self, path: str) -> str:
        if not path or path.startswith(TMPFS):  # empty, or already where a tmpfs keeps its files
            return path
        path = posixpath.normpath(posixpath.join(self.spec.working_dir or "/", path))
        return self._through_binds(path) if self._binds else path

    def _through_binds(self, path: str) -> str:
        """The path a mount made inside the container leads `path` to."""
        for _ in range(8):
            target = max((t for t in self._binds if path == t or path.startswith(t.rstrip("/") + "/")),
                         key=len, default=None)
            if target is None:
                break
            source = self._binds[target] or TMPFS + target
            path = source + path[len(target):] if path != target else source
            if not self._binds[target]:
                break
        return path

    def _mount(self, path: str) -> tuple[Mount, str] | None:
        """The mount `path` is under (the deepest one) and the host path it maps to."""
        best: Mount | None = None
        for m in self.spec.mounts:
            root = posixpath.normpath(m.container_path or "/")
            if (path == root or path.startswith(root.rstrip("/") + "/")) and (
                    best is None or len(root) > len(posixpath.normpath(best.container_path))):
                best = m
        if best is None or not best.host_path:
            return None
        root = posixpath.normpath(best.container_path)
        rel = posixpath.relpath(path, root)
        return best, (best.host_path if rel == "." else posixpath.join(best.host_path, rel))

    def _on_submount(self, root: str, path: str) -> bool:
        """Whether host `path` lies on another file system mounted under `root` (a non-recursive
        read-only mount leaves those writable)."""
        probe = path
        while not exists(self.host, probe) and probe not in ("", "/") and len(probe) > len(root):
            probe = posixpath.dirname(probe)
        try:
            return self.host.stat(probe).device != self.host.stat(root).device
        except HostError:
            return False

    def _hidden(self, mounted: tuple[Mount, str] | None) -> str | None:
        """For a private mount, the outermost host directory on the way to `mounted`'s host path
        that the host mounted over after the container started: the container still sees the
        directory underneath (shown empty, as a mount point usually is)."""
        if mounted is None or mounted[0].propagation != PRIVATE or self._mounts_at_start is None:
            return None
        now = self.host.mount_points()
        if self._since is None or self._since[0] is not now:
            self._since = (now, now - self._mounts_at_start)
        new = self._since[1]
        if not new:
            return None
        root = posixpath.normpath(mounted[0].host_path)
        probe = posixpath.normpath(mounted[1])
        hidden = None
        while True:
            if probe in new:
                hidden = probe
            if probe == root or probe in ("/", ""):
                return hidden
            probe = posixpath.dirname(probe)

    def masked_program(self, word: str) -> bool:
        """Whether running `word` hits a masked path (the program file itself, or through PATH)."""
        if not self.spec.masked_paths:
            return False
        paths = [self.abspath(word)] if "/" in word else [f"{d}/{word}" for d in PATH.split(":")]
        return any(self._under(p, self.spec.masked_paths) for p in paths)

    def _under(self, path: str, prefixes: tuple[str, ...]) -> bool:
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes)

    # ------------------------------------------------------------ queries

    def _on_host(self, path: str, present: Callable[[str], bool]) -> bool | None:
        """For a path under a host mount, `present(host path)`; a directory the host mounted
        over since (see `_hidden`) shows only itself. None when no mount covers the path."""
        mounted = self._mount(path)
        if mounted is None:
            return None
        hidden = self._hidden(mounted)
        if hidden is not None:
            return hidden == posixpath.normpath(mounted[1])
        return present(mounted[1])

    def is_dir(self, path: str) -> bool:
        path = self.abspath(path)
        on_host = self._on_host(path, lambda p: is_dir(self.host, p))
        if on_host is not None:
            return on_host
        return path in self._dirs or path in self._generated_dirs() or any(
            posixpath.normpath(m.container_path) == path for m in self.spec.mounts)

    def exists(self, path: str) -> bool:
        path = self.abspath(path)
        on_host = self._on_host(path, lambda p: exists(self.host, p))
        if on_host is not None:
            return on_host
        return self.is_dir(path) or path in self._files or self._generated(path) is not None

    def read(self, path: str) -> bytes:
        path = self.abspath(path)
        if self._under(path, self.spec.masked_paths):
            return b""
        mounted = self._mount(path)
        if mounted is not None:
            hidden = self._hidden(mounted)
            if hidden is not None:
                raise FileError(IS_DIR if hidden == posixpath.normpath(mounted[1]) else NO_SUCH)
            try:
                return self.host.read(mounted[1])
            except HostError as exc:
                raise FileError(exc.reason) from None
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
            hidden = self._hidden(mounted)
            if hidden is not None:
                if hidden == posixpath.normpath(mounted[1]):
                    return []
                raise FileError(NO_SUCH)
            try:
                return sorted(self.host.listdir(mounted[1]))
            except HostError as exc:
                raise FileError(exc.reason) from None
        if not self.is_dir(path):
            raise FileError(NOT_DIR if self.exists(path) else NO_SUCH)
        names = set()
        prefix = path.rstrip("/") + "/"
        candidates = (set(self._files) | self._dirs | self._generated_dirs()
                      | {posixpath.normpath(m.container_path) for m in self.spec.mounts}
                      | {"/etc/hostname", "/etc/hosts", "/etc/resolv.conf", "/etc/passwd", "/etc/group"}
                      | {f"/proc/{p}/{f}" for p in ("self", "1") for f in ("status", "uid_map", "gid_map")}
                      | {"/proc/sys/" + k for k, _ in self.spec.sysctls})
        for p in candidates:
            if p.startswith(prefix) and p != path and p not in self._removed:
                names.add(p[len(prefix):].split("/", 1)[0])
        return sorted(names)

    # ------------------------------------------------------------ changes

    def _writable(self, path: str) -> tuple[Mount, str] | None:
        """Check a write to `path` may happen; the mount it goes to (None: the root filesystem)."""
        if self._under(path, self.spec.readonly_paths) or path.startswith("/proc/sys/"):
            raise FileError(READ_ONLY)
        mounted = self._mount(path)
        if mounted is not None:
            if mounted[0].readonly and (mounted[0].recursive_read_only
                                        or not self._on_submount(mounted[0].host_path, mounted[1])):
                raise FileError(READ_ONLY)
            return mounted
        if self.spec.readonly_rootfs and not path.startswith(TMPFS):
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
                self.host.write(mounted[1], data, append=append)
            except HostError as exc:
                raise FileError(exc.reason) from None
            return
        old = self._files.get(path, self._generated(path) or b"") if append else b""
        self._files[path] = old + data
        self._removed.discard(path)

    def may_write(self, path: str) -> bool:
        """Whether a write to `path` (relative to the working directory) would be allowed."""
        try:
            self._writable(self.abspath(path))
        except FileError:
            return False
        return True

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
                self.host.mkdir(mounted[1])
            except HostError as exc:
                raise FileError(exc.reason) from None
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
                self.host.remove(mounted[1])
            except HostError as exc:
                raise FileError(exc.reason) from None
            return
        prefix = path.rstrip("/") + "/"
        for p in [p for p in self._files if p == path or p.startswith(prefix)]:
            del self._files[p]
        self._dirs = {d for d in self._dirs if not (d == path or d.startswith(prefix))}
        if self._generated(path) is not None:
            self._removed.add(path)

    # ------------------------------------------------------------ mounts made inside

    def mount(self, source: str, target: str, *, tmpfs: bool) -> None:
        """Mount `source` (a path in the container; ignored for a tmpfs) on the directory `target`.

        Under a bidirectional mount the host sees it too: what the source holds is copied out
        to the host directory (files and directories, as they are at mount time)."""
        key = self.abspath(target)
        if not self.is_dir(key):
            raise FileError(NO_SUCH if not self.exists(key) else NOT_DIR)
        source_path = ""
        if not tmpfs:
            source_path = self.abspath(source)
            if not self.exists(source_path):
                raise FileError(NO_SUCH)
        if tmpfs:
            self._dirs.add(TMPFS + key)
        self._binds[key] = source_path
        mounted = self._mount(key)
        if mounted is not None and mounted[0].propagation == BIDIRECTIONAL:
            self._shown[key] = self._copy_out(key, mounted[1])

    def unmount(self, target: str) -> None:
        path = posixpath.normpath(posixpath.join(self.spec.working_dir or "/", target))
        parent = posixpath.dirname(path)
        key = posixpath.join(self._through_binds(parent) if self._binds else parent, posixpath.basename(path))
        if key not in self._binds:
            raise FileError("Invalid argument")
        del self._binds[key]
        self._dirs = {d for d in self._dirs if not (d == TMPFS + key or d.startswith(TMPFS + key + "/"))}
        for p in [p for p in self._files if p.startswith(TMPFS + key + "/")]:
            del self._files[p]
        for shown in reversed(self._shown.pop(key, [])):
            try:
                self.host.remove(shown)
            except HostError:
                pass

    def mounts_made_inside(self) -> list[tuple[str, str]]:
        """(source, target) of each mount made in the container, in order ("tmpfs" as a tmpfs's source)."""
        return [(src or "tmpfs", target) for target, src in self._binds.items()]

    def _copy_out(self, key: str, host_dir: str) -> list[str]:
        """Copy what `key` now shows into `host_dir`, skipping names already there; the host paths made."""
        made: list[str] = []
        pending = [(key, host_dir)]
        while pending and len(made) < SHOWN_LIMIT:
            inside, outside = pending.pop()
            try:
                names = self.listdir(inside)
            except FileError:
                continue
            for name in names:
                if len(made) >= SHOWN_LIMIT:
                    break
                src, dst = posixpath.join(inside, name), posixpath.join(outside, name)
                if exists(self.host, dst):
                    continue
                try:
                    if self.is_dir(src):
                        self.host.mkdir(dst)
                        pending.append((src, dst))
                    else:
                        self.host.write(dst, self.read(src))
                except (HostError, FileError):
                    continue
                made.append(dst)
        return made
