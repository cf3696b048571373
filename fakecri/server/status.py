"""The one table from core errors to gRPC status codes."""
from __future__ import annotations

import grpc

from fakecri.core import errors

CODES: dict[type[errors.CoreError], grpc.StatusCode] = {
    errors.NotFound: grpc.StatusCode.NOT_FOUND,
    errors.AlreadyExists: grpc.StatusCode.ALREADY_EXISTS,
    errors.FailedPrecondition: grpc.StatusCode.FAILED_PRECONDITION,
    errors.InvalidArgument: grpc.StatusCode.INVALID_ARGUMENT,
    errors.ResourceExhausted: grpc.StatusCode.RESOURCE_EXHAUSTED,
    errors.Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    errors.PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
    errors.Unavailable: grpc.StatusCode.UNAVAILABLE,
    errors.DeadlineExceeded: grpc.StatusCode.DEADLINE_EXCEEDED,
}

BY_NAME: dict[str, grpc.StatusCode] = {code.name: code for code in grpc.StatusCode}


def code_for(exc: errors.CoreError) -> grpc.StatusCode:
    code = CODES.get(type(exc))
    if code is None:
        # errors.Other carries a code picked at run time (faults).
        code = BY_NAME.get(exc.code, grpc.StatusCode.UNKNOWN)
    return code

