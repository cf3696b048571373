"""Errors of the server: the three only it answers RPC callers with, and those it raises to
its owner (the CLI, the pytest plugin, a test).

RPC callers get gRPC status codes from the core's errors (fakecri.engine.errors, mapped in
codec/status.py). The engine never waits, never goes down and never touches the host, so
`Unavailable` (a restart, a state file that cannot be written), `DeadlineExceeded` (a wait
that ran out) and `PermissionDenied` (a host path outside --host-root) are the server's own.
The rest are for whoever starts, checks or persists a server.
"""
from __future__ import annotations

from fakecri.engine.errors import CoreError


class Unavailable(CoreError):
    code = "UNAVAILABLE"


class DeadlineExceeded(CoreError):
    code = "DEADLINE_EXCEEDED"


class PermissionDenied(CoreError):
    code = "PERMISSION_DENIED"


class StartupError(Exception):
    """The server cannot start; the message says why and what to do."""


class SettingError(StartupError):
    """Start-up failed because of the value of one setting (`setting`, a ServerConfig field
    name): a socket directory that cannot be made, an address that cannot be bound, ..."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(message)
        self.setting = setting
        self.message = message


class ServerErrors(AssertionError):
    """Raised by FakeCRIServer.check(): a handler raised inside the server."""


class StateFileError(StartupError):
    """The state file cannot be used; start-up stops and the file is left as it is."""


class StateFilePathError(SettingError, StateFileError):
    """The state file's path cannot be used (no such directory, not a file, no permission)."""

    def __init__(self, message: str) -> None:
        super().__init__("state_file", message)


class StateWriteError(OSError):
    """A snapshot could not be written (errno, message naming the file): the node undoes the change
    and the RPC that made it fails instead of answering OK."""
