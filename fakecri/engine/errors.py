"""Errors the core raises. Each class carries the gRPC status name the server answers
with; the server's table (server/codec/status.py) and `from_code` are derived from `KINDS`.

Every message names the object it is about, so a caller can tell what went wrong
without reading server logs.
"""
from __future__ import annotations


class CoreError(Exception):
    """Base class. `code` is the gRPC status name the server will answer with."""

    code = "UNKNOWN"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(CoreError):
    code = "NOT_FOUND"


class AlreadyExists(CoreError):
    code = "ALREADY_EXISTS"


class FailedPrecondition(CoreError):
    code = "FAILED_PRECONDITION"


class InvalidArgument(CoreError):
    code = "INVALID_ARGUMENT"


class ResourceExhausted(CoreError):
    code = "RESOURCE_EXHAUSTED"


class Unauthenticated(CoreError):
    code = "UNAUTHENTICATED"


class Other(CoreError):
    """An error with a code chosen at run time (an injected fault, a cut stream)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# gRPC status name -> the class that carries it; every fixed-code class, found by walking
# the subclasses so a new class is listed the moment it is defined here.
KINDS: dict[str, type[CoreError]] = {cls.code: cls for cls in CoreError.__subclasses__() if cls is not Other}


def from_code(code: str, message: str) -> CoreError:
    """Build the error for a gRPC code name, e.g. from a fault's attributes."""
    cls = KINDS.get(code)
    return cls(message) if cls is not None else Other(code, message)
