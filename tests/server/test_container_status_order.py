"""Sandbox statuses and events list a sandbox's containers newest first.

A kubelet with the EventedPLEG gate on copies PodSandboxStatus.containers_statuses into
its pod cache as given and takes the first status with a container's name as that
container's latest attempt. Oldest first, it restarts attempt 1 again and again
(AlreadyExists); the `oldest-first-container-statuses` quirk shows that on purpose.
"""
from __future__ import annotations

import time

from helpers.cri import EventCollector, container_config, sandbox_config

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.runtime.v1 import api_pb2 as pb


def _three_attempts(rt, img):
    """A sandbox with attempts 0, 1, 2 of container `c`, the first two exited."""
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    cfg = sandbox_config("order")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ids = []
    for attempt in range(3):
        cid = rt.CreateContainer(pb.CreateContainerRequest(
            pod_sandbox_id=sid, sandbox_config=cfg,
            config=container_config("c", command=["sleep", "3600"], attempt=attempt))).container_id
        rt.StartContainer(pb.StartContainerRequest(container_id=cid))
        if attempt < 2:
            rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
        ids.append(cid)
    return sid, ids


def _subscribe(srv):
    sub = EventCollector("unix:" + srv.config.socket)
    deadline = time.monotonic() + 5
    while srv.call(lambda: len(srv.node.bus.subscribers)) < 1:
        assert time.monotonic() < deadline, "the event subscriber never registered"
        time.sleep(0.01)
    return sub


def _three_attempts_watched(srv, rt, img):
    """`_three_attempts` with a subscriber: (sandbox id, container ids, the events it saw)."""
    sub = _subscribe(srv)
    try:
        sid, ids = _three_attempts(rt, img)
        events = sub.wait_for(1 + 3 * 2 + 2, timeout=5)  # sandbox, 3 created+started, 2 stopped
    finally:
        sub.close()
    return sid, ids, events


def _attempts(statuses):
    return [s.metadata.attempt for s in statuses]


def test_sandbox_status_lists_newest_attempt_first(rt, img):
    sid, ids = _three_attempts(rt, img)
    resp = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid))
    assert resp.timestamp > 0
    assert _attempts(resp.containers_statuses) == [2, 1, 0]
    assert [s.id for s in resp.containers_statuses] == ids[::-1]
    # The first status named `c` is the running attempt, which is what a kubelet looks for.
    first = next(s for s in resp.containers_statuses if s.metadata.name == "c")
    assert first.state == pb.CONTAINER_RUNNING


def test_events_list_newest_attempt_first(srv, rt, img):
    sid, ids, events = _three_attempts_watched(srv, rt, img)
    last_created = [e for e in events if e.container_event_type == pb.CONTAINER_CREATED_EVENT
                    and e.container_id == ids[2]][0]
    assert _attempts(last_created.containers_statuses) == [2, 1, 0]


def test_oldest_first_quirk_restores_creation_order(srv, rt, img, ctl):
    ctl.AddFault(cpb.AddFaultRequest(fault=cpb.Fault(type="quirk", attributes={
        "name": "oldest-first-container-statuses"})))
    sid, ids, events = _three_attempts_watched(srv, rt, img)
    resp = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid))
    assert _attempts(resp.containers_statuses) == [0, 1, 2]
    assert _attempts(events[-1].containers_statuses) == [0, 1, 2]
    ctl.ResetFaults(cpb.ResetFaultsRequest())
    resp = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid))
    assert _attempts(resp.containers_statuses) == [2, 1, 0]
