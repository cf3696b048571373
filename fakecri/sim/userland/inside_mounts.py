"""Mounts as a container sees them beyond its config: those it makes inside itself (`mount
--bind`, `mount -t tmpfs`, `umount`), and those the host makes under its CRI mounts; the part
of its userland that keeps them, mixed into `Userland`.

A bind shows its source at the target for the container's later commands; a tmpfs is an
empty in-memory directory. Such a mount is the container's own: the host does not see it,
except under a bidirectional CRI mount. There a tmpfs propagates to the host's side (the
node's SharedMounts: its files live in the host directory, so the host and every container
sharing that path see them), and a bind's source is copied into the host directory at
mount time and taken away again at `umount`. Under a private CRI mount, what the host (or
another container, through the host) mounts after the container started stays unseen
(`_hidden`); a propagated mount the container unmounts goes from its own view only.
"""
from __future__ import annotations

import abc
import posixpath

from fakecri.engine.specs import BIDIRECTIONAL, PRIVATE, Mount
from fakecri.sim.host_view import HostError, HostView, exists
from fakecri.sim.userland.shared_mounts import SharedMount, SharedMounts, within
from fakecri.sim.userland.tmpfs_options import read_only

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
    shared: SharedMounts  # the node's mounts on the host's side
    _dropped: dict[str, SharedMount]  # host path -> the propagated mount there this container unmounted
    _binds: dict[str, str]  # target -> source path ("" for a tmpfs)
    _tmpfs_options: dict[str, str]  # target -> the options a tmpfs was mounted with
    _tmpfs_names: dict[str, str]  # target -> the name a tmpfs was mounted with
    _shown: dict[str, list[str]]  # target -> host paths a bidirectional mount copied out
    _dirs: set[str]
    _files: dict[str, bytes]
    _mounts_at_start: frozenset[str] | None
    # (host table, shared points, the points of both new since start)
    _since: tuple[frozenset[str], frozenset[str], frozenset[str]] | None

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
        root = posixpath.normpath(root)
        if self.shared:
            held = self.shared.holding(path)
            if held is not None and held.point != root and within(held.point, root):
                return True
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

    def _new_points(self, mount: Mount) -> frozenset[str] | set[str]:
        """The host mount points the container does not see through `mount`: for a private
        mount, those made after its start; and those it unmounted for itself."""
        dropped = {p for p, m in self._dropped.items() if self.shared.at(p) is m} if self._dropped else set()
        if mount.propagation != PRIVATE or self._mounts_at_start is None:
            return dropped
        host_now, shared_now = self.host.mount_points(), self.shared.points()
        if self._since is None or self._since[0] is not host_now or self._since[1] is not shared_now:
            self._since = (host_now, shared_now, (host_now | shared_now) - self._mounts_at_start)
        new = self._since[2]
        return new | dropped if dropped else new

    def _hidden(self, mounted: tuple[Mount, str] | None) -> str | None:
        """The outermost host directory on the way to `mounted`'s host path that was mounted
        over where the container does not see it (a private mount's later mounts; one it
        unmounted for itself): the container still sees the directory underneath (shown empty,
        as a mount point usually is)."""
        if mounted is None:
            return None
        new = self._new_points(mounted[0])
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

    def _seen_at(self, mount: Mount, shared: SharedMount) -> str | None:
        """Where the container sees the host's mount `shared` through its `mount` (None: not)."""
        root = posixpath.normpath(mount.host_path)
        if not mount.container_path or not within(shared.point, root):
            return None
        if self._hidden((mount, shared.point)) is not None:
            return None
        point = posixpath.normpath(mount.container_path)
        rest = shared.point[len(root):] if root != "/" else shared.point
        return posixpath.normpath(point + "/" + rest.lstrip("/")) if rest.strip("/") else point

    def shared_seen(self) -> list[tuple[str, SharedMount, bool]]:
        """(container path, mount, read-only) of each mount on the host's side the container
        sees through its CRI mounts, in mount order; a recursive read-only mount makes them
        read-only."""
        if not self.shared:
            return []
        out = []
        for m in self.spec_mounts():
            if not m.host_path:
                continue
            for sm in self.shared.under(m.host_path):
                point = self._seen_at(m, sm)
                if point is not None:
                    out.append((point, sm, m.readonly and m.recursive_read_only))
        return out

    def shared_holding(self, path: str) -> tuple[str, SharedMount, bool] | None:
        """The mount on the host's side the resolved container path `path` lies on, as
        `shared_seen` gives it (None: none)."""
        if not self.shared:
            return None
        mounted = self._mount(path)
        if mounted is None:
            return None
        held = self.shared.holding(posixpath.normpath(mounted[1]))
        if held is None:
            return None
        m = mounted[0]
        point = self._seen_at(m, held)
        return None if point is None else (point, held, m.readonly and m.recursive_read_only)

    @abc.abstractmethod
    def spec_mounts(self) -> tuple[Mount, ...]: ...

    def _read_only_inside(self, path: str) -> bool:
        """Whether the resolved `path` lies on a tmpfs mounted read-only, inside or on the host's
        side (or made read-only by the recursive read-only mount it is seen through)."""
        if path.startswith(TMPFS):
            inner = path[len(TMPFS):]
            target = max((t for t in self._tmpfs_options if within(inner, t)), key=len, default=None)
            return target is not None and read_only(self._tmpfs_options[target])
        seen = self.shared_holding(path) if self.shared else None
        return seen is not None and (seen[2] or read_only(seen[1].options))

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
        """Mount `source` (a path in the container; for a tmpfs, its name) on the directory `target`;
        a tmpfs's `options` as given (ro among them makes it read-only).

        Under a bidirectional mount the host sees it too: a tmpfs goes to the node's mounts on
        the host's side; what a bind's source holds is copied out to the host directory (files
        and directories, as they are at mount time)."""
        key = self.abspath(target)
        if not self.is_dir(key):
            raise FileError(NO_SUCH if not self.exists(key) else NOT_DIR)
        source_path = ""
        if not tmpfs:
            source_path = self.abspath(source)
            if not self.exists(source_path):
                raise FileError(NO_SUCH)
        mounted = self._mount(key)
        if mounted is not None and mounted[0].propagation == BIDIRECTIONAL:
            host_dir = posixpath.normpath(mounted[1])
            if tmpfs:
                try:
                    before = frozenset(self.host.listdir(host_dir))
                except HostError as exc:
                    raise FileError(exc.reason) from None
                self.shared.add(SharedMount(host_dir, source or "tmpfs", options, before))
                return
            self._binds[key] = source_path
            self._shown[key] = self._copy_out(key, mounted[1])
            return
        if tmpfs:
            self._dirs.add(TMPFS + key)
            self._tmpfs_options[key] = options
            self._tmpfs_names[key] = source or "tmpfs"
        self._binds[key] = source_path

    def unmount(self, target: str) -> None:
        path = self.container_path(target)
        if not self.exists(path):
            raise FileError(NO_SUCH)
        parent = posixpath.dirname(path)
        key = posixpath.join(self._through_binds(parent) if self._binds else parent, posixpath.basename(path))
        if key not in self._binds:
            self._unmount_shared(key)
            return
        del self._binds[key]
        self._tmpfs_options.pop(key, None)
        self._tmpfs_names.pop(key, None)
        self._dirs = {d for d in self._dirs if not (d == TMPFS + key or d.startswith(TMPFS + key + "/"))}
        for p in [p for p in self._files if p.startswith(TMPFS + key + "/")]:
            del self._files[p]
        for shown in reversed(self._shown.pop(key, [])):
            try:
                self.host.remove(shown)
            except HostError:
                pass

    def _unmount_shared(self, key: str) -> None:
        """Unmount a mount on the host's side the container sees at `key`: through a
        bidirectional mount, for the host and everyone (what the tmpfs gained goes); otherwise
        from the container's own view."""
        seen = self.shared_holding(key) if self.shared else None
        if seen is None or seen[0] != key:
            raise FileError("Invalid argument")
        mounted = self._mount(key)
        assert mounted is not None
        shared = seen[1]
        if mounted[0].propagation != BIDIRECTIONAL:
            self._dropped[shared.point] = shared  # (a later mount there propagates again)
            return
        self.shared.remove(shared.point)
        try:
            names = self.host.listdir(shared.point)
        except HostError:
            return
        for name in names:
            if name not in shared.before:
                try:
                    self.host.remove(posixpath.join(shared.point, name))
                except HostError:
                    pass

    def mounts_made_inside(self) -> list[tuple[str, str]]:
        """(source, target) of each mount made in the container, in order ("tmpfs" as a tmpfs's source)."""
        return [(src or "tmpfs", target) for target, src in self._binds.items()]

    def tmpfs_options(self, target: str) -> str:
        """The options a tmpfs mounted inside at `target` was given ("" for none)."""
        return self._tmpfs_options.get(target, "")

    def tmpfs_name(self, target: str) -> str:
        """The name a tmpfs mounted inside at `target` was given (its /proc/mounts source)."""
        return self._tmpfs_names.get(target, "tmpfs")

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
