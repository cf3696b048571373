"""An exclusive lock on a file beside what it guards, so two fakecri processes never share
a socket path or a state file. The lock is taken without waiting: held, or refused.

The holder removes the file when it lets go (`release(remove=True)`), so nothing is left
beside the socket. A process that opened the file just before it was removed could then
lock a file no longer at the path; `acquire` checks that the file it locked is still the
one at the path, and starts again on a fresh one when it is not.
"""
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
        for _ in range(10):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return False
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self._fd = fd
                return True
            os.close(fd)  # the holder removed it as we locked it: lock the file now at the path
        return False

    def release(self, *, remove: bool = False) -> None:
        """Let go of the lock; with `remove`, delete the file first (only while held)."""
        if self._fd is not None:
            if remove:
                try:
                    os.unlink(self.path)
                except FileNotFoundError:
                    pass
            os.close(self._fd)
            self._fd = None
