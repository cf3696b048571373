"""CRIClient against fakecri on a real socket."""
import grpc
import pytest
from helpers.live import Pods, fakecri, wait_for

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient, EventStreamClosed, NotFoundError


def test_lifecycle_lists_and_errors():
    with fakecri() as server, CRIClient(server.endpoint, timeout=10) as client:
        assert client.version().runtime_api_version == "v1"
        pods = Pods(client)
        sid = pods.run("u1")
        cid = pods.container(sid, "app")
        assert client.container_status(cid).status.state == pb.CONTAINER_RUNNING
        assert client.pod_sandbox_status(sid).status.metadata.uid == "u1"
        for name in ("list_pod_sandbox", "list_containers", "list_images"):
            unary = [m.id for m in getattr(client, name)()]
            streamed = [m.id for m in getattr(client, name)(streaming=True)]
            assert sorted(unary) == sorted(streamed) and unary
        assert [c.id for c in client.list_containers({"pod_sandbox_id": sid})] == [cid]
        with pytest.raises(NotFoundError):
            client.container_status("no-such-container")
        client.stop_container(cid, timeout=0)
        client.remove_container(cid)
        client.stop_pod_sandbox(sid)
        client.remove_pod_sandbox(sid)
        client.remove_container(cid)  # idempotent
        assert client.list_pod_sandbox() == []


def test_events_arrive_in_order_and_server_stop_is_a_failure():
    with fakecri() as server, CRIClient(server.endpoint, timeout=10) as client:
        pods = Pods(client)
        seen, errors = [], []
        watcher = client.watch_container_events(seen.append, on_error=errors.append)
        for i in range(20):  # the subscription is live once an event for a warm-up pod arrives
            warm = pods.run(f"warm{i}")
            if wait_for(lambda warm=warm: any(e.container_id == warm for e in seen), timeout=0.5):
                break
        seen.clear()
        sid = pods.run("u1")
        cid = pods.container(sid, "app", command=["sh", "-c", "exit 3"])
        assert wait_for(lambda: any(e.container_event_type == pb.CONTAINER_STOPPED_EVENT for e in seen))
        kinds = [(e.container_id, e.container_event_type) for e in seen if e.container_id in (sid, cid)]
        assert kinds[:2] == [(sid, pb.CONTAINER_CREATED_EVENT), (sid, pb.CONTAINER_STARTED_EVENT)]
        assert kinds[2:] == [(cid, pb.CONTAINER_CREATED_EVENT), (cid, pb.CONTAINER_STARTED_EVENT),
                             (cid, pb.CONTAINER_STOPPED_EVENT)]
        stopped = next(e for e in seen
                       if e.container_id == cid and e.container_event_type == pb.CONTAINER_STOPPED_EVENT)
        assert stopped.pod_sandbox_status.metadata.uid == "u1"
        assert [c.exit_code for c in stopped.containers_statuses if c.id == cid] == [3]
        server.stop()
        assert watcher.done.wait(10)
        assert isinstance(watcher.error, EventStreamClosed) and errors == [watcher.error]
        assert watcher.error.code is not grpc.StatusCode.CANCELLED
        watcher.stop()
