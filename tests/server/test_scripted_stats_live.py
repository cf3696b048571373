"""Scripted stats over the wire: annotations and SetStats (control API, the FakeCRI handle,
`fakecri ctl set-stats`) reach every stats RPC, consistently, on a fake clock."""
from __future__ import annotations

import grpc
import pytest
from click.testing import CliRunner

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.cli import main
from fakecri.testing import FakeCRI

MIB = 1024 * 1024
NANO = 1_000_000_000
POD = {"metadata": {"name": "web", "namespace": "default", "uid": "web-1"},
       "annotations": {"fakecri.io/memory.app": "0->200Mi over 60s"}}


@pytest.fixture
def node(tmp_path):
    fc = FakeCRI.start(fake_clock=True, state_root=str(tmp_path / "root"), quiet=True)
    yield fc
    fc.check()
    fc.stop()


def _start(node, name="app", annotations=None):
    with node.client() as cri:
        cri.pull_image("busybox")
        sid = cri.run_pod_sandbox(POD)
        cid = cri.create_container(sid, {"metadata": {"name": name}, "image": {"image": "busybox"},
                                         "command": ["sleep", "3600"], "annotations": annotations or {}}, POD)
        cri.start_container(cid)
    return sid, cid


def _everywhere(node, sid, cid):
    """The container's working set and CPU rate as each stats RPC reports them."""
    with grpc.insecure_channel(node.endpoint) as ch:
        rt = api_pb2_grpc.RuntimeServiceStub(ch)
        img = api_pb2_grpc.ImageServiceStub(ch)
        one = rt.ContainerStats(pb.ContainerStatsRequest(container_id=cid)).stats
        listed = rt.ListContainerStats(pb.ListContainerStatsRequest()).stats
        streamed = [s for r in rt.StreamContainerStats(pb.StreamContainerStatsRequest()) for s in r.container_stats]
        pod = rt.PodSandboxStats(pb.PodSandboxStatsRequest(pod_sandbox_id=sid)).stats
        pods = rt.ListPodSandboxStats(pb.ListPodSandboxStatsRequest()).stats
        spods = [s for r in rt.StreamPodSandboxStats(pb.StreamPodSandboxStatsRequest()) for s in r.pod_sandbox_stats]
        metrics = rt.ListPodSandboxMetrics(pb.ListPodSandboxMetricsRequest()).pod_metrics
        fs = img.ImageFsInfo(pb.ImageFsInfoRequest()).container_filesystems[0].used_bytes.value
    ws = {"ContainerStats": one.memory.working_set_bytes.value,
          "ListContainerStats": listed[0].memory.working_set_bytes.value,
          "StreamContainerStats": streamed[0].memory.working_set_bytes.value,
          "PodSandboxStats": pod.linux.containers[0].memory.working_set_bytes.value,
          "ListPodSandboxStats": pods[0].linux.containers[0].memory.working_set_bytes.value,
          "StreamPodSandboxStats": spods[0].linux.containers[0].memory.working_set_bytes.value,
          "ListPodSandboxMetrics": next(m.value.value for m in metrics[0].container_metrics[0].metrics
                                        if m.name == "container_memory_working_set_bytes")}
    return ws, one, pod, fs


def test_annotations_reach_every_stats_rpc(node):
    sid, cid = _start(node, annotations={"fakecri.io/cpu": "250m", "fakecri.io/disk": "1Gi",
                                         "fakecri.io/psi": "memory.some=40"})
    node.advance_clock(30)
    ws, one, pod, fs = _everywhere(node, sid, cid)
    assert set(ws.values()) == {100 * MIB}, ws  # half way up the pod's ramp for "app"
    assert pod.linux.memory.working_set_bytes.value == 100 * MIB + 320 * 1024  # and the pause container
    assert one.cpu.usage_nano_cores.value == NANO // 4
    assert one.cpu.usage_core_nano_seconds.value == 30 * NANO // 4
    assert one.writable_layer.used_bytes.value == fs == 1024 * MIB
    assert one.memory.psi.Some.Avg10 == 40.0 and one.memory.psi.Some.Total == 12 * NANO
    assert pod.linux.memory.psi.Some.Avg10 == 40.0


def test_set_stats_from_the_handle_and_from_ctl(node):
    sid, cid = _start(node)
    node.advance_clock(60)
    node.set_stats(cid, memory="steps 300Mi@0s,1Gi@10s", cpu="2")
    node.advance_clock(5)
    ws, one, _, _ = _everywhere(node, sid, cid)
    assert set(ws.values()) == {300 * MIB} and one.cpu.usage_nano_cores.value == 2 * NANO
    node.advance_clock(5)
    assert set(_everywhere(node, sid, cid)[0].values()) == {1024 * MIB}
    result = CliRunner().invoke(main, ["ctl", "--endpoint", node.endpoint, "set-stats", cid[:12], "--memory", "64Mi",
                                       "--psi", "io.full=5"])
    assert result.exit_code == 0, result.output
    ws, one, _, _ = _everywhere(node, sid, cid)
    assert set(ws.values()) == {64 * MIB} and one.io.psi.Full.Avg10 == 0.0  # set just now
    node.advance_clock(10)
    assert _everywhere(node, sid, cid)[1].io.psi.Full.Avg10 == 5.0
    result = CliRunner().invoke(main, ["ctl", "--endpoint", node.endpoint, "set-stats", cid, "--clear"])
    assert result.exit_code == 0
    assert set(_everywhere(node, sid, cid)[0].values()) == {200 * MIB}  # the pod's annotation holds again


@pytest.mark.parametrize("kwargs, code, says", [
    ({"memory": "lots"}, grpc.StatusCode.INVALID_ARGUMENT, "SetStats: memory: 'lots' is not bytes"),
    ({"memory_rss": "1->"}, grpc.StatusCode.INVALID_ARGUMENT, "SetStats: memory_rss: "),
    ({"psi": "gpu.some=3"}, grpc.StatusCode.INVALID_ARGUMENT, "SetStats: psi: 'gpu.some=3'"),
    ({}, grpc.StatusCode.INVALID_ARGUMENT, "give at least one figure"),
])
def test_caller_mistakes_name_the_field(node, kwargs, code, says):
    _, cid = _start(node)
    with pytest.raises(grpc.RpcError) as err:
        node.set_stats(cid, **kwargs)
    assert err.value.code() == code and says in err.value.details()


def test_unknown_and_exited_containers(node):
    with pytest.raises(grpc.RpcError) as err:
        node.set_stats("0" * 64, memory="1Mi")
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    _, cid = _start(node)
    node.exit_container(cid, 0)
    with pytest.raises(grpc.RpcError) as err:
        node.set_stats(cid, memory="1Mi")
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "EXITED" in err.value.details()


def test_a_bad_annotation_fails_create_naming_it(node):
    with node.client() as cri:
        cri.pull_image("busybox")
        sid = cri.run_pod_sandbox(POD)
        with pytest.raises(Exception) as err:
            cri.create_container(sid, {"metadata": {"name": "x"}, "image": {"image": "busybox"},
                                       "annotations": {"fakecri.io/cpu": "fast"}}, POD)
    assert "INVALID_ARGUMENT" in str(err.value) and "annotation fakecri.io/cpu: 'fast'" in str(err.value)
