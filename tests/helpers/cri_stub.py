"""A tiny scriptable CRI server (grpc, threads) on a real unix socket.

It stands in for runtimes that behave in ways fakecri does not by default: no Stream*
RPCs, a stream that fails midway, an event stream that closes cleanly at once.
Unset RPCs answer UNIMPLEMENTED (the generated servicer's default).
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading
from concurrent import futures

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc as pb_grpc


class StubRuntime(pb_grpc.RuntimeServiceServicer):
    def __init__(self) -> None:
        self.sandboxes: list[pb.PodSandbox] = []
        self.containers: list[pb.Container] = []
        self.stream_containers = True  # False: UNIMPLEMENTED
        self.fail_stream_after: int | None = None  # items sent before an UNAVAILABLE
        self.events: list[pb.ContainerEventResponse] = []
        self.event_end: grpc.StatusCode = grpc.StatusCode.OK
        self.event_hold = threading.Event()  # set: end the stream after sending `events`
        self.event_hold.set()
        self.calls: list[str] = []
        self.sleep_version = 0.0

    def Version(self, request, context):
        self.calls.append("Version")
        if self.sleep_version:
            threading.Event().wait(self.sleep_version)
        return pb.VersionResponse(version="0.1.0", runtime_name="stub", runtime_version="1", runtime_api_version="v1")

    def ListPodSandbox(self, request, context):
        self.calls.append("ListPodSandbox")
        return pb.ListPodSandboxResponse(items=self.sandboxes)

    def StreamPodSandboxes(self, request, context):
        self.calls.append("StreamPodSandboxes")
        for sb in self.sandboxes:
            yield pb.StreamPodSandboxesResponse(pod_sandboxes=[sb])

    def ListContainers(self, request, context):
        self.calls.append("ListContainers")
        return pb.ListContainersResponse(containers=self.containers)

    def StreamContainers(self, request, context):
        self.calls.append("StreamContainers")
        if not self.stream_containers:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "no streaming here")
        for i, c in enumerate(self.containers):
            if self.fail_stream_after is not None and i >= self.fail_stream_after:
                context.abort(grpc.StatusCode.UNAVAILABLE, "cut midway")
            yield pb.StreamContainersResponse(containers=[c])

    def ContainerStatus(self, request, context):
        self.calls.append("ContainerStatus")
        for c in self.containers:
            if c.id == request.container_id:
                return pb.ContainerStatusResponse(status=pb.ContainerStatus(
                    id=c.id, metadata=c.metadata, state=c.state))
        context.abort(grpc.StatusCode.NOT_FOUND, f"container {request.container_id} not found")

    def PodSandboxStatus(self, request, context):
        self.calls.append("PodSandboxStatus")
        for sb in self.sandboxes:
            if sb.id == request.pod_sandbox_id:
                return pb.PodSandboxStatusResponse(status=pb.PodSandboxStatus(
                    id=sb.id, metadata=sb.metadata, state=sb.state, created_at=sb.created_at))
        context.abort(grpc.StatusCode.NOT_FOUND, f"sandbox {request.pod_sandbox_id} not found")

    def GetContainerEvents(self, request, context):
        self.calls.append("GetContainerEvents")
        yield from self.events
        while not self.event_hold.wait(0.05):
            if not context.is_active():
                return
        if self.event_end is not grpc.StatusCode.OK:
            context.abort(self.event_end, "stub ends the stream")


class StubServer:
    def __init__(self, servicer: StubRuntime) -> None:
        self.servicer = servicer
        self.dir = tempfile.mkdtemp(prefix="fc-")
        self.path = os.path.join(self.dir, "stub.sock")
        self.endpoint = "unix://" + self.path
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        pb_grpc.add_RuntimeServiceServicer_to_server(servicer, self._server)
        self._server.add_insecure_port(self.endpoint)

    def __enter__(self) -> StubServer:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.servicer.event_hold.set()
        self._server.stop(0).wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)
