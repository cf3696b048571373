"""An exclusive lock on a file beside what it guards, so two fakecri processes never share
a socket path or a state file. The lock is taken without waiting: held, or refused."""
from __future__ import annotations

import fcntl
import os


class LockFile:
    """`path` is created if missing (mode 0600) and locked with flock; the lock ends with
    `release()` or with the process."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> bool:
        """Take the lock: False when another process holds it. OSError when the file
        cannot be opened or created."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
