import grpc
import pytest

from fakecri.client import errors


class FakeRpcError(grpc.RpcError):
    def __init__(self, code, details):
        self._code, self._details = code, details

    def code(self):
        return self._code

    def details(self):
        return self._details


@pytest.mark.parametrize(
    "code, cls",
    [
        (grpc.StatusCode.NOT_FOUND, errors.NotFoundError),
        (grpc.StatusCode.ALREADY_EXISTS, errors.AlreadyExistsError),
        (grpc.StatusCode.FAILED_PRECONDITION, errors.FailedPreconditionError),
        (grpc.StatusCode.INVALID_ARGUMENT, errors.InvalidArgumentError),
        (grpc.StatusCode.UNAVAILABLE, errors.UnavailableError),
        (grpc.StatusCode.UNIMPLEMENTED, errors.UnimplementedError),
        (grpc.StatusCode.DEADLINE_EXCEEDED, errors.DeadlineExceededError),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, errors.ResourceExhaustedError),
        (grpc.StatusCode.DATA_LOSS, errors.CRIError),
    ],
)
def test_codes_map_to_classes(code, cls):
    exc = errors.from_rpc_error(FakeRpcError(code, "boom"), "StartContainer")
    assert type(exc) is cls
    assert exc.code is code
    assert exc.method == "StartContainer"
    assert str(exc) == f"StartContainer: {code.name}: boom"
    assert isinstance(exc, errors.CRIError)


def test_event_stream_closed_keeps_the_code():
    exc = errors.EventStreamClosed("closed", code=grpc.StatusCode.OK, method="GetContainerEvents")
    assert exc.code is grpc.StatusCode.OK
    assert isinstance(exc, errors.CRIError)
