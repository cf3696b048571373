"""Every filesystem mountpoint fakecri reports is a directory that exists, under its state root.

A kubelet stats each one (for capacity and the device) and answers /stats/summary with
500 while the image filesystem's mountpoint is missing.
"""
from __future__ import annotations

import os

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.host.disk import DiskRoot, default_root
from fakecri.server.process.app import FakeCRIServer


def test_image_and_container_filesystems_exist_under_the_root(tmp_path):
    root = tmp_path / "state"
    with FakeCRIServer(seed=3, state_root=str(root)) as server:
        ch = grpc.insecure_channel("unix:" + server.config.socket)
        rt, img = api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
        cfg = pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name="p", namespace="d", uid="u1"))
        sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
        cid = rt.CreateContainer(pb.CreateContainerRequest(
            pod_sandbox_id=sid, sandbox_config=cfg,
            config=pb.ContainerConfig(metadata=pb.ContainerMetadata(name="c"), image=pb.ImageSpec(image="busybox")),
        )).container_id
        rt.StartContainer(pb.StartContainerRequest(container_id=cid))

        info = img.ImageFsInfo(pb.ImageFsInfoRequest())
        mounts = [fs.fs_id.mountpoint for fs in [*info.image_filesystems, *info.container_filesystems]]
        assert info.image_filesystems[0].used_bytes.value > 0
        stats = rt.ContainerStats(pb.ContainerStatsRequest(container_id=cid)).stats
        assert stats.attributes.id == cid and stats.attributes.metadata.name == "c"
        assert stats.cpu.usage_core_nano_seconds.value > 0 and stats.memory.working_set_bytes.value > 0
        mounts.append(stats.writable_layer.fs_id.mountpoint)
        pod = rt.PodSandboxStats(pb.PodSandboxStatsRequest(pod_sandbox_id=sid)).stats
        mounts += [c.writable_layer.fs_id.mountpoint for c in pod.linux.containers]
        ch.close()
    assert all(m.startswith(str(root) + "/") and os.path.isdir(m) for m in mounts), mounts


def test_default_root_is_a_writable_directory():
    root = default_root()
    place = DiskRoot(None).place("/var/lib/fakecri/images")
    assert place == str(root / "images") and os.path.isdir(place) and os.access(place, os.W_OK)
