"""Bugs the reliability fuzz found, pinned as plain tests (each answered INTERNAL or UNKNOWN before)."""
from __future__ import annotations

import math
import os
import tempfile

import grpc
import pytest
from helpers.reliability import container_config, sandbox_config

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.control.v1 import control_pb2_grpc
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer


@pytest.fixture(scope="module")
def server():
    with FakeCRIServer(seed=31, fake_clock=True) as s:
        yield s


@pytest.fixture
def stubs(server):
    server.reset()
    ch = grpc.insecure_channel(server.endpoint)
    yield api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch), control_pb2_grpc.ControlStub(ch)
    ch.close()
    server.check()  # no handler raised


def code_of(fn, req) -> grpc.StatusCode:
    try:
        fn(req, timeout=10)
        return grpc.StatusCode.OK
    except grpc.RpcError as exc:
        return exc.code()


def _running_container(rt, img, name: str) -> tuple[str, str]:
    """A pod with one running container; returns (sandbox id, container id)."""
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=10)
    cfg = sandbox_config(name)
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=10).pod_sandbox_id
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=container_config("c"),
                                                       sandbox_config=cfg), timeout=10).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=10)
    return sid, cid


@pytest.mark.parametrize("seconds", [float("inf"), float("nan"), 1e300, 2e10])
def test_advance_clock_past_int64_is_invalid_argument(stubs, seconds):
    _, _, ctl = stubs
    assert code_of(ctl.AdvanceClock, cpb.AdvanceClockRequest(seconds=seconds)) == grpc.StatusCode.INVALID_ARGUMENT
    assert ctl.AdvanceClock(cpb.AdvanceClockRequest(seconds=1), timeout=10).now_ns > 0


@pytest.mark.parametrize("state", [-1, 5, 2**31 - 1])
def test_list_filter_on_an_unknown_state_matches_nothing(stubs, state):
    rt, _, _ = stubs
    rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("p")), timeout=10)
    sf = pb.PodSandboxFilter(state=pb.PodSandboxStateValue(state=state))
    assert list(rt.ListPodSandbox(pb.ListPodSandboxRequest(filter=sf), timeout=10).items) == []
    cf = pb.ContainerFilter(state=pb.ContainerStateValue(state=state))
    assert list(rt.ListContainers(pb.ListContainersRequest(filter=cf), timeout=10).containers) == []
    assert sum(len(r.items) for r in rt.StreamPodSandboxes(pb.StreamPodSandboxesRequest(filter=sf), timeout=10)) == 0


def test_checkpoint_and_restore_with_unusable_paths_are_invalid_argument(stubs):
    rt, img, _ = stubs
    sid, cid = _running_container(rt, img, "cp")
    d = tempfile.mkdtemp(prefix="fc-cp-")
    for path in ("/", d, os.path.join(d, "a\x00b"), os.path.join(d, "x" * 300)):
        assert code_of(rt.CheckpointContainer, pb.CheckpointContainerRequest(container_id=cid, location=path)) == \
            grpc.StatusCode.INVALID_ARGUMENT, path
        assert code_of(rt.CheckpointPod, pb.CheckpointPodRequest(pod_sandbox_id=sid, output_path=path)) == \
            grpc.StatusCode.INVALID_ARGUMENT, path
    assert code_of(rt.RestorePod, pb.RestorePodRequest(checkpoint_path=d)) == grpc.StatusCode.INVALID_ARGUMENT
    assert code_of(rt.RestorePod, pb.RestorePodRequest(checkpoint_path="/")) == grpc.StatusCode.INVALID_ARGUMENT
    assert os.listdir(d) == []  # no temp file left behind
    os.rmdir(d)


def test_bad_fault_specs_are_invalid_argument(stubs):
    _, _, ctl = stubs
    bad = [
        cpb.Fault(type="error", target="Version", count=-1, attributes={"code": "UNAVAILABLE"}),
        cpb.Fault(type="error", target="Version", toxicity=float("nan"), attributes={"code": "UNAVAILABLE"}),
        cpb.Fault(type="error", target="Version", toxicity=2.0, attributes={"code": "UNAVAILABLE"}),
    ]
    for fault in bad:
        assert code_of(ctl.AddFault, cpb.AddFaultRequest(fault=fault)) == grpc.StatusCode.INVALID_ARGUMENT, fault
    assert list(ctl.ListFaults(cpb.ListFaultsRequest(), timeout=10).faults) == []
    forever = cpb.SetConditionRequest(type="RuntimeReady", status=False, duration_seconds=float("inf"))
    assert code_of(ctl.SetCondition, forever) != grpc.StatusCode.INTERNAL


def test_undecodable_request_is_invalid_argument(server, stubs):
    ch = grpc.insecure_channel(server.endpoint)
    raw = ch.unary_unary("/runtime.v1.RuntimeService/ContainerStatus", request_serializer=None,
                         response_deserializer=None)
    with pytest.raises(grpc.RpcError) as err:
        raw(b"\x0a\x02\xff\xfe", timeout=10)  # container_id with bad UTF-8
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "runtime.v1.ContainerStatusRequest" in err.value.details()
    ch.close()


def _no_bad_timers(server) -> bool:
    """Every timer on the server's loop has a real deadline: one NaN breaks the loop's timer heap,
    and on the shared loop that stalls every in-process server at once."""
    return server.call(lambda: not any(math.isnan(h.when()) for h in server._loop._scheduled))


@pytest.mark.parametrize("downtime", [float("nan"), float("inf"), -1.0, 1e59])
def test_restart_with_an_absurd_downtime_is_invalid_argument(stubs, server, downtime):
    rt, _, ctl = stubs
    assert code_of(ctl.RestartRuntime, cpb.RestartRuntimeRequest(downtime_seconds=downtime)) \
        == grpc.StatusCode.INVALID_ARGUMENT
    assert _no_bad_timers(server)
    assert code_of(rt.Version, pb.VersionRequest()) == grpc.StatusCode.OK


@pytest.mark.parametrize("interval", ["nan", "inf", "-5", "1e400", "99999999999999999999"])
def test_exec_sleep_with_an_absurd_interval_leaves_no_bad_timer(stubs, server, interval):
    rt, img, _ = stubs
    sid, cid = _running_container(rt, img, "sleepy")
    code = code_of(rt.ExecSync, pb.ExecSyncRequest(container_id=cid, cmd=["sleep", interval], timeout=1))
    assert code in (grpc.StatusCode.OK, grpc.StatusCode.DEADLINE_EXCEEDED)
    assert _no_bad_timers(server)
