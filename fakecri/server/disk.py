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

LOGICAL_ROOT = "/var/lib/fakecri"


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

    def __init__(self, root: str | os.PathLike | None = None) -> None:
        self.root = Path(root) if root else default_root()

    def place(self, logical: str) -> str:
        """The existing directory for `logical` (a path under /var/lib/fakecri), made if absent."""
        rel = os.path.relpath(logical, LOGICAL_ROOT) if logical.startswith(LOGICAL_ROOT + "/") else logical.strip("/")
        path = self.root / rel
        if not path.is_dir():
            path.mkdir(parents=True, exist_ok=True)
        return str(path)
