"""Each core error carries its gRPC code; the server's mapping and from_code follow from it."""
from __future__ import annotations

import grpc
import pytest

from fakecri.engine import errors
from fakecri.server.codec.status import code_for


@pytest.mark.parametrize("cls", sorted(errors.KINDS.values(), key=lambda c: c.code))
def test_every_error_class_maps_to_its_own_grpc_code_and_back(cls):
    err = errors.from_code(cls.code, "sandbox 'x' not found")
    assert type(err) is cls and err.message == "sandbox 'x' not found"
    assert code_for(err) == getattr(grpc.StatusCode, cls.code)


def test_every_fixed_code_class_is_listed():
    listed = set(errors.KINDS.values())
    assert {errors.NotFound, errors.AlreadyExists, errors.FailedPrecondition, errors.InvalidArgument,
            errors.ResourceExhausted, errors.Unauthenticated} == listed


def test_the_errors_only_the_server_raises_are_the_servers():
    from fakecri.server.exceptions import DeadlineExceeded, PermissionDenied, Unavailable

    for cls in (DeadlineExceeded, PermissionDenied, Unavailable):
        assert not hasattr(errors, cls.__name__)
        assert code_for(cls("x")) == getattr(grpc.StatusCode, cls.code)


def test_a_run_time_code_is_carried_by_other():
    err = errors.from_code("ABORTED", "injected")
    assert isinstance(err, errors.Other) and code_for(err) == grpc.StatusCode.ABORTED
    assert code_for(errors.Other("NO_SUCH_CODE", "x")) == grpc.StatusCode.UNKNOWN
