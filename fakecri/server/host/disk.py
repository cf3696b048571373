"""The directories fakecri owns on the host, so the filesystem mountpoints it reports exist.

A kubelet stats every mountpoint that ImageFsInfo and ContainerStats name (through
cAdvisor, for capacity and the device), and answers /stats/summary with 500 while one
is missing. The core speaks of logical places under /var/lib/fakecri; this maps each to
a real directory under the server's state root and creates it on first use.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from fakecri.server.exceptions import SettingError

LOGICAL_ROOT = "/var/lib/fakecri"


def usable_root(path: str | os.PathLike[str]) -> Path:
    """`path` as a root directory fakecri may use: an existing directory, or one it makes,
    that this user can write in. ValueError saying why not otherwise."""
    root = Path(path)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ValueError(f"{root} exists and is not a directory") from None
    except OSError as exc:
        raise ValueError(f"cannot create the directory {root}: {exc.strerror or exc}") from None
    if not os.access(root, os.W_OK | os.X_OK):
        raise ValueError(f"{root} is not writable by this user (uid {os.getuid()})")
    return root


def default_root() -> Path:
    """/var/lib/fakecri when this process may create it (as containerd uses /var/lib/containerd),
    else a directory of this user's under the temp dir."""
    system = Path(LOGICAL_ROOT)
    try:
        system.mkdir(parents=True, exist_ok=True)
        if os.access(system, os.W_OK | os.X_OK):
            return system
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / f"fakecri-{os.getuid()}"


class DiskRoot:
    """Real directories standing for the core's logical mountpoints."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        """A root that cannot be used stops start-up (SettingError naming state_root)."""
        if not root:
            self.root = default_root()
            return
        try:
            self.root = usable_root(root)
        except ValueError as exc:
            raise SettingError("state_root", str(exc)) from None

    def place(self, logical: str) -> str:
        """The existing directory for `logical` (a path under /var/lib/fakecri), made if absent."""
        rel = os.path.relpath(logical, LOGICAL_ROOT) if logical.startswith(LOGICAL_ROOT + "/") else logical.strip("/")
        path = self.root / rel
        if not path.is_dir():
            path.mkdir(parents=True, exist_ok=True)
        return str(path)
