"""Mounts as a container sees them beyond its config: those it makes inside itself (`mount
--bind`, `mount -t tmpfs`, `umount`), and those the host makes under its CRI mounts; the part
of its userland that keeps them, mixed into `Userland`.

A bind shows its source at the target for the container's later commands; a tmpfs is an
empty in-memory directory. Such a mount is the container's own: the host does not see it,
except under a bidirectional CRI mount, where what the source shows is copied into the
host directory at mount time and taken away again at `umount`. Under a private CRI mount,
what the host mounts after the container started stays unseen (`_hidden`).
"""
from __future__ import annotations

import abc
import posixpath

from fakecri.engine.specs import BIDIRECTIONAL, PRIVATE, Mount
from fakecri.sim.host_view import HostError, HostView, exists

TMPFS = "\0tmpfs"  # where a tmpfs mounted inside keeps its files (no path a command can name)
SHOWN_LIMIT = 1000  # entries a bidirectional mount copies out to the host at most


class FileError(Exception):
    """A file operation that fails; `reason` as the C library words it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


NO_SUCH = "No such file or directory"
NOT_DIR = "Not a directory"


class MountsInside(abc.ABC):
    host: HostView
    _binds: dict[str, str]  # target -> source path ("" for a tmpfs)
    _tmpfs_options: dict[str, str]  # target -> the options a tmpfs was mounted with
    _shown: dict[str, list[str]]  # target -> host paths a bidirectional mount copied out
    _dirs: set[str]
    _files: dict[str, bytes]
    _mounts_at_start: frozenset[str] | None
    _since: tuple[frozenset[str], frozenset[str]] | None  # (table, its points new since start)

    @abc.abstractmethod
    def abspath(self, path: str) -> str: ...

    @abc.abstractmethod
    def container_path(self, path: str) -> str: ...

    @abc.abstractmethod
    def is_dir(self, path: str) -> bool: ...

    @abc.abstractmethod
    def exists(self, path: str) -> bool: ...

    @abc.abstractmethod
    def listdir(self, path: str) -> list[str]: ...

    @abc.abstractmethod
    def read(self, path: str) -> bytes: ...

    @abc.abstractmethod
    def _mount(self, path: str) -> tuple[Mount, str] | None: ...

    def _on_submount(self, root: str, path: str) -> bool:
        """Whether host `path` lies on another file system mounted under `root` (a non-recursive
        read-only mount leaves those writable)."""
        probe = path
        while probe not in ("", "/") and len(probe) > len(root):
            try:
                self.host.stat(probe, follow=False)
                break
            except HostError:
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

    def mount(self, source: str, target: str, *, tmpfs: bool, options: str = "") -> None:
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
            self._tmpfs_options[key] = options
        self._binds[key] = source_path
        mounted = self._mount(key)
        if mounted is not None and mounted[0].propagation == BIDIRECTIONAL:
            self._shown[key] = self._copy_out(key, mounted[1])

    def unmount(self, target: str) -> None:
        path = self.container_path(target)
        parent = posixpath.dirname(path)
        key = posixpath.join(self._through_binds(parent) if self._binds else parent, posixpath.basename(path))
        if key not in self._binds:
            raise FileError("Invalid argument")
        del self._binds[key]
        self._tmpfs_options.pop(key, None)
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

    def tmpfs_options(self, target: str) -> str:
        """The options a tmpfs mounted inside at `target` was given ("" for none)."""
        return self._tmpfs_options.get(target, "")

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
