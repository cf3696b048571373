"""fakecri's side: one busybox container (`sleep 3600`) in one pod on a real server, and each
script an `ExecSync(["sh", "-c", SCRIPT])` in it, as a kubelet's exec probe runs one; a script
that is to be stopped runs as the command of a container of its own, in a second pod."""
from __future__ import annotations

import shutil
import tempfile
import time
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
        self._stop_pod: pb.PodSandboxConfig | None = None  # the pod of the containers `run_stopped` stops
        self._stop_sandbox, self._stop_dir, self._stops = "", "", 0
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

    def run_stopped(self, script: str, after_s: float, grace_s: float) -> Result:
        """`script` as the command of a container of its own (PID 1 of it), stopped as the kubelet
        stops one: StopContainer with `grace_s` of grace, `after_s` seconds after its start.
        Its log's two streams and its exit code."""
        if self._stop_pod is None:
            self._stop_dir = tempfile.mkdtemp(prefix="fakecri-oracle-logs-")
            uid = str(uuid.uuid4())
            self._stop_pod = pb.PodSandboxConfig(
                metadata=pb.PodSandboxMetadata(name=POD_NAME + "-stops", namespace="default", uid=uid, attempt=0),
                hostname=POD_NAME, log_directory=self._stop_dir,
                linux=pb.LinuxPodSandboxConfig(cgroup_parent="/kubepods/besteffort/pod" + uid))
            self._stop_sandbox = self.rt.RunPodSandbox(pb.RunPodSandboxRequest(config=self._stop_pod)).pod_sandbox_id
        self._stops += 1
        name = f"stopped-{self._stops}"
        ctr = pb.ContainerConfig(metadata=pb.ContainerMetadata(name=name, attempt=0),
                                 image=pb.ImageSpec(image="busybox"), command=["sh", "-c", script],
                                 log_path=name + ".log")
        cid = self.rt.CreateContainer(pb.CreateContainerRequest(
            pod_sandbox_id=self._stop_sandbox, config=ctr, sandbox_config=self._stop_pod)).container_id
        self.rt.StartContainer(pb.StartContainerRequest(container_id=cid))
        time.sleep(after_s)
        self.rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=max(1, round(grace_s))),
                              timeout=grace_s + 10)
        status = self.rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
        streams = {"stdout": [], "stderr": []}
        with open(status.log_path, encoding="utf-8", errors="replace") as log:
            for line in log:  # the CRI log format: TIME STREAM F|P TEXT
                _, stream, tag, text = line.rstrip("\n").split(" ", 3)
                streams[stream].append(text + ("\n" if tag == "F" else ""))
        self.rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
        return Result("".join(streams["stdout"]), "".join(streams["stderr"]), status.exit_code)

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
        for sandbox_id in filter(None, (self.sandbox_id, self._stop_sandbox)):
            try:
                self.rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sandbox_id), timeout=10)
                self.rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sandbox_id), timeout=10)
            except grpc.RpcError:
                pass
        if self._stop_dir:
            shutil.rmtree(self._stop_dir, ignore_errors=True)
        self.channel.close()
