"""The mounts containers made on the host's side: a tmpfs mounted inside a container under a
BIDIRECTIONAL (rshared) CRI mount propagates to the host path, and from there to every
container whose mount of that host path receives propagation.

fakecri mounts nothing for real. Such a tmpfs keeps its files in the host directory it is
mounted on, so the host and every container reading that directory see them at once; this
table, one per node, says the directory is a tmpfs mount point, since when, and what it held
before (left there at `umount`, when everything the tmpfs gained is removed). What a
container sees of an entry is decided by its own mount (userland/inside_mounts.py): a
private one started before the mount does not see it; one started after it does (the rbind
copies the host's submounts); HOST_TO_CONTAINER and BIDIRECTIONAL ones see it whenever.
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


@dataclass(frozen=True, slots=True)
class SharedMount:
    """A tmpfs on the host's side at host path `point`."""

    point: str
    source: str  # /proc/mounts' first field: the name given to `mount -t tmpfs NAME DIR`
    options: str  # the options given with -o (rw/ro left out)
    before: frozenset[str]  # the names the directory held when it was mounted over


class SharedMounts:
    """The node's mounts on the host's side, by host path, in the order they were made."""

    def __init__(self) -> None:
        self._mounts: list[SharedMount] = []
        self._points: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self._mounts)

    def clear(self) -> None:
        """Forget them all (a reset of the node; the files stay where they are)."""
        self._mounts.clear()
        self._points = frozenset()

    def add(self, mount: SharedMount) -> None:
        self._mounts.append(mount)
        self._points = self._points | {mount.point}

    def remove(self, point: str) -> SharedMount | None:
        """Take away the last mount on `point` (None: nothing mounted there)."""
        for i in range(len(self._mounts) - 1, -1, -1):
            if self._mounts[i].point == point:
                gone = self._mounts.pop(i)
                self._points = frozenset(m.point for m in self._mounts)
                return gone
        return None

    def points(self) -> frozenset[str]:
        """The host paths mounted over now (the same object until the table changes)."""
        return self._points

    def at(self, point: str) -> SharedMount | None:
        """The last mount on `point`."""
        for m in reversed(self._mounts):
            if m.point == point:
                return m
        return None

    def under(self, root: str) -> list[SharedMount]:
        """The mounts at or below host path `root`, in the order they were made."""
        root = posixpath.normpath(root)
        return [m for m in self._mounts if within(m.point, root)]

    def holding(self, path: str) -> SharedMount | None:
        """The mount the host path `path` lies on (the deepest; None: none of these)."""
        if not self._mounts:
            return None
        best: SharedMount | None = None
        for m in self._mounts:
            if within(path, m.point) and (best is None or len(m.point) >= len(best.point)):
                best = m
        return best
