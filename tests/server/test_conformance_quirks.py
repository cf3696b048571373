"""The quirks learnt from the conformance suite's runs on containerd 2.x and CRI-O 1.36
(issue 30 part 8), over a real socket: each on shows the runtime's behaviour, off does not,
and the suite's verdict on fakecri with the quirk is its verdict on the real runtime."""
from __future__ import annotations

import grpc
import pytest
from conformance.test_teeth import judge, quirk, statuses
from helpers.cri import EventCollector, kinds, run_pod

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.faults.flags import faults_from
from fakecri.faults.model import Fault
from fakecri.server.process.app import FakeCRIServer


def _fake_clock_server(tmp_path, seed=1, faults=()):
    return FakeCRIServer(seed=seed, state_root=str(tmp_path / f"r{seed}"), fake_clock=True, quiet=True,
                         faults=list(faults))


def _stubs(server):
    ch = grpc.insecure_channel("unix:" + server.config.socket)
    return ch, api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)


def _advance(server, seconds):
    """Let fake time pass, firing what falls due (as the control API's AdvanceClock does)."""
    def go():
        server.node.clock.advance(seconds)
        with server.node.changing():
            server.node.tick()
    server.call(go)


def _state(rt, cid):
    return rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.state


# ------------------------------------------------------------ stop-returns-while-running


@pytest.mark.parametrize("timeout", [0, 10])
def test_stop_returns_while_running_answers_before_the_exit_and_refuses_the_remove(tmp_path, timeout):
    with _fake_clock_server(tmp_path, faults=[quirk("stop-returns-while-running")]) as server:
        ch, rt, img = _stubs(server)
        _, cid = run_pod(rt, img, "racy", command=["sleep", "3600"])
        rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=timeout))
        assert _state(rt, cid) == pb.CONTAINER_RUNNING  # answered OK, not yet exited
        with pytest.raises(grpc.RpcError) as info:
            rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
        assert info.value.code() == grpc.StatusCode.UNKNOWN
        assert info.value.details() == (f"failed to set removing state for container {cid!r}: "
                                        "container is still running, to stop first")
        _advance(server, 0.26)  # past the longest lag (250 ms)
        assert _state(rt, cid) == pb.CONTAINER_EXITED
        rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
        assert list(rt.ListContainers(pb.ListContainersRequest()).containers) == []
        hits = server.call(lambda: sum(f.hits for f in server.node.plan.list()))
        assert hits >= 2  # the stop and the refused remove
        ch.close()


def test_without_the_quirk_stop_returns_after_the_exit(tmp_path):
    with _fake_clock_server(tmp_path) as server:
        ch, rt, img = _stubs(server)
        _, cid = run_pod(rt, img, "calm", command=["sleep", "3600"])
        rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
        assert _state(rt, cid) == pb.CONTAINER_EXITED
        rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
        ch.close()


def _lag_ns(tmp_path, seed):
    with _fake_clock_server(tmp_path, seed, [quirk("stop-returns-while-running")]) as server:
        ch, rt, img = _stubs(server)
        _, cid = run_pod(rt, img, "lag", command=["sleep", "3600"])
        stopped_at = server.call(lambda: server.node.now_ns())
        rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
        _advance(server, 1)
        finished = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.finished_at
        ch.close()
    return finished - stopped_at


def test_the_lag_is_about_200_ms_and_the_seed_decides_it(tmp_path):
    lags = [_lag_ns(tmp_path, seed) for seed in (1, 1, 2)]
    assert lags[0] == lags[1]
    assert all(150_000_000 <= lag <= 250_000_000 for lag in lags), lags


def test_the_stopped_event_waits_for_the_exit(tmp_path):
    with _fake_clock_server(tmp_path, faults=[quirk("stop-returns-while-running")]) as server:
        ch, rt, img = _stubs(server)
        sub = EventCollector("unix:" + server.config.socket)
        try:
            _, cid = run_pod(rt, img, "ev", command=["sleep", "3600"])
            sub.wait_for(4)
            rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
            assert ("CONTAINER_STOPPED_EVENT", cid[:8]) not in kinds(sub.wait_for(5, timeout=0.5))
            _advance(server, 0.3)
            assert ("CONTAINER_STOPPED_EVENT", cid[:8]) in kinds(sub.wait_for(5))
        finally:
            sub.close()
            ch.close()


# ------------------------------------------------------------ CRI-O 1.36's missing events


def _removal_events(tmp_path, faults):
    """Events of: a pod with two containers, one removed by the caller, the other left to
    RemovePodSandbox."""
    with FakeCRIServer(seed=1, state_root=str(tmp_path / "e"), quiet=True, faults=faults) as server:
        ch, rt, img = _stubs(server)
        sub = EventCollector("unix:" + server.config.socket)
        try:
            sid, gone = run_pod(rt, img, "crio", command=["sleep", "3600"])
            cfg = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid)).status
            kept = rt.CreateContainer(pb.CreateContainerRequest(
                pod_sandbox_id=sid, sandbox_config=pb.PodSandboxConfig(metadata=cfg.metadata),
                config=pb.ContainerConfig(metadata=pb.ContainerMetadata(name="kept"),
                                          image=pb.ImageSpec(image="busybox"), command=["sleep", "3600"]),
            )).container_id
            rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid))
            rt.RemoveContainer(pb.RemoveContainerRequest(container_id=gone))
            rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
            rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(
                name="after", namespace="default", uid="u-after"))))  # the set of quiet sandboxes is spent
            events = sub.wait_for(30, timeout=1.0)
        finally:
            sub.close()
            ch.close()
    return sid, gone, kept, kinds(events)


def test_crio_events_recipe_leaves_out_the_sandbox_events_and_the_cascaded_deletes(tmp_path):
    sid, gone, kept, got = _removal_events(tmp_path, faults_from({"recipe": "crio-1.36-events"}))
    assert [k for k, c in got if c == sid[:8]] == ["CONTAINER_STARTED_EVENT", "CONTAINER_STOPPED_EVENT"]
    assert ("CONTAINER_DELETED_EVENT", gone[:8]) in got  # a RemoveContainer of its own is told
    assert ("CONTAINER_DELETED_EVENT", kept[:8]) not in got  # removed by RemovePodSandbox: silent
    assert ("CONTAINER_CREATED_EVENT", kept[:8]) in got


def test_each_crio_quirk_alone(tmp_path):
    sid, _, kept, got = _removal_events(tmp_path, [quirk("no-sandbox-created-event")])
    assert [k for k, c in got if c == sid[:8]] == [
        "CONTAINER_STARTED_EVENT", "CONTAINER_STOPPED_EVENT", "CONTAINER_DELETED_EVENT"]
    sid, _, kept, got = _removal_events(tmp_path, [quirk("no-container-deleted-on-sandbox-remove")])
    assert [k for k, c in got if c == sid[:8]] == [
        "CONTAINER_CREATED_EVENT", "CONTAINER_STARTED_EVENT", "CONTAINER_STOPPED_EVENT", "CONTAINER_DELETED_EVENT"]
    assert ("CONTAINER_DELETED_EVENT", kept[:8]) not in got


def test_without_the_quirks_every_event_is_told(tmp_path):
    sid, gone, kept, got = _removal_events(tmp_path, [])
    assert [k for k, c in got if c == sid[:8]] == [
        "CONTAINER_CREATED_EVENT", "CONTAINER_STARTED_EVENT", "CONTAINER_STOPPED_EVENT", "CONTAINER_DELETED_EVENT"]
    assert ("CONTAINER_DELETED_EVENT", gone[:8]) in got and ("CONTAINER_DELETED_EVENT", kept[:8]) in got


# ------------------------------------------------------------ the suite's verdict, as on the real runtime


def test_the_suite_fails_stop_returns_while_running_as_it_failed_containerd_2():
    # (0.3 s of quiet, not 1.5, for events a failing run may never get, as in test_teeth.py)
    got = statuses(judge([quirk("stop-returns-while-running")], examples=2, steps=8, settle_quiet=0.3))
    assert got["valid-calls-succeed"] == "fail", got


def test_the_suite_fails_the_crio_recipe_as_it_failed_crio_1_36():
    got = statuses(judge([Fault(type="recipe", attributes={"name": "crio-1.36-events"})], examples=2,
                         settle_quiet=0.3))  # the events the recipe leaves out are not coming
    assert got["events-complete"] == "fail" and got["sandbox-bracketing"] == "fail", got
    assert got["event-order-per-container"] in ("fail", "pass"), got  # STOPPED first needs an instant exit


def test_the_suite_owes_no_delete_for_containers_removed_with_their_sandbox():
    """CRI-O's third gap is not a failure (docs/conformance-results.md, note 2): with that quirk
    alone the event properties hold."""
    got = statuses(judge([quirk("no-container-deleted-on-sandbox-remove")], examples=2))
    assert got["events-complete"] == "pass" and got["sandbox-bracketing"] == "pass", got
