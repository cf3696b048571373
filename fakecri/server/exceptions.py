"""Errors the server raises to its owner (the CLI, the pytest plugin, a test), not to RPC callers.

RPC callers get gRPC status codes from the core's errors (fakecri.core.errors, mapped in
status.py); these are for whoever starts, checks or persists a server.
"""
from __future__ import annotations


class StartupError(Exception):
    """The server cannot start; the message says why and what to do."""


class ServerErrors(AssertionError):
    """Raised by FakeCRIServer.check(): a handler raised inside the server."""


class StateFileError(StartupError):
    """The state file cannot be used; start-up stops and the file is left as it is."""


class StateWriteError(OSError):
    """A snapshot could not be written; the RPC that made the change fails instead of answering OK."""
