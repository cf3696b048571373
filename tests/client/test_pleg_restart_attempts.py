"""The legacy Evented PLEG model picks a container's next attempt as a kubelet 1.36 does.

The kubelet takes the first cached status with a container's name as its latest. Event
statuses it sorts newest first; PodSandboxStatus's list (when the response has a
timestamp) it takes as given, and right after each pod sync it refreshes the cache from
it. On a runtime that lists oldest first, the refresh after starting attempt 1 shows
attempt 0 (exited) first, so the next sync asks for attempt 1 again: AlreadyExists, over
and over. That is what a real kubelet did against fakecri before it listed newest first.
"""
from __future__ import annotations

import pytest
from helpers.live import IMAGE, Pods, fakecri, wait_for

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient
from fakecri.client.errors import AlreadyExistsError
from fakecri.client.pleg import LegacyEventedPLEG
from fakecri.client.pleg.pod_sync import find_status_by_name, next_attempt
from fakecri.faults.model import Fault


def _quirk(name):
    return Fault(name=name, type="quirk", attributes={"name": name})


def _container(client, sid, attempt, command):
    cid = client.create_container(sid, pb.ContainerConfig(
        metadata=pb.ContainerMetadata(name="c", attempt=attempt), image=pb.ImageSpec(image=IMAGE),
        command=list(command)))
    client.start_container(cid)
    return cid


def _after_first_restart(client):
    """Attempt 0 crashed, the sync started attempt 1; returns the model after its refresh."""
    sid = Pods(client).run("u1")
    a0 = _container(client, sid, 0, ["sh", "-c", "exit 7"])
    assert wait_for(lambda: client.container_status(a0).status.state == pb.CONTAINER_EXITED)
    pleg = LegacyEventedPLEG(client)  # not started: the test drives each step
    assert pleg.update_cache("u1")
    assert next_attempt(pleg.cache.get("u1").status, "c") == 1
    a1 = _container(client, sid, 1, ["sleep", "3600"])
    assert pleg.update_cache("u1")  # the kubelet's refresh right after the sync
    return pleg, sid, a1


def test_newest_first_statuses_leave_the_running_attempt_alone():
    with fakecri() as server, CRIClient(server.endpoint, timeout=10) as client:
        pleg, _, a1 = _after_first_restart(client)
        status = pleg.cache.get("u1").status
        assert status.runtime_timestamp > 0
        assert find_status_by_name(status, "c").id == a1
        assert next_attempt(status, "c") is None


def test_oldest_first_statuses_make_the_model_recreate_attempt_one():
    with fakecri([_quirk("oldest-first-container-statuses")]) as server, \
            CRIClient(server.endpoint, timeout=10) as client:
        pleg, sid, a1 = _after_first_restart(client)
        status = pleg.cache.get("u1").status
        assert [s.metadata.attempt for s in status.container_statuses] == [0, 1]  # as the runtime gave them
        assert next_attempt(status, "c") == 1, "the kubelet takes the exited attempt 0 for the latest"
        with pytest.raises(AlreadyExistsError):
            _container(client, sid, 1, ["sleep", "3600"])


def test_a_timestamp_with_no_statuses_reads_as_no_containers():
    # containerd 2.0.0-2.0.2 set the timestamp alone; a kubelet then sees no containers at all.
    with fakecri([_quirk("timestamp-without-statuses")]) as server, CRIClient(server.endpoint, timeout=10) as client:
        sid = Pods(client).run("u1")
        _container(client, sid, 0, ["sleep", "3600"])
        pleg = LegacyEventedPLEG(client)
        assert pleg.update_cache("u1")
        status = pleg.cache.get("u1").status
        assert status.runtime_timestamp > 0 and status.container_statuses == []
        assert next_attempt(status, "c") == 0


def test_event_statuses_are_sorted_newest_first():
    pleg = LegacyEventedPLEG(CRIClient("unix:///nonexistent.sock"), now=lambda: 500)
    event = pb.ContainerEventResponse(container_id="a1", container_event_type=pb.CONTAINER_STARTED_EVENT,
                                      created_at=300)
    event.pod_sandbox_status.CopyFrom(pb.PodSandboxStatus(
        id="s1", metadata=pb.PodSandboxMetadata(name="p", namespace="ns", uid="u1"), state=pb.SANDBOX_READY))
    event.containers_statuses.extend([
        pb.ContainerStatus(id="a0", metadata=pb.ContainerMetadata(name="c", attempt=0), created_at=100,
                           state=pb.CONTAINER_EXITED),
        pb.ContainerStatus(id="a1", metadata=pb.ContainerMetadata(name="c", attempt=1), created_at=200,
                           state=pb.CONTAINER_RUNNING),
    ])
    pleg.handle_event(event)
    status = pleg.cache.get("u1").status
    assert [s.id for s in status.container_statuses] == ["a1", "a0"]
    assert next_attempt(status, "c") is None
