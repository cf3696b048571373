"""The RPCs that run commands in a container or reach into it: ExecSync, run to its end here,
and Exec, Attach and PortForward, which answer with the streaming server's URL for the
session (containerd's container_execsync.go, container_exec.go, container_attach.go,
sandbox_portforward.go)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine import errors
from fakecri.server.cri.cri_node import CRINode
from fakecri.server.exceptions import DeadlineExceeded
from fakecri.server.host.processes import exec_to_end

if TYPE_CHECKING:
    from fakecri.server.streaming.runtime_backend import StreamingUrls

Context: TypeAlias = Any  # a grpc.aio.ServicerContext (grpc ships no types)


class ExecCalls:
    def __init__(self, node: CRINode, streaming: StreamingUrls | None) -> None:
        self.node = node
        self.runtime, self.sim, self.sessions = node.runtime, node.sim, node.sessions
        self._streaming = streaming  # the exec/attach/port-forward server's URLs (None: not running)

    async def ExecSync(self, request: pb.ExecSyncRequest, context: Context) -> Any:
        if not request.cmd:
            raise errors.InvalidArgument(f"ExecSync in container {request.container_id}: cmd is empty")
        c = self.runtime.check_exec(request.container_id)
        proc = self.sim.exec_process(c, list(request.cmd), self.node.now_ns())
        with self.sessions.watch(c.id) as watch:  # killed with its container: 137 and its output so far
            result = await exec_to_end(proc, wait=lambda s: self.node.wait(s, until=watch.ended),
                                       timeout_s=float(request.timeout), ended=watch.ended, dial=self.node.dial,
                                       to_log=self.node.pid1_log(c))
        if result.timed_out:  # as containerd words it (DEADLINE_EXCEEDED: the kubelet's probe then fails)
            raise DeadlineExceeded(
                f"failed to exec in container: timeout {request.timeout}s exceeded: context deadline exceeded")
        return pb.ExecSyncResponse(stdout=result.stdout, stderr=result.stderr, exit_code=result.exit_code)

    def _streaming_url(self, kind: str, request: Any) -> str:
        if self._streaming is None:
            raise errors.FailedPrecondition(f"{kind}: the streaming server is not running")
        return self._streaming.url_for(kind, request)

    async def Exec(self, request: pb.ExecRequest, context: Context) -> Any:
        return pb.ExecResponse(url=self._streaming_url("exec", request))

    async def Attach(self, request: pb.AttachRequest, context: Context) -> Any:
        return pb.AttachResponse(url=self._streaming_url("attach", request))

    async def PortForward(self, request: pb.PortForwardRequest, context: Context) -> Any:
        return pb.PortForwardResponse(url=self._streaming_url("portforward", request))
