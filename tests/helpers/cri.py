"""Request builders shaped like the ones a kubelet sends."""
from __future__ import annotations

import threading
import uuid

import grpc
import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from helpers.polling import first_true


def code_of(fn, *args):
    """The status code and details of a call that must fail."""
    with pytest.raises(grpc.RpcError) as info:
        fn(*args)
    return info.value.code(), info.value.details()


def sandbox_config(name: str = "pod", namespace: str = "default", uid: str | None = None, attempt: int = 0,
                   labels: dict | None = None, log_directory: str = "") -> pb.PodSandboxConfig:
    uid = uid or str(uuid.uuid4())
    return pb.PodSandboxConfig(
        metadata=pb.PodSandboxMetadata(name=name, namespace=namespace, uid=uid, attempt=attempt),
        hostname=name,
        log_directory=log_directory,
        labels={"io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": namespace,
                "io.kubernetes.pod.uid": uid, **(labels or {})},
        annotations={"kubernetes.io/config.source": "api"},
        linux=pb.LinuxPodSandboxConfig(cgroup_parent="/kubepods/burstable/pod" + uid),
    )


def container_config(name: str = "app", image: str = "busybox", command=None, args=None, attempt: int = 0,
                     labels: dict | None = None, annotations: dict | None = None,
                     log_path: str = "") -> pb.ContainerConfig:
    return pb.ContainerConfig(
        metadata=pb.ContainerMetadata(name=name, attempt=attempt),
        image=pb.ImageSpec(image=image),
        command=command or [],
        args=args or [],
        labels={"io.kubernetes.container.name": name, **(labels or {})},
        annotations=annotations or {},
        log_path=log_path or f"{name}/{attempt}.log",
        linux=pb.LinuxContainerConfig(
            resources=pb.LinuxContainerResources(cpu_shares=102, memory_limit_in_bytes=64 << 20)
        ),
    )


def run_pod(rt, img, name="pod", command=None, image="busybox", log_directory="", annotations=None):
    """Pull (if not present, as a kubelet's IfNotPresent does), run a sandbox, create and start
    one container; returns (sandbox_id, container_id)."""
    if not img.ImageStatus(pb.ImageStatusRequest(image=pb.ImageSpec(image=image))).HasField("image"):
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=image)))
    cfg = sandbox_config(name, log_directory=log_directory)
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    cid = rt.CreateContainer(pb.CreateContainerRequest(
        pod_sandbox_id=sid, config=container_config(image=image, command=command, annotations=annotations),
        sandbox_config=cfg)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    return sid, cid


class EventCollector:
    """A GetContainerEvents subscriber on its own channel and thread, like a kubelet's.
    With `read=False` it subscribes but does not read until `start_reading()`."""

    def __init__(self, target: str, *, read: bool = True) -> None:
        # A reader that stops reading: no BDP probing, so the transport's window stays at 64 KiB
        # and the server's queue for it fills soon (with probing gRPC buffers megabytes first).
        options = [] if read else [("grpc.http2.bdp_probe", 0)]
        self.channel = grpc.insecure_channel(target, options=options)
        self.stub = api_pb2_grpc.RuntimeServiceStub(self.channel)
        self.events: list[pb.ContainerEventResponse] = []
        self.error: grpc.RpcError | None = None
        self.ended = threading.Event()
        self._call = self.stub.GetContainerEvents(pb.GetEventsRequest())
        self._thread: threading.Thread | None = None
        if read:
            self.start_reading()

    def _run(self) -> None:
        try:
            for ev in self._call:
                self.events.append(ev)
        except grpc.RpcError as exc:
            self.error = exc
        finally:
            self.ended.set()

    def start_reading(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def wait_for(self, n: int, timeout: float = 5.0) -> list[pb.ContainerEventResponse]:
        import time

        deadline = time.monotonic() + timeout
        while len(self.events) < n and time.monotonic() < deadline and not self.ended.is_set():
            time.sleep(0.01)
        return list(self.events)

    def close(self) -> None:
        self._call.cancel()
        if self._thread is not None:
            self.ended.wait(10)
        self.channel.close()


def wait_subscribers(server, n: int, timeout: float = 5.0) -> None:
    """Return once `n` event subscribers are registered on `server`'s node (AssertionError
    after `timeout` seconds)."""
    if first_true(lambda: server.call(lambda: len(server.node.bus.subscribers)) >= n, timeout, 0.01) is None:
        raise AssertionError(f"{n} subscribers never registered")


def kinds(events) -> list[tuple[str, str]]:
    """(event type name, container id prefix) pairs for readable assertions."""
    return [(pb.ContainerEventType.Name(e.container_event_type), e.container_id[:8]) for e in events]
