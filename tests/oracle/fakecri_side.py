"""fakecri's side: one busybox container (`sleep 3600`) in one pod on a real server, and each
script an `ExecSync(["sh", "-c", SCRIPT])` in it, as a kubelet's exec probe runs one."""
from __future__ import annotations

import uuid

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc

from .busybox_side import CONTAINER_PATH, Result

POD_NAME = "oracle"

# What a container of the busybox image starts with (the image's PATH; the runtime adds
# HOSTNAME and HOME): the oracle's shell is given the same and nothing else.
CONTAINER_ENV = {"PATH": CONTAINER_PATH, "HOSTNAME": POD_NAME, "HOME": "/root"}

# The files the runtime and the image put in the container's /etc, laid into the oracle's root.
ETC_FILES = ("passwd", "group", "hosts", "hostname", "resolv.conf")


class FakecriSide:
    """One pod and one busybox container on the server at `target` ("unix:/path")."""

    def __init__(self, target: str, timeout: int = 10) -> None:
        self.timeout = timeout
        self.channel = grpc.insecure_channel(target)
        self.rt = api_pb2_grpc.RuntimeServiceStub(self.channel)
        img = api_pb2_grpc.ImageServiceStub(self.channel)
        image = pb.ImageSpec(image="busybox")
        img.PullImage(pb.PullImageRequest(image=image))
        uid = str(uuid.uuid4())
        cfg = pb.PodSandboxConfig(
            metadata=pb.PodSandboxMetadata(name=POD_NAME, namespace="default", uid=uid, attempt=0),
            hostname=POD_NAME,
            labels={"io.kubernetes.pod.name": POD_NAME, "io.kubernetes.pod.namespace": "default",
                    "io.kubernetes.pod.uid": uid},
            linux=pb.LinuxPodSandboxConfig(cgroup_parent="/kubepods/besteffort/pod" + uid),
        )
        self.sandbox_id = self.rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
        ctr = pb.ContainerConfig(
            metadata=pb.ContainerMetadata(name="shell", attempt=0), image=image,
            command=["sleep", "3600"], labels={"io.kubernetes.container.name": "shell"},
            log_path="shell/0.log")
        self.container_id = self.rt.CreateContainer(pb.CreateContainerRequest(
            pod_sandbox_id=self.sandbox_id, config=ctr, sandbox_config=cfg)).container_id
        self.rt.StartContainer(pb.StartContainerRequest(container_id=self.container_id))

    def exec(self, argv: list[str], timeout: int | None = None) -> Result:
        t = timeout or self.timeout
        try:
            r = self.rt.ExecSync(pb.ExecSyncRequest(container_id=self.container_id, cmd=argv, timeout=t),
                                 timeout=t + 5)
        except grpc.RpcError as e:
            return Result("", f"fakecri: ExecSync failed: {e.code().name}: {e.details()}", -1)
        return Result(r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace"), r.exit_code)

    def run(self, script: str, timeout: int | None = None) -> Result:
        return self.exec(["sh", "-c", script], timeout)

    def etc_files(self) -> dict[str, str]:
        """The container's /etc files the oracle's root copies; passwd and group come from the
        image, the rest from the runtime (`cat` here is the one applet the copy trusts)."""
        files = {}
        for name in ETC_FILES:
            r = self.exec(["cat", "/etc/" + name])
            if r.rc == 0:
                files[name] = r.stdout
        return files

    def close(self) -> None:
        try:
            self.rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=self.sandbox_id), timeout=10)
            self.rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=self.sandbox_id), timeout=10)
        except grpc.RpcError:
            pass
        self.channel.close()
