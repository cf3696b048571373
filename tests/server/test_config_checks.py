"""Configs a real runtime refuses are refused with InvalidArgument naming the object."""
from __future__ import annotations

import grpc
import pytest
from helpers.cri import container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb


def _refused(call, *args, **kwargs) -> str:
    with pytest.raises(grpc.RpcError) as info:
        call(*args, **kwargs)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
    return info.value.details()


def _sandbox(rt, img):
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    cfg = sandbox_config("checks")
    return rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id, cfg


def _create(rt, sid, cfg, ccfg):
    return rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg, sandbox_config=cfg))


def test_run_as_group_without_user_is_refused(rt, img):
    sid, cfg = _sandbox(rt, img)
    ccfg = container_config("grp")
    ccfg.linux.security_context.run_as_group.value = 1000
    assert "run_as_group" in _refused(_create, rt, sid, cfg, ccfg) and "'grp'" in _refused(_create, rt, sid, cfg, ccfg)
    ccfg.linux.security_context.run_as_user.value = 1000
    assert _create(rt, sid, cfg, ccfg).container_id
    bad = sandbox_config("grp-pod")
    bad.linux.security_context.run_as_group.value = 5
    assert "grp-pod" in _refused(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=bad))


def _userns(mode, uids=(), gids=()):
    cfg = sandbox_config("userns")
    opts = cfg.linux.security_context.namespace_options.userns_options
    opts.mode = mode
    opts.uids.extend(pb.IDMapping(container_id=c, host_id=h, length=n) for c, h, n in uids)
    opts.gids.extend(pb.IDMapping(container_id=c, host_id=h, length=n) for c, h, n in gids)
    return pb.RunPodSandboxRequest(config=cfg)


@pytest.mark.parametrize("request_, words", [
    (_userns(pb.POD, [(0, 1000, 65536), (65536, 200000, 10)], [(0, 1000, 65536)]), "exactly one uid"),
    (_userns(pb.POD, [(1, 1000, 65536)], [(0, 1000, 65536)]), "container id 0"),
    (_userns(pb.CONTAINER, [(0, 1000, 65536)], [(0, 1000, 65536)]), "CONTAINER"),
    (_userns(pb.TARGET, [(0, 1000, 65536)], [(0, 1000, 65536)]), "TARGET"),
    (_userns(pb.NODE, [(0, 1000, 65536)], [(0, 1000, 65536)]), "NODE"),
], ids=["two-mappings", "zero-unmapped", "container-mode", "target-mode", "node-with-mappings"])
def test_malformed_user_namespaces_are_refused(rt, request_, words):
    assert words in _refused(rt.RunPodSandbox, request_)
    assert list(rt.ListPodSandbox(pb.ListPodSandboxRequest()).items) == []


def test_well_formed_user_namespaces_run(rt):
    rt.RunPodSandbox(_userns(pb.POD, [(0, 100000, 65536)], [(0, 100000, 65536)]))
    rt.RunPodSandbox(_userns(pb.NODE))
    assert len(rt.ListPodSandbox(pb.ListPodSandboxRequest()).items) == 2


@pytest.mark.parametrize("readonly, propagation, words", [
    (False, pb.PROPAGATION_PRIVATE, "not read-only"),
    (True, pb.PROPAGATION_HOST_TO_CONTAINER, "PROPAGATION_HOST_TO_CONTAINER"),
    (True, pb.PROPAGATION_BIDIRECTIONAL, "PROPAGATION_BIDIRECTIONAL"),
])
def test_invalid_recursive_read_only_mounts_are_refused(rt, img, readonly, propagation, words):
    sid, cfg = _sandbox(rt, img)
    ccfg = container_config("rro")
    ccfg.mounts.append(pb.Mount(container_path="/data", host_path="/tmp", readonly=readonly,
                                recursive_read_only=True, propagation=propagation))
    assert words in _refused(_create, rt, sid, cfg, ccfg)
    ccfg.mounts[0].readonly, ccfg.mounts[0].propagation = True, pb.PROPAGATION_PRIVATE
    assert _create(rt, sid, cfg, ccfg).container_id


def test_a_config_checked_once_is_decoded_once_and_refusals_still_name_their_container():
    from fakecri.engine.errors import InvalidArgument
    from fakecri.server.codec import decode

    first = container_config("one")
    first.linux.security_context.run_as_user.value = 7
    first.mounts.append(pb.Mount(container_path="/data", host_path="/tmp"))
    second = container_config("two")
    second.CopyFrom(first)
    second.metadata.name = "two"
    spec = decode.checked_container_spec(first)
    assert decode.checked_container_spec(second) is spec == decode.container_spec(second)
    bad = pb.ContainerConfig()
    bad.CopyFrom(second)
    bad.metadata.name = "three"
    bad.linux.security_context.ClearField("run_as_user")
    bad.linux.security_context.run_as_group.value = 5
    for _ in range(2):  # refused each time, each time naming it
        with pytest.raises(InvalidArgument, match="'three'.*run_as_group"):
            decode.checked_container_spec(bad)
    bad.stop_signal = 999  # an enum number outside the enum, in a field of the key
    bad.linux.security_context.run_as_user.value = 7
    with pytest.raises(InvalidArgument, match="stop_signal"):
        decode.checked_container_spec(bad)
