"""The container RPCs of runtime.v1.RuntimeService: CreateContainer, StartContainer,
StopContainer, RemoveContainer, ContainerStatus, ListContainers and StreamContainers,
UpdateContainerResources, ReopenContainerLog, and GetContainerEvents, the stream of their
lifecycle events (containerd's container_*.go and events.go)."""
from __future__ import annotations

import posixpath
from collections.abc import AsyncIterator
from typing import Any, TypeAlias

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine import errors
from fakecri.engine.records import merged_resources, validate_resources
from fakecri.faults.quirk_kinds import remove_exiting_unknown, resize_not_applied, stop_returns_while_running
from fakecri.server.codec import decode, encode
from fakecri.server.codec.decode import container_parts
from fakecri.server.codec.encode import field_fragment
from fakecri.server.cri.cri_node import CRINode
from fakecri.server.cri.listings import Listings

Context: TypeAlias = Any  # a grpc.aio.ServicerContext (grpc ships no types)


def _go_quoted(text: str) -> str:
    """`text` as Go's %q writes a plain string (containerd's messages quote paths so)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class ContainerCalls:
    def __init__(self, node: CRINode, listings: Listings) -> None:
        self.node = node
        self.runtime, self.sim, self.statuses, self.plan = node.runtime, node.sim, node.statuses, node.plan
        self.host_root, self.log_files, self.config = node.host_root, node.log_files, node.config
        self.listings = listings

    async def CreateContainer(self, request: pb.CreateContainerRequest, context: Context) -> Any:
        cfg = request.config
        if not cfg.image.image:
            raise errors.InvalidArgument("CreateContainer: config.image.image is required")
        spec, resources = container_parts(cfg)
        self._confine_container(request.pod_sandbox_id, spec, cfg.log_path)
        if self.config.mount_propagation_check:
            self._check_propagation(cfg)
        c = self.runtime.create_container(
            request.pod_sandbox_id,
            name=cfg.metadata.name,
            attempt=cfg.metadata.attempt,
            image=cfg.image.image,
            labels=cfg.labels,  # the engine keeps its own copies of these
            annotations=cfg.annotations,
            command=cfg.command,
            args=cfg.args,
            log_path=cfg.log_path,
            resources=resources,
            spec=spec,
        )
        return pb.CreateContainerResponse(container_id=c.id)

    def _check_propagation(self, cfg: pb.ContainerConfig) -> None:
        """containerd's refusal of a propagating mount whose host path's mount does not propagate
        (its ensureShared / ensureSharedOrSlave; UNKNOWN, as a plain error reaches the kubelet)."""
        for m in cfg.mounts:
            if not m.host_path or m.propagation == pb.PROPAGATION_PRIVATE:
                continue
            found = self.sim.host.mount_propagation(m.host_path)
            if found is None:  # the host's table cannot be read: nothing to tell
                continue
            point, tags = found
            kinds = ("shared:",) if m.propagation == pb.PROPAGATION_BIDIRECTIONAL else ("shared:", "master:")
            if any(t.startswith(kinds) for t in tags.split()):
                continue
            what = "a shared mount" if len(kinds) == 1 else "a shared or slave mount"
            raise errors.CoreError(
                f"CreateContainer {cfg.metadata.name!r}: failed to generate container spec: failed to generate "
                f"spec: path {_go_quoted(posixpath.realpath(m.host_path))} is mounted on {_go_quoted(point)} "
                f"but it is not {what}")

    def _confine_container(self, sandbox_id: str, spec: Any, log_path: str) -> None:
        """PERMISSION_DENIED for a host path outside --host-root (the engine answers a missing sandbox)."""
        host_root = self.host_root
        if not host_root.confined:
            return
        try:
            sb = self.runtime.get_sandbox(sandbox_id)
        except errors.CoreError:
            return
        host_root.check_container(spec, posixpath.join(sb.log_directory, log_path) if log_path else "", "config.")

    async def StartContainer(self, request: pb.StartContainerRequest, context: Context) -> Any:
        self.runtime.start_container(request.container_id)
        return pb.StartContainerResponse()

    async def StopContainer(self, request: pb.StopContainerRequest, context: Context) -> Any:
        runtime = self.runtime
        taken = None
        if request.timeout > 0:  # a graceful stop: SIGTERM first (a timeout of 0 kills at once)
            try:  # a program that takes the signal into itself (a shell's trap) runs on from here
                said, taken = self.sim.signalled(runtime.get_container(request.container_id), self.node.now_ns(),
                                                 round(request.timeout * 1e9))
                self.node.apply(said)  # what it writes at once is logged
            except errors.NotFound:
                pass  # stopping what is not there does nothing
        lag = self._stop_lag_ns(request.container_id)
        with self.node.changing():  # the stop has begun: what it changed is out before the wait
            delay = runtime.stop_container(request.container_id, float(request.timeout), lag, taken)
        if lag:  # the stop-returns-while-running quirk: answered before the exit; the engine's timer ends it
            await self.node.wait(max(0.0, delay - lag / 1e9))
            return pb.StopContainerResponse()
        if delay > 0:
            cid = runtime.get_container(request.container_id).id
            await self.node.wait(delay)
            runtime.complete_stop(cid)  # nothing, if a reset or a wipe took the container meanwhile
        return pb.StopContainerResponse()

    def _stop_lag_ns(self, container_id: str) -> int:
        """How much later than the stop the exit comes (the stop-returns-while-running quirk; 0 without it)."""
        if not self.plan.has_quirks:
            return 0
        return stop_returns_while_running.stop_lag_ns(container_id, self.plan, self.runtime)

    async def RemoveContainer(self, request: pb.RemoveContainerRequest, context: Context) -> Any:
        cid, quirks = request.container_id, self.node.quirks()
        if quirks:  # none in force (the usual case): no quirk module is asked
            stop_returns_while_running.check_remove(cid, quirks, self.plan, self.runtime)
            remove_exiting_unknown.check_remove(cid, quirks, self.plan, self.runtime, self.node.now_ns)
        self.runtime.remove_container(request.container_id)
        return pb.RemoveContainerResponse()

    async def ListContainers(self, request: pb.ListContainersRequest, context: Context) -> Any:
        return self.listings.reply(request, self.listings.containers)

    async def StreamContainers(self, request: pb.StreamContainersRequest, context: Context) -> Any:
        for chunk in self.listings.chunks(request, self.listings.containers):
            yield chunk

    async def ContainerStatus(self, request: pb.ContainerStatusRequest, context: Context) -> Any:
        c = self.runtime.get_container(request.container_id)
        if not request.verbose:  # ContainerStatusResponse.status (field 1) from the cached status
            return field_fragment(1, self.statuses.container_status_bytes(c))
        resp = pb.ContainerStatusResponse(status=self.statuses.container_status(c))
        resp.info.update(encode.container_info(c))
        return resp

    async def UpdateContainerResources(self, request: pb.UpdateContainerResourcesRequest, context: Context) -> Any:
        c = self.runtime.get_container(request.container_id)
        quirks = self.node.quirks()
        if quirks and resize_not_applied.ignores_resize(quirks):
            return pb.UpdateContainerResourcesResponse()
        if not request.HasField("linux"):
            return pb.UpdateContainerResourcesResponse()  # nothing to change (annotations are hints; none kept)
        resources = merged_resources(c.resources, decode.resources_from_pb(request.linux))  # unset fields keep theirs
        validate_resources(resources, f"container {c.id} ({c.name})")
        after = self.sim.resize(c, resources)  # the kernel's say: refused (v1) or an OOM kill (v2)
        self.runtime.update_container_resources(c.id, resources)
        self.node.apply(after)
        return pb.UpdateContainerResourcesResponse()

    async def ReopenContainerLog(self, request: pb.ReopenContainerLogRequest, context: Context) -> Any:
        c = self.runtime.check_reopen_log(request.container_id)
        self.log_files.reopen(c.log_path)
        return pb.ReopenContainerLogResponse()

    def GetContainerEvents(self, request: Any, context: Context) -> AsyncIterator[bytes]:
        """The node's event stream, as it is: subscribed now, let go when it ends."""
        return self.node.event_stream()
