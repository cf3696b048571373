"""Unix sockets a server owns: refusing a path that is not a socket or is served already,
creating a missing parent directory, the lock beside each socket, the mode and group."""
from __future__ import annotations

import os
import socket
import stat

from fakecri.server.exceptions import SettingError, StartupError
from fakecri.server.host.lock_file import LockFile

UNIX_PATH_MAX = 107
# A node farm's own socket in its --socket-dir (Farm service, routed Control, health).
FARM_SOCKET = "farm.sock"


class SocketGuard:
    """Refuses paths that are not sockets and a second live server on the same path."""

    def __init__(self, path: str, setting: str) -> None:
        self.path = path
        self.setting = setting  # the ServerConfig field the path came from, for errors
        self.created_dir: str | None = None  # the directory made for the socket, if it was missing
        self._lock = LockFile(path + ".lock")

    def acquire(self) -> None:
        path = self.path
        if len(path.encode()) > UNIX_PATH_MAX:
            raise SettingError(self.setting, f"socket path {path!r} is longer than {UNIX_PATH_MAX} bytes; "
                                             "choose a shorter one")
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            try:
                os.makedirs(parent)
            except OSError as exc:
                raise SettingError(self.setting, f"cannot create the directory {parent} for the socket {path}: "
                                                 f"{exc.strerror or exc}") from None
            self.created_dir = parent
        lock_path = self._lock.path
        try:
            locked = self._lock.acquire()
        except OSError as exc:
            raise SettingError(self.setting, f"cannot create {lock_path} beside the socket: "
                                             f"{exc.strerror or exc}") from None
        if not locked:
            raise StartupError(f"another fakecri is serving on {path} (lock {lock_path} is held)")
        if os.path.lexists(path):
            mode = os.lstat(path).st_mode
            if not stat.S_ISSOCK(mode):
                self.release()
                kind = "a directory" if stat.S_ISDIR(mode) else "not a socket"
                raise SettingError(self.setting, f"{path} exists and is {kind}; refusing to replace it")
            if _socket_is_live(path):
                self.release()
                raise StartupError(f"another server is listening on {path}")
            os.unlink(path)  # stale socket from a process that died

    def release(self) -> None:
        self._lock.release(remove=True)


def _socket_is_live(path: str) -> bool:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(0.5)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()




def own_socket(path: str, mode: int, gid: int | None) -> None:
    """Set the socket's mode, and its group when one is given."""
    if gid is not None:
        try:
            os.chown(path, -1, gid)
        except OSError as exc:
            raise SettingError("socket_group", f"cannot give {path} to group {gid}: {exc.strerror or exc}") \
                from None
    os.chmod(path, mode)


def remove_guarded(guard: SocketGuard) -> None:
    """Remove the socket of a guard this server holds (only a socket: a refused start must not
    remove the file or directory it found there) and let go of its lock."""
    if os.path.lexists(guard.path) and stat.S_ISSOCK(os.lstat(guard.path).st_mode):
        os.unlink(guard.path)
    guard.release()
