"""A caller's mistake is a one-line INVALID_ARGUMENT naming the field, never INTERNAL, and it
leaves nothing half made: open enums, durations beyond reason, bad port mappings, shells
nested without end, restore archives of the wrong shape."""
from __future__ import annotations

import io
import json
import tarfile

import grpc
import pytest
from helpers.cri import code_of, container_config, run_pod, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb

INVALID = grpc.StatusCode.INVALID_ARGUMENT


def _pulled(img, image="busybox"):
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=image)))


def _sandboxes(rt):
    return rt.ListPodSandbox(pb.ListPodSandboxRequest()).items


def test_enum_numbers_outside_their_enum_are_refused_naming_the_field(rt, img):
    _pulled(img)
    cfg = sandbox_config("ns99")
    cfg.linux.security_context.namespace_options.userns_options.mode = 99
    code, details = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=cfg))
    assert code == INVALID and "userns_options.mode: 99 is not a NamespaceMode" in details
    assert _sandboxes(rt) == []

    cfg = sandbox_config("ok")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ccfg = container_config()
    ccfg.mounts.add(container_path="/data", host_path="/tmp", propagation=99)
    code, details = code_of(rt.CreateContainer, pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg,
                                                                           sandbox_config=cfg))
    assert code == INVALID and "mounts[0].propagation: 99 is not a MountPropagation" in details
    ccfg = container_config()
    ccfg.linux.security_context.namespace_options.userns_options.mode = 99
    code, details = code_of(rt.CreateContainer, pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg,
                                                                           sandbox_config=cfg))
    assert code == INVALID and "NamespaceMode" in details
    ccfg = container_config()
    ccfg.stop_signal = 1000
    assert code_of(rt.CreateContainer, pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg,
                                                                  sandbox_config=cfg))[0] == INVALID
    assert rt.ListContainers(pb.ListContainersRequest()).containers == []


@pytest.mark.parametrize("key", ["fakecri.io/exit-after", "fakecri.io/oom-after", "fakecri.io/log-every",
                                 "fakecri.io/stop-delay"])
def test_durations_beyond_a_hundred_years_are_refused(rt, img, key):
    _pulled(img)
    huge = "1" + "0" * 400
    cfg = sandbox_config("p")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ccfg = container_config(command=["sleep", "infinity"], annotations={key: huge})
    code, details = code_of(rt.CreateContainer, pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg,
                                                                           sandbox_config=cfg))
    assert code == INVALID and key in details and "hundred years" in details
    # On the sandbox, the pod is refused at once (else every container in it would fail later).
    bad = sandbox_config("q")
    bad.annotations[key] = huge + "h"
    code, details = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=bad))
    assert code == INVALID and key in details
    bad = sandbox_config("r")
    bad.annotations[key + ".app"] = "soon"
    code, details = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=bad))
    assert code == INVALID and "not a duration" in details
    assert [s.metadata.name for s in _sandboxes(rt)] == ["p"]


def test_probe_durations_too(rt, img):
    _pulled(img)
    cfg = sandbox_config("p")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ccfg = container_config(annotations={"fakecri.io/probes": "cat /ready = fail-after 9999999999999999999h"})
    code, details = code_of(rt.CreateContainer, pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg,
                                                                           sandbox_config=cfg))
    assert code == INVALID and "fakecri.io/probes" in details


@pytest.mark.parametrize("mapping, words", [
    ({"container_port": 80, "host_port": 70000}, "host_port 70000 is outside 0..65535"),
    ({"container_port": 80, "host_port": -1}, "host_port -1 is outside"),
    ({"container_port": 70000}, "container_port 70000"),
    ({"container_port": 80, "host_port": 8080, "host_ip": "127.0.0.1\0x"}, "is not an IP address"),
    ({"container_port": 80, "protocol": 7}, "protocol: 7 is not a Protocol"),
])
def test_bad_port_mappings_are_refused_before_anything_runs(rt, img, mapping, words):
    _pulled(img, "nginx")
    cfg = sandbox_config("web")
    cfg.port_mappings.add(**mapping)
    code, details = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=cfg))
    assert code == INVALID and words in details
    assert _sandboxes(rt) == []


@pytest.mark.parametrize("value", ["http:abc", "http:99999", "teleport", "refuse"])
def test_port_forward_annotations_are_checked_when_the_pod_is_made(rt, value):
    cfg = sandbox_config("fwd")
    cfg.annotations["fakecri.io/port-forward"] = value
    if value == "refuse":
        assert rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
        return
    code, details = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=cfg))
    assert code == INVALID and "fakecri.io/port-forward" in details
    cfg.annotations.clear()
    cfg.annotations["fakecri.io/port-forward.http"] = "echo"
    code, details = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=cfg))
    assert code == INVALID and "'http' is not a port from 1 to 65535" in details


def test_shells_nested_without_end_stop_at_a_depth(rt, img):
    deep = "echo " + "$(" * 600 + "echo hi" + ")" * 600
    _, cid = run_pod(rt, img, "deep", command=["sh", "-c", "sleep infinity"])
    reply = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["sh", "-c", deep], timeout=5))
    assert b"more than 50 deep" in reply.stderr
    _, own = run_pod(rt, img, "deep2", command=["sh", "-c", deep])
    status = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=own)).status
    assert status.state == pb.CONTAINER_EXITED  # it ran (and ended), no INTERNAL anywhere


def _archive(path, doc):
    data = json.dumps(doc).encode()
    with tarfile.open(path, "w") as tar:
        info = tarfile.TarInfo("fakecri-checkpoint.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize("doc", [
    [1, 2, 3],
    {"format": "fakecri-checkpoint/2"},
    {"format": "fakecri-checkpoint/2", "kind": "pod"},
    {"format": "fakecri-checkpoint/2", "kind": "pod", "pod": [1]},
    {"format": "fakecri-checkpoint/2", "kind": "pod", "pod": {"kind": "pod", "sandbox": {"id": 3}}},
    {"format": "fakecri-checkpoint/2", "kind": "pod", "pod": {"kind": "pod", "sandbox": "x", "containers": []}},
    {"format": "fakecri-checkpoint/2", "kind": "pod", "pod": {"kind": "pod", "sandbox": {}, "containers": "no"}},
    {"format": "fakecri-checkpoint/2", "kind": "pod", "pod": {"kind": "pod", "sandbox": {}, "containers": [{}]}},
])
def test_restore_of_an_archive_of_the_wrong_shape_is_invalid(rt, tmp_path, doc):
    path = tmp_path / "bad.tar"
    _archive(path, doc)
    code, details = code_of(rt.RestorePod, pb.RestorePodRequest(checkpoint_path=str(path)))
    assert code == INVALID, details
    assert _sandboxes(rt) == []
