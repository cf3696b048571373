"""The CRI items of Kubernetes 1.37 and 1.38 that fakecri answers for itself: RuntimeConfig
answers the same thing every time; UpdatePodSandboxResources is recorded, can be failed by
a fault, and shows in the sandbox's verbose status; env values are bytes end to end.
What a real kubelet does with RuntimeConfig and the Stream* lists is
tests/interop/test_bug_lab.py (slow)."""
from __future__ import annotations

import base64
import json

import grpc
import pytest
from helpers.cri import container_config, run_pod, sandbox_config

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.runtime.v1 import api_pb2 as pb

RAW = b"\xff\xfe caf\xc3\xa9 \x80end"  # not UTF-8: bytes a string field could not carry


def add(ctl, **fault):
    attrs = {k: str(v) for k, v in fault.pop("attributes", {}).items()}
    return ctl.AddFault(cpb.AddFaultRequest(fault=cpb.Fault(attributes=attrs, **fault)))


# ------------------------------------------------------------ RuntimeConfig


def test_runtime_config_never_changes(rt, img):
    first = rt.RuntimeConfig(pb.RuntimeConfigRequest()).SerializeToString()
    assert pb.RuntimeConfigResponse.FromString(first).HasField("linux")
    # Whatever else happens on the node, the answer stays the same (the kubelet asks once
    # at start and keeps what it got; cri-api: change it only with a node reboot).
    rt.UpdateRuntimeConfig(pb.UpdateRuntimeConfigRequest(
        runtime_config=pb.RuntimeConfig(network_config=pb.NetworkConfig(pod_cidr="10.99.0.0/16"))))
    sid, _ = run_pod(rt, img, "rc")
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid))
    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
    assert {rt.RuntimeConfig(pb.RuntimeConfigRequest()).SerializeToString() for _ in range(5)} == {first}


def test_runtime_config_recipe_answers_unimplemented_until_removed(rt, ctl):
    add(ctl, type="recipe", attributes={"name": "no-runtime-config"})
    for _ in range(2):
        with pytest.raises(grpc.RpcError) as info:
            rt.RuntimeConfig(pb.RuntimeConfigRequest())
        assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED
    ctl.RemoveFault(cpb.RemoveFaultRequest(name="no-runtime-config"))
    rt.RuntimeConfig(pb.RuntimeConfigRequest())


# ------------------------------------------------------------ UpdatePodSandboxResources


def _info(rt, sid):
    resp = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid, verbose=True))
    return json.loads(resp.info["info"])


def _res(cpu_shares, memory):
    return pb.LinuxContainerResources(cpu_shares=cpu_shares, memory_limit_in_bytes=memory)


def test_update_pod_sandbox_resources_is_recorded_and_shows_in_the_verbose_status(rt, img, ctl):
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("resize"))).pod_sandbox_id
    rt.UpdatePodSandboxResources(pb.UpdatePodSandboxResourcesRequest(
        pod_sandbox_id=sid, resources=_res(1024, 256 << 20), overhead=_res(2, 16 << 20)))
    info = _info(rt, sid)
    assert info["resources"]["cpu_shares"] == 1024 and info["resources"]["memory_limit_in_bytes"] == 256 << 20
    assert info["overhead"]["memory_limit_in_bytes"] == 16 << 20
    # kubernetes/kubernetes#137555: when the pod cgroup update fails the kubelet sends a second
    # call with the previous resources; it is an update like any other.
    rt.UpdatePodSandboxResources(pb.UpdatePodSandboxResourcesRequest(pod_sandbox_id=sid,
                                                                     resources=_res(512, 128 << 20)))
    info = _info(rt, sid)
    assert info["resources"]["cpu_shares"] == 512 and info["overhead"]["memory_limit_in_bytes"] == 16 << 20
    calls = [c for c in ctl.GetCallLog(cpb.GetCallLogRequest()).calls if c.method == "UpdatePodSandboxResources"]
    assert [(c.code, sid[:12] in c.summary) for c in calls] == [("OK", True), ("OK", True)]


def test_a_failed_update_changes_nothing_and_a_lost_reply_still_applies(rt, ctl):
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("resize-fails"))).pod_sandbox_id
    rt.UpdatePodSandboxResources(pb.UpdatePodSandboxResourcesRequest(pod_sandbox_id=sid, resources=_res(256, 1 << 30)))
    add(ctl, type="recipe", attributes={"name": "update-sandbox-resources-fails"})
    with pytest.raises(grpc.RpcError) as info:
        rt.UpdatePodSandboxResources(pb.UpdatePodSandboxResourcesRequest(pod_sandbox_id=sid,
                                                                         resources=_res(4096, 2 << 30)))
    assert info.value.code() == grpc.StatusCode.INTERNAL  # not UNIMPLEMENTED: the kubelet blocks the resize
    assert _info(rt, sid)["resources"]["cpu_shares"] == 256
    ctl.ResetFaults(cpb.ResetFaultsRequest())
    add(ctl, type="error", target="UpdatePodSandboxResources", stage="after", attributes={"code": "UNAVAILABLE"})
    with pytest.raises(grpc.RpcError):
        rt.UpdatePodSandboxResources(pb.UpdatePodSandboxResourcesRequest(pod_sandbox_id=sid,
                                                                         resources=_res(4096, 2 << 30)))
    assert _info(rt, sid)["resources"]["cpu_shares"] == 4096  # applied; only the answer was lost


# ------------------------------------------------------------ env values as bytes


def test_a_non_utf8_env_value_survives_byte_for_byte(rt, img):
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    cfg = sandbox_config("bytes-env")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ccfg = container_config(command=["sleep", "3600"])
    ccfg.envs.append(pb.KeyValue(key="RAW", value=RAW))
    ccfg.envs.append(pb.KeyValue(key="PLAIN", value="café".encode()))
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg,
                                                       sandbox_config=cfg)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    out = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["env"], timeout=5))
    assert out.exit_code == 0
    assert b"RAW=" + RAW + b"\n" in out.stdout and "PLAIN=café\n".encode() in out.stdout
    echo = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["sh", "-c", 'echo "$RAW"'], timeout=5))
    assert echo.stdout == RAW + b"\n"
    assert rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["printenv", "RAW"], timeout=5)).stdout == RAW + b"\n"
    # ContainerStatus has no env field; its verbose info names every variable, with the exact
    # bytes of a value that is not UTF-8 in base64 (a JSON string cannot hold them).
    resp = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid, verbose=True))
    envs = {e["name"]: e for e in json.loads(resp.info["info"])["envs"]}
    assert base64.b64decode(envs["RAW"]["valueBase64"]) == RAW and "value" not in envs["RAW"]
    assert envs["PLAIN"] == {"name": "PLAIN", "value": "café"}
