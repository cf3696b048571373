"""Every fault type and quirk doing what it says, over a real socket."""
from __future__ import annotations

import time

import grpc
import pytest
from helpers.cri import EventCollector, kinds, run_pod, sandbox_config, wait_subscribers

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.control_client import ControlClient
from fakecri.faults.model import Fault
from fakecri.server.process.app import FakeCRIServer


def stubs(server):
    ch = grpc.insecure_channel("unix:" + server.config.socket)
    return ch, api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)


def add(ctl, **fault):
    attrs = {k: str(v) for k, v in fault.pop("attributes", {}).items()}
    return ctl.AddFault(cpb.AddFaultRequest(fault=cpb.Fault(attributes=attrs, **fault)))


# ------------------------------------------------------------ RPC faults


def test_error_before_leaves_state_untouched(rt, ctl):
    add(ctl, type="error", target="RunPodSandbox", attributes={"code": "UNAVAILABLE", "message": "boom"}, count=1)
    with pytest.raises(grpc.RpcError) as info:
        rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("e1")))
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE and "boom" in info.value.details()
    assert list(rt.ListPodSandbox(pb.ListPodSandboxRequest()).items) == []
    rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("e1")))  # count=1: gone now
    assert ctl.ListFaults(cpb.ListFaultsRequest()).faults == []


def test_error_after_changes_state_but_loses_the_reply(rt, ctl):
    add(ctl, type="error", target="RunPodSandbox", stage="after", attributes={"code": "DEADLINE_EXCEEDED"})
    with pytest.raises(grpc.RpcError) as info:
        rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("lost")))
    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert [s.metadata.name for s in rt.ListPodSandbox(pb.ListPodSandboxRequest()).items] == ["lost"]


def test_latency_and_hang(rt, ctl):
    add(ctl, type="latency", target="Version", attributes={"delay": "300ms"})
    t0 = time.monotonic()
    rt.Version(pb.VersionRequest())
    assert time.monotonic() - t0 >= 0.29
    add(ctl, type="hang", target="Status")
    with pytest.raises(grpc.RpcError) as info:
        rt.Status(pb.StatusRequest(), timeout=0.3)
    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


def test_fault_list_remove_reset_and_logs(rt, ctl):
    f = add(ctl, type="error", target="Version", attributes={"code": "INTERNAL"}, toxicity=1.0)
    assert [x.name for x in ctl.ListFaults(cpb.ListFaultsRequest()).faults] == [f.name]
    with pytest.raises(grpc.RpcError):
        rt.Version(pb.VersionRequest())
    log = ctl.GetFaultLog(cpb.GetFaultLogRequest()).records
    assert [r.fault for r in log] == [f.name]
    calls = ctl.GetCallLog(cpb.GetCallLogRequest()).calls
    assert [(c.method, c.code) for c in calls][-1] == ("Version", "INTERNAL")
    ctl.RemoveFault(cpb.RemoveFaultRequest(name=f.name))
    rt.Version(pb.VersionRequest())
    with pytest.raises(grpc.RpcError) as info:
        ctl.RemoveFault(cpb.RemoveFaultRequest(name=f.name))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    add(ctl, type="latency", target="Version", attributes={"delay": "1s"})
    ctl.ResetFaults(cpb.ResetFaultsRequest())
    assert ctl.ListFaults(cpb.ListFaultsRequest()).faults == []


def test_bad_fault_is_invalid_argument(ctl):
    for bad in (cpb.Fault(type="nonsense"), cpb.Fault(type="error", target="NoSuchMethod"),
                cpb.Fault(type="latency", attributes={"delay": "soon"})):
        with pytest.raises(grpc.RpcError) as info:
            ctl.AddFault(cpb.AddFaultRequest(fault=bad))
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, bad


def test_conditions(rt, ctl):
    ctl.SetCondition(cpb.SetConditionRequest(type="NetworkReady", status=False, reason="NetworkPluginNotReady",
                                             message="cni config uninitialized", duration_seconds=0.4))
    conds = {c.type: c for c in rt.Status(pb.StatusRequest()).status.conditions}
    assert not conds["NetworkReady"].status and conds["NetworkReady"].reason == "NetworkPluginNotReady"
    assert conds["RuntimeReady"].status
    time.sleep(0.5)
    conds = {c.type: c for c in rt.Status(pb.StatusRequest()).status.conditions}
    assert conds["NetworkReady"].status


def test_image_pull_errors(img, ctl):
    add(ctl, type="pull_error", target="*private*", attributes={"reason": "auth"})
    with pytest.raises(grpc.RpcError) as info:
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="registry.example/private/app:1")))
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="registry.example/public/app:1")))


# ------------------------------------------------------------ restarts


@pytest.mark.parametrize("wipe", [False, True])
def test_runtime_restart_keeps_or_wipes_state(srv, rt, img, ctl, wipe):
    sid, cid = run_pod(rt, img, "survivor")
    sub = EventCollector("unix:" + srv.config.socket)
    try:
        wait_subscribers(srv, 1)
        ctl.RestartRuntime(cpb.RestartRuntimeRequest(downtime_seconds=0.5, wipe_state=wipe))
        assert sub.ended.wait(5) and sub.error.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        sub.close()
    with pytest.raises(grpc.RpcError) as info:
        rt.Version(pb.VersionRequest())
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    time.sleep(0.6)
    names = [c.id for c in rt.ListContainers(pb.ListContainersRequest()).containers]
    assert names == ([] if wipe else [cid])
    if not wipe:
        st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
        assert st.state == pb.CONTAINER_RUNNING  # "kept running" like a shim would
    assert img.ImageStatus(pb.ImageStatusRequest(image=pb.ImageSpec(image="busybox"))).image.id


def test_restart_at_the_nth_create_container(rt, img, ctl):
    add(ctl, type="restart", target="CreateContainer", attributes={"at": "2", "downtime": "200ms"})
    run_pod(rt, img, "first")
    with pytest.raises(grpc.RpcError) as info:
        run_pod(rt, img, "second")
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    time.sleep(0.3)
    rt.Version(pb.VersionRequest())


# ------------------------------------------------------------ event faults


def _churn(rt, img, pods):
    for i in range(pods):
        sid, cid = run_pod(rt, img, f"churn-{i}")
        rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))


def test_drop_events_5_percent_over_2000_events():
    """`--drop-events 5%` drops close to 5%: within a binomial bound, not an exact count."""
    from fakecri.faults.spec import parse_drop_events

    with FakeCRIServer(seed=11, faults=[parse_drop_events("5%")]) as server:
        ch, rt, img = stubs(server)
        sub = EventCollector("unix:" + server.config.socket)
        try:
            wait_subscribers(server, 1)
            _churn(rt, img, 250)  # 8 events per pod
            emitted = server.call(lambda: server.node.counters["events_emitted"])
            time.sleep(0.5)
            received = len(sub.events)
        finally:
            sub.close()
            ch.close()
    assert emitted == 2000
    dropped = emitted - received
    # mean 100, sd ~9.7: allow ±4.5 sd
    assert 56 <= dropped <= 144, dropped


def test_same_seed_same_fault_decisions():
    def run():
        faults = [Fault(type="error", target="Version", toxicity=0.3, attributes={"code": "UNAVAILABLE"})]
        with FakeCRIServer(seed=42, faults=faults) as server:
            ch, rt, _ = stubs(server)
            outcome = []
            for _ in range(60):
                try:
                    rt.Version(pb.VersionRequest())
                    outcome.append("ok")
                except grpc.RpcError as exc:
                    outcome.append(exc.code().name)
            ch.close()
            return outcome

    first, second = run(), run()
    assert first == second
    assert 5 <= first.count("UNAVAILABLE") <= 35


@pytest.mark.parametrize("fault,check", [
    ({"type": "duplicate_events"}, "duplicated"),
    ({"type": "reorder_events", "attributes": {"window": "3"}, "toxicity": 0.5}, "reordered"),
    ({"type": "cut_stream", "attributes": {"after": "3", "code": "UNAVAILABLE"}}, "cut"),
    ({"type": "cut_stream", "attributes": {"after": "2", "code": "OK"}}, "cut-ok"),
    ({"type": "delay_events", "attributes": {"delay": "50ms"}}, "delayed"),
])
def test_event_faults(srv, rt, img, ctl, fault, check):
    add(ctl, **fault)
    sub = EventCollector("unix:" + srv.config.socket)
    try:
        wait_subscribers(srv, 1)
        t0 = time.monotonic()
        _churn(rt, img, 3)
        events = sub.wait_for(48 if check == "duplicated" else 24, timeout=5)
        elapsed = time.monotonic() - t0
    finally:
        sub.close()
    keys = [(e.container_id, e.container_event_type) for e in events]
    if check == "duplicated":
        assert len(keys) == 48 and len(set(keys)) == 24
    elif check == "reordered":
        assert sorted(keys) == sorted(set(keys)) and len(keys) == 24
        created = [e.created_at for e in events]
        assert created != sorted(created), "nothing was reordered"
    elif check == "cut":
        assert len(events) == 3 and sub.error.code() == grpc.StatusCode.UNAVAILABLE
    elif check == "cut-ok":
        assert len(events) == 2 and sub.ended.is_set() and sub.error is None
    elif check == "delayed":
        assert len(keys) == 24 and elapsed >= 0.05


def test_stale_replay_to_a_new_subscriber(srv, rt, img, ctl):
    _churn(rt, img, 1)
    add(ctl, type="stale_replay")
    sub = EventCollector("unix:" + srv.config.socket)
    try:
        events = sub.wait_for(8)
    finally:
        sub.close()
    assert len(events) == 8 and kinds(events)[0][0] == "CONTAINER_CREATED_EVENT"


# ------------------------------------------------------------ quirks


def _pod_events(srv, rt, img, command=None):
    sub = EventCollector("unix:" + srv.config.socket)
    try:
        wait_subscribers(srv, 1)
        sid, cid = run_pod(rt, img, "quirky", command=command)
        rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
        events = sub.wait_for(8, timeout=3)
    finally:
        sub.close()
    return sid, cid, events


def quirk(ctl, name):
    add(ctl, type="quirk", attributes={"name": name})


def test_quirk_no_sandbox_deleted_event(srv, rt, img, ctl):
    quirk(ctl, "no-sandbox-deleted-event")
    sid, cid, events = _pod_events(srv, rt, img)
    assert ("CONTAINER_DELETED_EVENT", sid[:8]) not in kinds(events)
    assert ("CONTAINER_DELETED_EVENT", cid[:8]) in kinds(events)


def test_quirk_nil_sandbox_status_on_delete(srv, rt, img, ctl):
    quirk(ctl, "nil-sandbox-status-on-delete")
    sid, cid, events = _pod_events(srv, rt, img)
    last = events[-1]
    assert last.container_id == sid and last.container_event_type == pb.CONTAINER_DELETED_EVENT
    assert not last.HasField("pod_sandbox_status")


def test_quirk_stopped_before_started(srv, rt, img, ctl):
    quirk(ctl, "stopped-before-started")
    sid, cid, events = _pod_events(srv, rt, img, command=["sh", "-c", "exit 0"])
    mine = [k for k, c in kinds(events) if c == cid[:8]]
    assert mine[:3] == ["CONTAINER_CREATED_EVENT", "CONTAINER_STOPPED_EVENT", "CONTAINER_STARTED_EVENT"]


def test_quirk_created_at_seconds(srv, rt, img, ctl):
    quirk(ctl, "created-at-seconds")
    _, _, events = _pod_events(srv, rt, img)
    assert all(e.created_at < 10**11 for e in events)


def test_quirk_timestamp_without_statuses(rt, img, ctl):
    quirk(ctl, "timestamp-without-statuses")
    sid, cid = run_pod(rt, img, "tsq")
    resp = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid))
    assert resp.timestamp > 0 and list(resp.containers_statuses) == []
    ctl.ResetFaults(cpb.ResetFaultsRequest())
    resp = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid))
    assert [c.id for c in resp.containers_statuses] == [cid]


def test_quirk_pod_wide_container_statuses(rt, img, ctl):
    quirk(ctl, "pod-wide-container-statuses")
    uid = "same-uid"
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    from helpers.cri import container_config

    ids = []
    for attempt in (0, 1):
        sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("p", uid=uid,
                                                                             attempt=attempt))).pod_sandbox_id
        ids.append(rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid,
                                                                config=container_config())).container_id)
    resp = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid))
    assert sorted(c.id for c in resp.containers_statuses) == sorted(ids)


def test_quirk_resize_not_applied(rt, img, ctl):
    quirk(ctl, "resize-not-applied")
    sid, cid = run_pod(rt, img, "resizeq")
    rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(
        container_id=cid, linux=pb.LinuxContainerResources(cpu_shares=999)))
    st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert st.resources.linux.cpu_shares != 999


# ------------------------------------------------------------ control-plane exits and the fake clock


def test_control_exit_and_oom_go_through_the_event_path(srv, rt, img, ctl):
    sid, cid = run_pod(rt, img, "oom")
    sub = EventCollector("unix:" + srv.config.socket)
    try:
        wait_subscribers(srv, 1)
        ctl.ExitContainer(cpb.ExitContainerRequest(container_id=cid, exit_code=137, reason="OOMKilled"))
        events = sub.wait_for(1)
    finally:
        sub.close()
    assert kinds(events) == [("CONTAINER_STOPPED_EVENT", cid[:8])]
    st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert (st.exit_code, st.reason) == (137, "OOMKilled")
    with pytest.raises(grpc.RpcError) as info:
        ctl.ExitContainer(cpb.ExitContainerRequest(container_id=cid, exit_code=1))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_fake_clock_drives_scripted_exits():
    with FakeCRIServer(fake_clock=True) as server:
        ch, rt, img = stubs(server)
        sid, cid = run_pod(rt, img, "timed", command=["sleep", "30"])
        with ControlClient(server.endpoint) as c:
            c.advance_clock(29)
            assert rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.state == pb.CONTAINER_RUNNING
            c.advance_clock(2)
        st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
        assert (st.state, st.exit_code) == (pb.CONTAINER_EXITED, 0)
        ch.close()


def test_health_is_not_serving_while_the_runtime_restarts(srv, ctl):
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel("unix:" + srv.config.socket) as ch:
        health = health_pb2_grpc.HealthStub(ch)

        def status():
            return health.Check(health_pb2.HealthCheckRequest(service="runtime.v1.RuntimeService"), timeout=5).status

        assert status() == health_pb2.HealthCheckResponse.SERVING
        ctl.RestartRuntime(cpb.RestartRuntimeRequest(downtime_seconds=0.5))
        assert status() == health_pb2.HealthCheckResponse.NOT_SERVING
        deadline = time.monotonic() + 5
        while status() != health_pb2.HealthCheckResponse.SERVING:
            assert time.monotonic() < deadline, "health never came back after the downtime"
            time.sleep(0.05)
