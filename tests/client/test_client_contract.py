"""CRIClient against a minimal scriptable CRI server on a real unix socket."""
import threading

import grpc
import pytest
from helpers.cri_stub import StubRuntime, StubServer

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import (
    CRIClient,
    DeadlineExceededError,
    EventStreamClosed,
    NotFoundError,
    UnavailableError,
    UnimplementedError,
)


def container(i: int, size: int = 0) -> pb.Container:
    return pb.Container(
        id=f"c{i}", pod_sandbox_id="s1", metadata=pb.ContainerMetadata(name=f"n{i}"),
        state=pb.CONTAINER_RUNNING, annotations={"blob": "x" * size} if size else {},
    )


@pytest.fixture
def stub():
    servicer = StubRuntime()
    servicer.containers = [container(i) for i in range(5)]
    with StubServer(servicer) as server:
        with CRIClient(server.endpoint, timeout=5) as client:
            yield servicer, client


def test_unary_calls_and_error_types(stub):
    servicer, client = stub
    assert client.version().runtime_name == "stub"
    with pytest.raises(NotFoundError) as info:
        client.container_status("nope")
    assert info.value.code is grpc.StatusCode.NOT_FOUND and "nope" in str(info.value)
    with pytest.raises(UnimplementedError):
        client.status()


def test_streaming_list_collects_every_item(stub):
    servicer, client = stub
    got = client.list_containers(streaming=True)
    assert [c.id for c in got] == [f"c{i}" for i in range(5)]
    assert servicer.calls == ["StreamContainers"]


def test_unimplemented_stream_falls_back_to_unary_and_is_remembered(stub):
    servicer, client = stub
    servicer.stream_containers = False
    first = client.list_containers(streaming=True)
    second = client.list_containers(streaming=True)
    assert [c.id for c in first] == [c.id for c in second] == [f"c{i}" for i in range(5)]
    assert servicer.calls == ["StreamContainers", "ListContainers", "ListContainers"]
    assert client.unimplemented_streams == {"StreamContainers"}


def test_partial_stream_is_discarded_not_returned(stub):
    servicer, client = stub
    servicer.fail_stream_after = 2
    with pytest.raises(UnavailableError) as info:
        client.list_containers(streaming=True)
    assert info.value.method == "StreamContainers"
    assert servicer.calls == ["StreamContainers"]  # no silent fallback after a failure


def test_per_call_timeout_raises_deadline_exceeded():
    servicer = StubRuntime()
    servicer.sleep_version = 1.0
    with StubServer(servicer) as server, CRIClient(server.endpoint, timeout=0.2) as client:
        with pytest.raises(DeadlineExceededError):
            client.version()


def test_messages_up_to_16_mib_are_received(stub):
    servicer, client = stub
    servicer.containers = [container(0, size=6 * 1024 * 1024)]
    got = client.list_containers()
    assert len(got[0].annotations["blob"]) == 6 * 1024 * 1024


def event(i: int) -> pb.ContainerEventResponse:
    return pb.ContainerEventResponse(container_id=f"c{i}", container_event_type=pb.CONTAINER_STARTED_EVENT,
                                     created_at=i)


@pytest.mark.parametrize("end", [grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNIMPLEMENTED])
def test_every_stream_end_is_a_failure(stub, end):
    servicer, client = stub
    servicer.events = [event(1), event(2)]
    servicer.event_end = end
    connected = []
    stream = client.get_container_events(on_connected=lambda: connected.append(True))
    got = []
    with pytest.raises(EventStreamClosed) as info:
        for ev in stream:
            got.append(ev.container_id)
    assert got == ["c1", "c2"]
    assert info.value.code is end
    assert connected == [True]


def test_cancel_ends_the_iteration_quietly(stub):
    servicer, client = stub
    servicer.events = [event(1)]
    servicer.event_hold.clear()
    stream = client.get_container_events()
    assert next(stream).container_id == "c1"
    threading.Timer(0.1, stream.cancel).start()
    assert list(stream) == []
    assert stream.cancelled


def test_watcher_reports_a_clean_close_as_an_error(stub):
    servicer, client = stub
    servicer.events = [event(1)]
    seen, errors = [], []
    watcher = client.watch_container_events(seen.append, on_error=errors.append)
    assert watcher.done.wait(5)
    watcher.stop()
    assert [e.container_id for e in seen] == ["c1"]
    assert isinstance(watcher.error, EventStreamClosed) and errors == [watcher.error]
    assert watcher.error.code is grpc.StatusCode.OK


def test_watcher_stop_is_quiet_and_joins(stub):
    servicer, client = stub
    servicer.event_hold.clear()
    errors = []
    watcher = client.watch_container_events(lambda e: None, on_error=errors.append)
    assert servicer_called(servicer, "GetContainerEvents")
    watcher.stop()
    assert watcher.done.is_set() and watcher.error is None and errors == []


def servicer_called(servicer, name, timeout=5.0):
    done = threading.Event()
    for _ in range(int(timeout / 0.02)):
        if name in servicer.calls:
            return True
        done.wait(0.02)
    return False


def test_events_from_a_dead_endpoint_fail_fast(tmp_path):
    path = str(tmp_path / "none.sock")
    with CRIClient("unix://" + path, timeout=2) as client:
        with pytest.raises(UnavailableError) as info:
            client.get_container_events(connect_timeout=2)
        assert info.value.method == "GetContainerEvents"
        with pytest.raises(UnavailableError):
            client.version()
