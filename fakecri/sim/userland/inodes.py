"""Inodes of a container's in-memory files (numbers, names, times, modes, owners), mixed into `Userland`.

Every in-memory path (file, directory, symlink, generated file) has an inode number of its own,
given the first time something asks for it, so `[ a -ef b ]`, `stat -c %i` and `find -inum` tell
files apart. A hard link (`link(2)`, busybox `ln` without -s) gives a file a second name: the names
share one inode, so they share its bytes, mode and owner, and a write through one is seen through
every other; the link count (`stat -c %h`, `ls -l`) is the number of names, and a file lives on
while one of them does. On a mounted (host) path the link is made on the host. As the kernel
refuses: a directory (EPERM), an existing name (EEXIST), two file systems (EXDEV).

Each in-memory entry keeps when it last changed (its mtime, on the node's clock): a write, `touch`,
`mkdir`, a new link. `chmod` and `chown` change an inode's mode and owner, under every name.

`rename` (busybox `mv`, and `sed -i`'s backup) moves a name, and everything under a directory,
within the in-memory layer, keeping the inode; elsewhere (a mount, a generated file) the caller
copies and removes, as busybox's `mv` does across file systems.
"""
from __future__ import annotations

import abc
from collections.abc import Callable, Iterable
from typing import TypeVar

from fakecri.engine.specs import Mount
from fakecri.sim.host_view import HostError, HostView
from fakecri.sim.userland.fs import SETGID, STICKY, FileStat, W, Who, X, disk_id, may
from fakecri.sim.userland.inside_mounts import NO_SUCH, FileError
from fakecri.sim.userland.privilege import Privilege
from fakecri.sim.userland.spec import UserlandSpec

FIRST_INODE = 1000  # the numbers in-memory files get, counted up from here
EXISTS = "File exists"
NOT_PERMITTED = "Operation not permitted"
CROSS_DEVICE = "Invalid cross-device link"
T = TypeVar("T")


def _move(table: dict[str, T], src: str, moved: Callable[[str], str]) -> None:
    prefix = src.rstrip("/") + "/"
    for k in [k for k in table if k == src or k.startswith(prefix)]:
        table[moved(k)] = table.pop(k)


class Inodes(abc.ABC):
    host: HostView
    _files: dict[str, bytes]
    _links: dict[str, str]
    _meta: dict[str, tuple[int, int, int]]
    _inodes: dict[str, int]  # in-memory path -> its inode number
    _names: dict[str, list[str]]  # a path with more names -> all of them (one list, shared by each)
    _dirs: set[str]
    _mtimes: dict[str, int]  # in-memory path -> when it last changed (ns since the epoch)
    now: Callable[[], int]  # the node's clock
    uid: int
    spec: UserlandSpec

    @property
    @abc.abstractmethod
    def privilege(self) -> Privilege: ...

    @property
    @abc.abstractmethod
    def who(self) -> Who: ...

    @abc.abstractmethod
    def resolve(self, path: str, *, follow: bool = True) -> str: ...

    @abc.abstractmethod
    def _node(self, p: str) -> FileStat | None: ...

    @abc.abstractmethod
    def _mount(self, path: str) -> tuple[Mount, str] | None: ...

    @abc.abstractmethod
    def _writable(self, path: str) -> tuple[Mount, str] | None: ...

    @abc.abstractmethod
    def _creatable(self, p: str) -> FileStat: ...

    @abc.abstractmethod
    def _file_system(self, p: str) -> str: ...

    @abc.abstractmethod
    def read(self, path: str) -> bytes: ...

    def inode_of(self, p: str) -> int:
        number = self._inodes.get(p)
        if number is None:
            number = self._inodes[p] = FIRST_INODE + len(self._inodes)
        return number

    def dir_links(self, p: str) -> int:
        """A directory's link count: its name, its `.`, and each subdirectory's `..`."""
        prefix = p.rstrip("/") + "/"
        return 2 + sum(1 for d in self._dirs if d.startswith(prefix) and d != p and "/" not in d[len(prefix):])

    def names_of(self, p: str) -> list[str]:
        """Every name of the in-memory file at resolved path `p` (itself alone when it has one)."""
        return self._names.get(p) or [p]

    def _store(self, p: str, data: bytes) -> None:
        """The in-memory file at `p` holds `data` now, under each of its names."""
        now = self.now()
        for name in self.names_of(p):
            self._files[name] = data
            self._mtimes[name] = now

    def mtime_of(self, p: str) -> int:
        """When the in-memory entry at `p` last changed (0: it came with the image)."""
        return self._mtimes.get(p, 0)

    def _touched(self, p: str, when_ns: int | None = None) -> None:
        now = self.now() if when_ns is None else when_ns
        for name in self.names_of(p):
            self._mtimes[name] = now

    def _set_meta(self, p: str, meta: tuple[int, int, int]) -> None:
        for name in self.names_of(p):
            self._meta[name] = meta

    def _forget(self, gone: Iterable[str]) -> None:
        """Names removed from the in-memory layer: each other name of their files stays."""
        for p in gone:
            self._inodes.pop(p, None)
            self._mtimes.pop(p, None)
            names = self._names.pop(p, None)
            if names is not None:
                names.remove(p)
                if len(names) == 1:
                    del self._names[names[0]]

    def link(self, existing: str, new: str) -> None:
        """link(2): `new` becomes another name of the file at `existing` (a final symlink not followed)."""
        src = self.resolve(existing, follow=False)
        node = self._node(src)
        if node is None:
            raise FileError(NO_SUCH)
        dst = self.resolve(new, follow=False)
        if self._node(dst) is not None:
            raise FileError(EXISTS)
        if node.kind == "dir":
            raise FileError(NOT_PERMITTED)
        mounted = self._writable(dst)
        self._creatable(dst)
        if self._file_system(src) != self._file_system(dst):
            raise FileError(CROSS_DEVICE)
        if mounted is not None:
            source = self._mount(src)
            try:
                self.host.link(source[1] if source is not None else src, mounted[1])
            except HostError as exc:
                raise FileError(exc.reason) from None
            return
        if node.kind == "link":
            self._links[dst] = self._links[src]
        else:
            self._files[src] = self._files[src] if src in self._files else self.read(existing)
            self._files[dst] = self._files[src]
        names = self._names.get(src)
        if names is None:
            names = self._names[src] = [src]
        names.append(dst)
        self._names[dst] = names
        self._inodes[dst] = self.inode_of(src)
        if src in self._mtimes:
            self._mtimes[dst] = self._mtimes[src]
        if src in self._meta:
            self._meta[dst] = self._meta[src]

    def rename(self, old: str, new: str) -> bool:
        """rename(2) of an in-memory name to a free one on the same file system (False: not so, the
        caller copies and removes)."""
        src = self.resolve(old, follow=False)
        dst = self.resolve(new, follow=False)
        if src not in self._files and src not in self._links and src not in self._dirs:
            return False
        if self._mount(src) or self._mount(dst) or self._file_system(src) != self._file_system(dst):
            return False
        if self._node(dst) is not None:
            raise FileError(EXISTS)
        if dst.startswith(src.rstrip("/") + "/"):
            raise FileError("Invalid argument")
        self._writable(src)
        self._writable(dst)
        self._creatable(dst)
        node = self._node(src)
        parent = self._node(src.rsplit("/", 1)[0] or "/")
        if node is not None and parent is not None:
            if not may(self.who, parent, W | X):
                raise FileError("Permission denied")
            if parent.mode & STICKY and self.uid not in (node.uid, parent.uid) and not self.who.has("FOWNER"):
                raise FileError(NOT_PERMITTED)
        prefix = src.rstrip("/") + "/"

        def moved(k: str) -> str:
            return dst + k[len(src):]

        _move(self._files, src, moved)
        _move(self._links, src, moved)
        _move(self._meta, src, moved)
        _move(self._inodes, src, moved)
        _move(self._mtimes, src, moved)
        for k in [k for k in self._names if k == src or k.startswith(prefix)]:
            names = self._names.pop(k)
            names[names.index(k)] = moved(k)
            self._names[moved(k)] = names
        self._dirs = {moved(d) if d == src or d.startswith(prefix) else d for d in self._dirs}
        return True

    def chmod(self, path: str, mode: int) -> None:
        p = self.resolve(path)
        node = self._node(p)
        if node is None:
            raise FileError(NO_SUCH)
        if not self.privilege.allows("chmod") or (node.uid != self.uid and not self.who.has("FOWNER")):
            raise FileError(NOT_PERMITTED)
        mounted = self._writable(p)
        if mode & SETGID and node.gid not in self.who.gids and not self.who.has("FSETID"):
            mode &= ~SETGID  # the kernel drops setgid for a group the caller is not in
        if mounted is None:
            self._set_meta(p, (mode & 0o7777, node.uid, node.gid))
            return
        try:
            self.host.chmod(mounted[1], mode & 0o7777)
        except HostError as exc:
            raise FileError(exc.reason) from None

    def chown(self, path: str, uid: int, gid: int, *, follow: bool = True) -> None:
        """Change the owner (-1: keep) of `path`: with CAP_CHOWN, or the owner to a group of its own."""
        p = self.resolve(path, follow=follow)
        node = self._node(p)
        if node is None:
            raise FileError(NO_SUCH)
        if not self.who.has("CHOWN") and not (node.uid == self.uid and uid in (-1, node.uid)
                                              and (gid == -1 or gid in self.who.gids)):
            raise FileError(NOT_PERMITTED)
        mounted = self._writable(p)
        uid = node.uid if uid == -1 else uid
        gid = node.gid if gid == -1 else gid
        if mounted is None:
            mode = node.mode if node.kind == "dir" else node.mode & ~0o6000
            self._set_meta(p, (mode, uid, gid))
            return
        try:
            m = mounted[0]
            self.host.chown(mounted[1], disk_id(uid, m.uid_mappings, self.spec.uid_map),
                            disk_id(gid, m.gid_mappings, self.spec.gid_map))
        except HostError as exc:
            raise FileError(exc.reason) from None
