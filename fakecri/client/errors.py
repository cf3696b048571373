"""Exception types for CRI calls. Each carries the gRPC status code it came from."""
from __future__ import annotations

import grpc


class CRIError(Exception):
    """A CRI call failed. `code` is a grpc.StatusCode, `method` the RPC name."""

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str = "", *, code: grpc.StatusCode | None = None, method: str = "") -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.method = method
        self.details = message

    def __str__(self) -> str:
        where = f"{self.method}: " if self.method else ""
        return f"{where}{self.code.name}: {self.details}"


class NotFoundError(CRIError):
    code = grpc.StatusCode.NOT_FOUND


class AlreadyExistsError(CRIError):
    code = grpc.StatusCode.ALREADY_EXISTS


class FailedPreconditionError(CRIError):
    code = grpc.StatusCode.FAILED_PRECONDITION


class InvalidArgumentError(CRIError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class UnavailableError(CRIError):
    code = grpc.StatusCode.UNAVAILABLE


class UnimplementedError(CRIError):
    code = grpc.StatusCode.UNIMPLEMENTED


class DeadlineExceededError(CRIError):
    code = grpc.StatusCode.DEADLINE_EXCEEDED


class ResourceExhaustedError(CRIError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class PermissionDeniedError(CRIError):
    code = grpc.StatusCode.PERMISSION_DENIED


class UnauthenticatedError(CRIError):
    code = grpc.StatusCode.UNAUTHENTICATED


class CancelledError(CRIError):
    code = grpc.StatusCode.CANCELLED


class InternalError(CRIError):
    code = grpc.StatusCode.INTERNAL


class EventStreamClosed(CRIError):
    """The container event stream ended. A clean end (code OK) counts as a failure too."""


class InvalidEndpointError(ValueError):
    """The endpoint string cannot be turned into a gRPC target."""


_BY_CODE: dict[grpc.StatusCode, type[CRIError]] = {
    cls.code: cls
    for cls in (
        NotFoundError,
        AlreadyExistsError,
        FailedPreconditionError,
        InvalidArgumentError,
        UnavailableError,
        UnimplementedError,
        DeadlineExceededError,
        ResourceExhaustedError,
        PermissionDeniedError,
        UnauthenticatedError,
        CancelledError,
        InternalError,
    )
}


def error_class(code: grpc.StatusCode) -> type[CRIError]:
    """The exception class for a status code (CRIError for codes without their own class)."""
    return _BY_CODE.get(code, CRIError)


def from_rpc_error(err: grpc.RpcError, method: str = "") -> CRIError:
    """Turn a grpc.RpcError (a grpc.Call) into our exception type."""
    code_fn = getattr(err, "code", None)
    code = code_fn() if callable(code_fn) else grpc.StatusCode.UNKNOWN
    details_fn = getattr(err, "details", None)
    details = (details_fn() if callable(details_fn) else str(err)) or ""
    cls = error_class(code)
    exc = cls(details, code=code, method=method)
    exc.__cause__ = err
    return exc
