"""In-place resize over a real socket: a busybox container reads its limits from its cgroup
files, UpdateContainerResources changes them at once, and ContainerStatus.resources says
the same; `--cgroup-version 1` gives the v1 files."""
from __future__ import annotations

import time

import grpc
import pytest
from helpers.cri import container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.faults.spec import parse_error, parse_latency
from fakecri.server.process.app import FakeCRIServer

MIB = 1024 * 1024
READ_V2 = "cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max /sys/fs/cgroup/cpu.weight"


def _start(rt, img, resources: pb.LinuxContainerResources, **annotations: str) -> str:
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    cfg = sandbox_config("resize")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ctr = container_config(command=["sh", "-c", "grep Cpus_allowed_list /proc/self/status | cut -f2 && sleep 1d"])
    ctr.linux.resources.CopyFrom(resources)
    ctr.annotations.update({f"fakecri.io/{k}": v for k, v in annotations.items()})
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ctr, sandbox_config=cfg)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    return cid


def _sh(rt, cid: str, cmd: str) -> str:
    r = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["/bin/sh", "-c", cmd], timeout=5))
    assert r.exit_code == 0, r.stderr
    return r.stdout.decode()


def test_a_container_reads_its_new_limits_after_an_update(rt, img):
    cid = _start(rt, img, pb.LinuxContainerResources(cpu_period=100000, cpu_quota=10000, cpu_shares=102,
                                                     memory_limit_in_bytes=200 * MIB))
    assert _sh(rt, cid, "mount -t cgroup2") != ""  # what the resize e2e asks first
    assert _sh(rt, cid, READ_V2) == f"{200 * MIB}\n10000 100000\n17\n"
    new = pb.LinuxContainerResources(cpu_period=100000, cpu_quota=20000, cpu_shares=204,
                                     memory_limit_in_bytes=400 * MIB)
    rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(container_id=cid, linux=new))
    assert _sh(rt, cid, READ_V2) == f"{400 * MIB}\n20000 100000\n29\n"
    status = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert (status.resources.linux.memory_limit_in_bytes, status.resources.linux.cpu_quota,
            status.resources.linux.cpu_shares) == (400 * MIB, 20000, 204)
    assert "cgroup on /sys/fs/cgroup type cgroup2" in _sh(rt, cid, "mount | grep cgroup")


def _served(server: FakeCRIServer):
    """For a fixture: `server` started (quiet), its runtime and image stubs, and all stopped after."""
    server.start()
    server.node.log_rpcs = False
    channel = grpc.insecure_channel("unix:" + server.config.socket)
    yield api_pb2_grpc.RuntimeServiceStub(channel), api_pb2_grpc.ImageServiceStub(channel)
    channel.close()
    server.stop()


@pytest.fixture
def v1_rt():
    yield from _served(FakeCRIServer(seed=7, cgroup_version=1, swap_bytes=1024 * MIB))


def test_cgroup_v1_files_and_the_nodes_swap(v1_rt):
    rt, img = v1_rt
    cid = _start(rt, img, pb.LinuxContainerResources(cpu_period=100000, cpu_quota=50000, cpu_shares=512,
                                                     memory_limit_in_bytes=100 * MIB))
    assert _sh(rt, cid, "mount -t cgroup2") == ""
    read = ("cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.cfs_quota_us "
            "/sys/fs/cgroup/cpu/cpu.shares")
    assert _sh(rt, cid, read) == f"{100 * MIB}\n50000\n512\n"
    rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(container_id=cid, linux=pb.LinuxContainerResources(
        cpu_period=100000, cpu_quota=-1, cpu_shares=1024, memory_limit_in_bytes=150 * MIB)))
    assert _sh(rt, cid, read) == f"{150 * MIB}\n-1\n1024\n"
    assert _sh(rt, cid, "grep SwapTotal /proc/meminfo") == f"SwapTotal:      {1024 * 1024:>8} kB\n"


def _status(rt, cid: str) -> pb.ContainerStatus:
    return rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status


def test_an_update_keeps_what_it_does_not_set(rt, img):
    cid = _start(rt, img, pb.LinuxContainerResources(cpu_period=100000, cpu_quota=10000, cpu_shares=102,
                                                     memory_limit_in_bytes=200 * MIB))
    rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(
        container_id=cid, linux=pb.LinuxContainerResources(cpu_quota=30000)))
    assert _sh(rt, cid, READ_V2) == f"{200 * MIB}\n30000 100000\n17\n"
    assert _status(rt, cid).resources.linux.memory_limit_in_bytes == 200 * MIB


def test_v2_lowering_memory_below_what_it_holds_is_an_oom_kill(rt, img):
    lower = pb.LinuxContainerResources(memory_limit_in_bytes=100 * MIB)
    idle = _start(rt, img, pb.LinuxContainerResources(memory_limit_in_bytes=200 * MIB))
    rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(container_id=idle, linux=lower))
    assert _status(rt, idle).state == pb.CONTAINER_RUNNING  # a busybox shell holds under a MiB
    holding = _start(rt, img, pb.LinuxContainerResources(memory_limit_in_bytes=200 * MIB), memory="150Mi")
    rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(container_id=holding, linux=lower))
    status = _status(rt, holding)
    assert (status.state, status.exit_code, status.reason) == (pb.CONTAINER_EXITED, 137, "OOMKilled")
    assert status.resources.linux.memory_limit_in_bytes == 100 * MIB


def test_v1_refuses_a_memory_limit_below_usage_as_containerd_does(v1_rt):
    rt, img = v1_rt
    cid = _start(rt, img, pb.LinuxContainerResources(memory_limit_in_bytes=200 * MIB), memory="150Mi")
    with pytest.raises(grpc.RpcError) as err:
        rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(
            container_id=cid, linux=pb.LinuxContainerResources(memory_limit_in_bytes=100 * MIB)))
    assert err.value.code() == grpc.StatusCode.UNKNOWN
    assert err.value.details().startswith("failed to update resources: failed to update resources: unable to set "
                                          f"memory limit to {100 * MIB} (current usage: {150 * MIB}")
    assert _status(rt, cid).resources.linux.memory_limit_in_bytes == 200 * MIB
    assert _sh(rt, cid, "cat /sys/fs/cgroup/memory/memory.limit_in_bytes") == f"{200 * MIB}\n"


@pytest.fixture
def faulty_rt():
    faults = parse_error("UpdateContainerResources=UNKNOWN#1:runc update failed") + parse_latency(
        "UpdatePodSandboxResources=300ms")
    yield from _served(FakeCRIServer(seed=7, faults=faults))


def test_the_generic_faults_fail_or_delay_an_update(faulty_rt):
    rt, img = faulty_rt
    cid = _start(rt, img, pb.LinuxContainerResources(memory_limit_in_bytes=200 * MIB))
    new = pb.LinuxContainerResources(memory_limit_in_bytes=300 * MIB)
    with pytest.raises(grpc.RpcError) as err:
        rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(container_id=cid, linux=new))
    assert err.value.code() == grpc.StatusCode.UNKNOWN and "runc update failed" in err.value.details()
    assert _sh(rt, cid, "cat /sys/fs/cgroup/memory.max") == f"{200 * MIB}\n"  # a failed update changes nothing
    rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(container_id=cid, linux=new))  # #1: once
    assert _sh(rt, cid, "cat /sys/fs/cgroup/memory.max") == f"{300 * MIB}\n"
    sandbox = rt.ListPodSandbox(pb.ListPodSandboxRequest()).items[0].id
    began = time.monotonic()
    rt.UpdatePodSandboxResources(pb.UpdatePodSandboxResourcesRequest(
        pod_sandbox_id=sandbox, resources=pb.LinuxContainerResources(memory_limit_in_bytes=400 * MIB)))
    assert time.monotonic() - began >= 0.25


def test_oom_score_adj_stays_what_the_process_started_with(rt, img):
    cid = _start(rt, img, pb.LinuxContainerResources(memory_limit_in_bytes=200 * MIB, oom_score_adj=900))
    rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(container_id=cid, linux=pb.LinuxContainerResources(
        memory_limit_in_bytes=300 * MIB, oom_score_adj=500)))
    assert _status(rt, cid).resources.linux.oom_score_adj == 500  # the spec says the new one
    assert _sh(rt, cid, "cat /proc/1/oom_score_adj") == "900\n"  # runc leaves the running process alone
