"""One container's simulated userland: who it runs as, its environment, and its files.

Built on the first command that needs it (nothing is built for containers nobody looks
into) from the container's `UserlandSpec`. The file view is layered: the mounts, which map
container paths to real host paths (reads and writes go to the host; a read-only mount
refuses writes), then generated files (`/etc/hostname`, `/etc/hosts`, `/proc/...`, see
generated.py), then an in-memory layer for the rest of the root filesystem (refusing writes
when it is read-only). Masked paths read as empty; read-only paths refuse writes.

Paths are resolved as the kernel resolves them in the container's mount namespace: a
symlink under a mount (the kubelet's `..data` and its per-key links) is read on the host
and followed in the container's view, so an absolute target or one that climbs out of the
mount lands in the container's own files, and each read follows the links afresh (a
`..data` the kubelet swapped is seen at once). What a file is (kind, mode, owner, size) is
the host's stat for mounted paths; the permission bits decide what the container's user
may do, as the kernel decides (root passes through CAP_DAC_OVERRIDE, unless dropped).
"""
from __future__ import annotations

import posixpath
from collections.abc import Callable

from fakecri.engine.records import Resources
from fakecri.engine.specs import NODE, Mount
from fakecri.sim.host_view import HostError, HostView, NoHost
from fakecri.sim.image_content import BUSYBOX, ImageContent
from fakecri.sim.userland.cgroupfs import Cgroup, CgroupNow, cgroup_dirs, cgroup_links, cgroup_names
from fakecri.sim.userland.devices import DEVICES, LINKS, device_read, device_stat, device_write
from fakecri.sim.userland.filesystems import statfs_of, table
from fakecri.sim.userland.fs import SETGID, STICKY, FileStat, FsStat, R, W, Who, X, disk_id, may, shown_id
from fakecri.sim.userland.generated import LISTED, generated_dirs, generated_file
from fakecri.sim.userland.identity import accounts, identity
from fakecri.sim.userland.image_volumes import image_files, image_mounts
from fakecri.sim.userland.inodes import Inodes
from fakecri.sim.userland.inside_mounts import NO_SUCH, NOT_DIR, TMPFS, FileError, MountsInside
from fakecri.sim.userland.masks import NULL_DEVICE, masked_dir, masked_file
from fakecri.sim.userland.privilege import Privilege, privilege
from fakecri.sim.userland.shared_mounts import SharedMount, SharedMounts
from fakecri.sim.userland.spec import UserlandSpec

ROOT_DIRS = ("/", "/bin", "/dev", "/dev/pts", "/dev/shm", "/dev/mqueue", "/etc", "/home", "/proc", "/proc/self",
             "/proc/1", "/proc/sys", "/proc/sysvipc", "/root", "/sys", "/sys/fs", "/sys/fs/cgroup", "/tmp", "/usr",
             "/usr/bin", "/var", "/var/run", "/var/log")
WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")  # sticky and open to everyone (mode 1777)
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
FILE_MODE, DIR_MODE = 0o644, 0o755  # what a process with umask 022 makes: files 0666, directories 0777, less it
MAX_HOPS = 40  # symlinks one lookup follows, as the kernel allows
READ_ONLY = "Read-only file system"
IS_DIR = "Is a directory"
DENIED = "Permission denied"
NOT_PERMITTED = "Operation not permitted"
EXISTS = "File exists"
BUSY = "Device or resource busy"
LOOP = "Too many levels of symbolic links"

__all__ = ["FileError", "Userland", "TMPFS", "NO_SUCH", "NOT_DIR", "READ_ONLY", "IS_DIR", "DENIED", "NOT_PERMITTED"]


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class Userland(MountsInside, Inodes):
    def __init__(self, spec: UserlandSpec, *, ip: str = "", content: ImageContent = BUSYBOX,
                 processes: Callable[[], list[tuple[int, str]]] | None = None,
                 mounts_at_start: frozenset[str] | None = None, host: HostView | None = None,
                 cgroup: Cgroup | None = None, images: Callable[[str], ImageContent] | None = None,
                 now: Callable[[], int] = lambda: 0, shared: SharedMounts | None = None) -> None:
        """`processes`: what its PID namespace shows; `mounts_at_start`: the host's mount points
        when the container started (a private mount hides what the host mounted under it
        since); `host`: what of the host its mounts and shared namespaces reach; `cgroup`: its
        cgroup as /sys/fs/cgroup shows it; `images`: an image's content by reference (image volumes);
        `now`: the node's clock (ns since the epoch), for the times files change; `shared`: the
        node's mounts on the host's side (tmpfs mounts propagated through bidirectional mounts)."""
        self.spec = spec
        self.now = now
        self.umask = 0o022  # of the process that looks now (files.world_of sets it)
        self.cgroup = cgroup if cgroup is not None else Cgroup(now=lambda: CgroupNow(
            Resources(memory_limit_in_bytes=spec.memory_limit)))  # no runtime to ask: the spec's limit
        self.host: HostView = host if host is not None else NoHost()
        # (pid, command line) its PID namespace shows, pid 1 first (the runtime knows them)
        self.processes = processes or (lambda: [(1, "sh")])
        self.ip = ip
        self.content = content
        self._mounts_at_start = mounts_at_start
        self.shared = shared if shared is not None else SharedMounts()
        self._dropped: dict[str, SharedMount] = {}
        self._since: tuple[frozenset[str], frozenset[str], frozenset[str]] | None = None
        self._binds: dict[str, str] = {}  # mounts made inside: target -> source path ("" for a tmpfs)
        self._tmpfs_options: dict[str, str] = {}
        self._tmpfs_names: dict[str, str] = {}
        self._shown: dict[str, list[str]] = {}  # target -> host paths a bidirectional mount copied out
        self._files: dict[str, bytes] = {}  # the in-memory layer of the root filesystem
        self._dirs: set[str] = set(ROOT_DIRS)
        self._links: dict[str, str] = {**cgroup_links(self.cgroup), **LINKS}  # in-memory symlinks: path -> target
        self._dirs |= cgroup_dirs(self.cgroup)
        self._image_roots: set[str] = set()
        if images is not None and image_mounts(spec.mounts):  # their files, as a read-only layer
            files, dirs, self._image_roots = image_files(spec.mounts, images)
            self._files.update(files)
            self._dirs |= dirs
        self._meta: dict[str, tuple[int, int, int]] = {}  # (mode, uid, gid) of in-memory paths made or changed
        self._removed: set[str] = set()  # generated files deleted in this container
        self._inodes: dict[str, int] = {}
        self._mtimes: dict[str, int] = {}
        self._names: dict[str, list[str]] = {}  # (inodes.py)
        self.oom_killed = False  # a process of the container went beyond its memory limit
        self._user_names = {u.id: u.name for u in accounts(content.passwd, False)}
        self._group_names = {g.id: g.name for g in accounts(content.group, True)}
        who = identity(content, run_as_user=spec.run_as_user, run_as_group=spec.run_as_group,
                       run_as_username=spec.run_as_username, supplemental_groups=spec.supplemental_groups,
                       strict=spec.strict_groups)
        self.identity = who
        self.uid, self.gid, self.user_name, self.home = who.uid, who.gid, who.user_name, who.home
        self.groups = who.groups
        # what the root filesystem needs as directories so that every mount point has a parent
        self._mount_dirs = {posixpath.dirname(posixpath.normpath(m.container_path))
                            for m in spec.mounts if m.container_path}
        for d in list(self._mount_dirs):
            while d not in ("/", ""):
                self._mount_dirs.add(d)
                d = posixpath.dirname(d)
        self._mount_dirs |= {posixpath.normpath(m.container_path) for m in spec.mounts
                             if m.container_path and not m.host_path}
        self._host_mounted = any(m.host_path for m in spec.mounts)
        self._who: Who | None = None

    # ------------------------------------------------------------ identity and environment

    @property
    def privilege(self) -> Privilege:
        spec = self.spec
        return privilege(privileged=spec.privileged, add=spec.add_capabilities, drop=spec.drop_capabilities,
                         uid=self.uid, no_new_privs=spec.no_new_privs, seccomp=spec.seccomp,
                         read_profile=self.host.read)

    @property
    def who(self) -> Who:
        """Its processes' file system ids and effective capabilities, for permission checks."""
        if self._who is None:
            spec = self.spec
            caps = privilege(privileged=spec.privileged, add=spec.add_capabilities, drop=spec.drop_capabilities,
                             uid=self.uid, no_new_privs=False, seccomp=None, read_profile=self.host.read).effective
            self._who = Who(self.uid, frozenset(self.groups), caps)
        return self._who

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

    # ------------------------------------------------------------ paths

    def container_path(self, path: str) -> str:
        """`path` made absolute from the working directory and normalized (no mount or link followed)."""
        return posixpath.normpath(posixpath.join(self.spec.working_dir or "/", path))

    def abspath(self, path: str) -> str:
        """`path` normalized as text and led through the mounts made inside (no symlink followed)."""
        if not path or path.startswith(TMPFS):  # empty, or already where a tmpfs keeps its files
            return path
        path = self.container_path(path)
        return self._through_binds(path) if self._binds else path

    def _inside(self, path: str) -> str:
        return self._through_binds(path) if self._binds else path

    def resolve(self, path: str, *, follow: bool = True) -> str:
        """Where `path` leads, its symlinks followed as the kernel follows them in the container's
        view (the final one only with `follow`); FileError when a link loops, a component is no
        directory or the user may not search one."""
        if not path:
            raise FileError(NO_SUCH)
        if path.startswith(TMPFS) or (not self._links and not self._host_mounted):
            return self.abspath(path)
        full = path if path.startswith("/") else (self.spec.working_dir or "/").rstrip("/") + "/" + path
        pending = [c for c in reversed(full.split("/")) if c and c != "."]
        cur, hops = "/", 0
        checks = not (self.who.has("DAC_OVERRIDE") or self.who.has("DAC_READ_SEARCH"))
        while pending:
            name = pending.pop()
            if name == "..":
                cur = posixpath.dirname(cur)
                continue
            cand = ("" if cur == "/" else cur) + "/" + name
            if not pending and not follow:
                cur = cand
                break
            node = self._peek(self._inside(cand))
            if node is not None and node.kind == "link":
                hops += 1
                if hops > MAX_HOPS:
                    raise FileError(LOOP)
                if node.target.startswith("/"):
                    cur = "/"
                pending.extend(c for c in reversed(node.target.split("/")) if c and c != ".")
                continue
            if pending and node is not None:
                if node.kind != "dir":
                    raise FileError(NOT_DIR)
                if checks and not may(self.who, node, X):
                    raise FileError(DENIED)
            cur = cand
        return self._inside(cur)

    def _peek(self, p: str) -> FileStat | None:
        """What is at `p` when it may be a symlink or a directory with its own mode (None: nothing,
        or a plain in-memory directory)."""
        if p in self._links or p in self._meta or p in self._files or (self._host_mounted and self._mount(p)):
            return self._node(p)
        return None

    def _mount(self, path: str) -> tuple[Mount, str] | None:
        """The mount `path` is under (the deepest one) and the host path it maps to."""
        best: Mount | None = None
        for m in self.spec.mounts:
            root = posixpath.normpath(m.container_path or "/")
            if _within(path, root) and (best is None or len(root) > len(posixpath.normpath(best.container_path))):
                best = m
        if best is None or not best.host_path:
            return None
        root = posixpath.normpath(best.container_path)
        rel = posixpath.relpath(path, root)
        return best, (best.host_path if rel == "." else posixpath.join(best.host_path, rel))

    def masked_program(self, word: str) -> bool:
        """Whether running `word` hits a masked path (the program file itself, or through PATH)."""
        if not self.spec.masked_paths:
            return False
        paths = [self.abspath(word)] if "/" in word else [f"{d}/{word}" for d in PATH.split(":")]
        return any(self._under(p, self.spec.masked_paths) for p in paths)

    def _under(self, path: str, prefixes: tuple[str, ...]) -> bool:
        return any(_within(path, p) for p in prefixes)

    def spec_mounts(self) -> tuple[Mount, ...]:
        return self.spec.mounts

    def is_mount_point(self, path: str) -> bool:
        """Whether the resolved `path` is where a CRI mount, a mount made inside or one on the
        host's side it sees sits."""
        if path in self._binds or any(posixpath.normpath(m.container_path) == path
                                      for m in self.spec.mounts if m.container_path):
            return True
        seen = self.shared_holding(path) if self.shared else None
        return seen is not None and seen[0] == path

    # ------------------------------------------------------------ what is at a path

    def _node(self, p: str) -> FileStat | None:
        """What is at the resolved path `p` itself (a symlink there not followed); None: nothing."""
        if not p:
            return None
        if self.spec.masked_paths and (masked_file(self.spec, p) or masked_dir(self.spec, p)):
            return NULL_DEVICE if masked_file(self.spec, p) else (
                FileStat("dir", DIR_MODE, 0, 0, 40, nlink=2) if masked_dir(self.spec, p) == p else None)
        mounted = self._mount(p)
        if mounted is not None:
            hidden = self._hidden(mounted)
            if hidden is not None:
                return FileStat("dir", DIR_MODE, 0, 0, 40, nlink=2) if hidden == posixpath.normpath(mounted[1]) \
                    else None
            try:
                hs = self.host.stat(mounted[1], follow=posixpath.normpath(mounted[0].container_path) == p)
                target = self.host.readlink(mounted[1]) if hs.kind == "link" else ""
            except HostError:
                return None
            m = mounted[0]
            return FileStat(hs.kind, hs.mode, shown_id(hs.uid, m.uid_mappings, self.spec.uid_map),
                            shown_id(hs.gid, m.gid_mappings, self.spec.gid_map), hs.size, hs.mtime_ns, hs.nlink,
                            hs.blocks, hs.inode, hs.device, target)
        mode, uid, gid = self._meta.get(p, (-1, 0, 0))
        if p in DEVICES and p not in self._removed:
            return device_stat(p)
        if p in self._links:
            target = self._links[p]
            return FileStat("link", 0o777, uid, gid, len(target.encode()), self.mtime_of(p),
                            nlink=len(self.names_of(p)), inode=self.inode_of(p), target=target)
        if p in self._dirs or p in self._mount_dirs or p in generated_dirs(self.spec):
            default = 0o1777 if p in WORLD_WRITABLE or p.startswith(TMPFS) and p.count("/") == 1 else DIR_MODE
            return FileStat("dir", default if mode < 0 else mode, uid, gid, 4096, self.mtime_of(p),
                            nlink=self.dir_links(p), blocks=8, inode=self.inode_of(p))
        if p in self._files:
            size = len(self._files[p])
            return FileStat("file", FILE_MODE if mode < 0 else mode, uid, gid, size, self.mtime_of(p),
                            nlink=len(self.names_of(p)), blocks=(size + 4095) // 4096 * 8, inode=self.inode_of(p))
        if p in self._removed:
            return None
        data = generated_file(self, p)
        if data is None:
            return None
        in_proc = p.startswith("/proc/")
        default = 0o444 if in_proc else FILE_MODE
        return FileStat("file", default if mode < 0 else mode, uid, gid, 0 if in_proc else len(data),
                        self.mtime_of(p), inode=self.inode_of(p))

    def stat(self, path: str, *, follow: bool = True) -> FileStat:
        """stat(2) (lstat(2) without `follow`) of `path` as the container sees it."""
        node = self._node(self.resolve(path, follow=follow))
        if node is None:
            raise FileError(NO_SUCH)
        return node

    def _safely(self, path: str, follow: bool = True) -> FileStat | None:
        try:
            return self.stat(path, follow=follow)
        except FileError:
            return None

    def is_dir(self, path: str) -> bool:
        node = self._safely(path)
        return node is not None and node.kind == "dir"

    def exists(self, path: str) -> bool:
        return self._safely(path) is not None

    def lexists(self, path: str) -> bool:
        """Whether something is at `path`, a dangling symlink included."""
        return self._safely(path, follow=False) is not None

    def may(self, path: str, want: int) -> bool:
        """Whether the container's user may read (R), write (W) or execute (X) what is at `path`."""
        node = self._safely(path)
        if node is None:
            return False
        if want & W:
            try:
                self._writable(self.resolve(path))
            except FileError:
                return False
        return may(self.who, node, want)

    def read(self, path: str) -> bytes:
        p = self.resolve(path)
        if self._under(p, self.spec.masked_paths):
            return b""
        node = self._node(p)
        if node is None:
            raise FileError(NO_SUCH)
        if node.kind == "dir":
            raise FileError(IS_DIR)
        if not may(self.who, node, R):
            raise FileError(DENIED)
        mounted = self._mount(p)
        if mounted is not None:
            try:
                return self.host.read(mounted[1])
            except HostError as exc:
                raise FileError(exc.reason) from None
        if p in self._files:
            return self._files[p]
        if p in DEVICES:
            try:
                return device_read(p, self.spec.hostname + p)
            except OSError as exc:
                raise FileError(str(exc)) from None
        return generated_file(self, p) or b""

    def readlink(self, path: str) -> str:
        node = self._node(self.resolve(path, follow=False))
        if node is None:
            raise FileError(NO_SUCH)
        if node.kind != "link":
            raise FileError("Invalid argument")
        return node.target

    def listdir(self, path: str) -> list[str]:
        p = self.resolve(path)
        node = self._node(p)
        if node is None:
            raise FileError(NO_SUCH)
        if node.kind != "dir":
            raise FileError(NOT_DIR)
        if not may(self.who, node, R):
            raise FileError(DENIED)
        if self.spec.masked_paths and masked_dir(self.spec, p):
            return []  # an empty tmpfs covers it
        mounted = self._mount(p)
        if mounted is not None:
            if self._hidden(mounted) is not None:
                return []
            try:
                return sorted(self.host.listdir(mounted[1]))
            except HostError as exc:
                raise FileError(exc.reason) from None
        names = set()
        prefix = p.rstrip("/") + "/"
        candidates = (set(self._files) | self._dirs | set(self._links) | set(DEVICES) | generated_dirs(self.spec)
                      | self._mount_dirs | {posixpath.normpath(m.container_path) for m in self.spec.mounts}
                      | set(LISTED) | {"/proc/sys/" + k for k, _ in self.spec.sysctls}
                      | (cgroup_names(self.cgroup) if p.startswith("/sys/fs/cgroup") else set()))
        for c in candidates:
            if c.startswith(prefix) and c != p and c not in self._removed:
                names.add(c[len(prefix):].split("/", 1)[0])
        return sorted(names)

    # ------------------------------------------------------------ the file systems

    def statfs(self, path: str) -> FsStat:
        """statfs(2) of the file system holding `path`, with its line of the mount table."""
        p = self.resolve(path)
        if self._node(p) is None:
            raise FileError(NO_SUCH)
        return statfs_of(self, p)

    def _file_system(self, p: str) -> str:
        """Where the file system holding the resolved path `p` is mounted."""
        return statfs_of(self, p).point

    def mount_table(self) -> list[FsStat]:
        """The container's /proc/mounts, one entry per mount, in mount order."""
        return table(self)

    def backing(self, path: str) -> tuple[Mount, str] | None:
        """The CRI mount the resolved `path` lies under and its host path (None: the container's own)."""
        return self._mount(path)

    # ------------------------------------------------------------ changes

    def _writable(self, path: str) -> tuple[Mount, str] | None:
        """Check the file system lets `path` change; the mount it is on (None: the root filesystem)."""
        if (self._under(path, self.spec.readonly_paths) or path.startswith("/proc/sys/")
                or (self.spec.masked_paths and masked_dir(self.spec, path)) or self._read_only_inside(path)):
            raise FileError(READ_ONLY)
        mounted = self._mount(path)
        if mounted is not None:
            if mounted[0].readonly and (mounted[0].recursive_read_only
                                        or not self._on_submount(mounted[0].host_path, mounted[1])):
                raise FileError(READ_ONLY)
            return mounted
        if (self.spec.readonly_rootfs and not path.startswith(TMPFS)) or (
                path.startswith("/sys/") and not self.spec.privileged) or (  # runc mounts /sys read-only
                self._image_roots and any(_within(path, root) for root in self._image_roots)):
            raise FileError(READ_ONLY)
        return None

    def _creatable(self, p: str) -> FileStat:
        """The directory a new entry `p` goes into, once the user may add to it."""
        parent = self._node(posixpath.dirname(p))
        if parent is None:
            raise FileError(NO_SUCH)
        if parent.kind != "dir":
            raise FileError(NOT_DIR)
        if not may(self.who, parent, W | X):
            raise FileError(DENIED)
        return parent

    def _made(self, p: str, mounted: tuple[Mount, str] | None, mode: int, parent: FileStat, *, is_dir: bool) -> None:
        """Give a new entry the owner and mode the kernel gives it: the user's uid, the directory's
        group when the directory is setgid (a directory inherits the setgid bit), else the user's."""
        gid = parent.gid if parent.mode & SETGID else self.gid
        if is_dir and parent.mode & SETGID:
            mode |= SETGID
        if mounted is None:
            self._meta[p] = (mode, self.uid, gid)
            return
        try:  # the owner first: a chown clears the setuid and setgid bits of a file
            m = mounted[0]
            self.host.chown(mounted[1], disk_id(self.uid, m.uid_mappings, self.spec.uid_map),
                            disk_id(gid, m.gid_mappings, self.spec.gid_map))
        except HostError:
            pass  # fakecri may not give files away (it is not root): the host shows its own ids
        try:
            self.host.chmod(mounted[1], mode)
        except HostError:
            pass

    def write(self, path: str, data: bytes, *, append: bool = False, mode: int | None = None) -> None:
        """Write (or append to) the file at `path`; a new one gets `mode` (its creator's umask applied;
        None: 0666 less the umask of the process that looks now)."""
        p = self.resolve(path)
        node = self._node(p)
        if node is not None and node.kind == "dir":
            raise FileError(IS_DIR)
        mounted = self._writable(p)
        if (self.spec.masked_paths and masked_file(self.spec, p)) or (p in DEVICES and p not in self._removed):
            if p in DEVICES and data and device_write(p):
                raise FileError(device_write(p))
            return  # /dev/null takes it
        parent = None
        if node is None:
            parent = self._creatable(p)
        elif not may(self.who, node, W):
            raise FileError(DENIED)
        if mounted is not None:
            try:
                self.host.write(mounted[1], data, append=append)
            except HostError as exc:
                raise FileError(exc.reason) from None
        else:
            old = self._files.get(p, generated_file(self, p) or b"") if append and node is not None else b""
            self._store(p, old + data)
            self._removed.discard(p)
        if parent is not None:
            self._made(p, mounted, 0o666 & ~self.umask if mode is None else mode, parent, is_dir=False)

    def touch(self, path: str, when_ns: int | None = None) -> None:
        """Make `path` (empty) or mark it changed now, or at `when_ns` (touch -d/-t/-r)."""
        node = self._safely(path)
        if node is None:
            self.write(path, b"")
            if when_ns is None:
                return
            node = self._safely(path)
        p = self.resolve(path)
        mounted = self._writable(p)
        if node is not None and node.uid != self.uid and not may(self.who, node, W) \
                and not self.who.has("FOWNER"):
            raise FileError(DENIED)
        if mounted is None:
            self._touched(p, when_ns)
        elif when_ns is not None:
            try:
                self.host.set_mtime(mounted[1], when_ns)
            except HostError as exc:
                raise FileError(exc.reason) from None

    def mkdir(self, path: str, parents: bool = False, mode: int | None = None) -> None:
        if self.lexists(path):
            if parents and self.is_dir(path):
                return
            raise FileError(EXISTS)
        whole = self.container_path(path)
        if parents and not self.is_dir(posixpath.dirname(whole)):
            self.mkdir(posixpath.dirname(whole), parents=True)
        p = self.resolve(path, follow=False)
        mounted = self._writable(p)
        parent = self._creatable(p)
        if mounted is not None:
            try:
                self.host.mkdir(mounted[1])
            except HostError as exc:
                raise FileError(exc.reason) from None
        else:
            self._dirs.add(p)
            self._touched(p)
        self._made(p, mounted, 0o777 & ~self.umask if mode is None else mode, parent, is_dir=True)

    def symlink(self, target: str, path: str) -> None:
        """Make `path` a symlink to `target` (kept as written: it is resolved when followed)."""
        p = self.resolve(path, follow=False)
        if self._node(p) is not None:
            raise FileError(EXISTS)
        mounted = self._writable(p)
        parent = self._creatable(p)
        if mounted is None:
            self._links[p] = target
            self._touched(p)
            self._meta[p] = (0o777, self.uid, parent.gid if parent.mode & SETGID else self.gid)
            return
        try:
            self.host.symlink(target, mounted[1])
        except HostError as exc:
            raise FileError(exc.reason) from None

    def remove(self, path: str, recursive: bool = False) -> None:
        p = self.resolve(path, follow=False)
        node = self._node(p)
        if node is None:
            raise FileError(NO_SUCH)
        if node.kind == "dir" and not recursive:
            raise FileError(IS_DIR)
        mounted = self._writable(p)
        parent = self._node(posixpath.dirname(p))
        if parent is not None and p != "/":
            if not may(self.who, parent, W | X):
                raise FileError(DENIED)
            if parent.mode & STICKY and self.uid not in (node.uid, parent.uid) and not self.who.has("FOWNER"):
                raise FileError(NOT_PERMITTED)
        if self.is_mount_point(p) or p == "/":  # what is under it goes; the mount point itself stays
            for name in self.listdir(p) if node.kind == "dir" else ():
                self.remove(posixpath.join(p, name), recursive=True)
            raise FileError(BUSY)
        if mounted is not None:
            try:
                self.host.remove(mounted[1])
            except HostError as exc:
                raise FileError(exc.reason) from None
            return
        prefix = p.rstrip("/") + "/"
        for d in (self._files, self._links, self._meta):
            for k in [k for k in d if k == p or k.startswith(prefix)]:
                del d[k]
        self._forget([k for k in self._inodes if k == p or k.startswith(prefix)])
        self._dirs = {d for d in self._dirs if not _within(d, p)}
        if p in DEVICES or generated_file(self, p) is not None:
            self._removed.add(p)
