"""The pod sandbox RPCs of runtime.v1.RuntimeService: RunPodSandbox, StopPodSandbox,
RemovePodSandbox, PodSandboxStatus, ListPodSandbox and StreamPodSandboxes,
UpdatePodSandboxResources (containerd's sandbox_*.go)."""
from __future__ import annotations

from typing import Any, TypeAlias

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.faults.quirk_kinds import no_container_deleted_on_sandbox_remove
from fakecri.server.codec import decode, encode
from fakecri.server.codec.decode import check_sandbox_config, sandbox_spec
from fakecri.server.cri.cri_node import CRINode
from fakecri.server.cri.listings import Listings
from fakecri.server.streaming.annotations import check_port_forward_annotations

Context: TypeAlias = Any  # a grpc.aio.ServicerContext (grpc ships no types)


class SandboxCalls:
    def __init__(self, node: CRINode, listings: Listings) -> None:
        self.node = node
        self.runtime, self.statuses, self.plan, self.host_root = node.runtime, node.statuses, node.plan, node.host_root
        self.listings = listings

    async def RunPodSandbox(self, request: pb.RunPodSandboxRequest, context: Context) -> Any:
        cfg = request.config
        check_sandbox_config(cfg)
        check_port_forward_annotations(cfg.annotations)
        md = cfg.metadata
        linux_res = cfg.linux.resources if cfg.linux.HasField("resources") else None
        overhead = cfg.linux.overhead if cfg.linux.HasField("overhead") else None
        spec = sandbox_spec(cfg)
        self.host_root.check_sandbox(cfg.log_directory, spec, "config.")
        sb = self.runtime.run_pod_sandbox(
            name=md.name,
            namespace=md.namespace,
            uid=md.uid,
            attempt=md.attempt,
            labels=dict(cfg.labels),
            annotations=dict(cfg.annotations),
            hostname=cfg.hostname,
            log_directory=cfg.log_directory,
            runtime_handler=request.runtime_handler,
            spec=spec,
            resources=decode.resources_from_pb(linux_res) if linux_res is not None else None,
            overhead=decode.resources_from_pb(overhead) if overhead is not None else None,
        )
        return pb.RunPodSandboxResponse(pod_sandbox_id=sb.id)

    async def StopPodSandbox(self, request: pb.StopPodSandboxRequest, context: Context) -> Any:
        self.runtime.stop_pod_sandbox(request.pod_sandbox_id)
        return pb.StopPodSandboxResponse()

    async def RemovePodSandbox(self, request: pb.RemovePodSandboxRequest, context: Context) -> Any:
        quirks = self.node.quirks()
        quiet = no_container_deleted_on_sandbox_remove.quiet_on_remove(
            request.pod_sandbox_id, quirks, self.plan, self.runtime) if quirks else None
        if quiet is not None:
            self.node.quiet_container_deletes(quiet)
        self.runtime.remove_pod_sandbox(request.pod_sandbox_id)
        return pb.RemovePodSandboxResponse()

    async def PodSandboxStatus(self, request: pb.PodSandboxStatusRequest, context: Context) -> Any:
        sb = self.runtime.get_sandbox(request.pod_sandbox_id)
        if not request.verbose:  # wire bytes from the cached statuses (the common kubelet call)
            return self.statuses.sandbox_status_wire(sb, self.node.quirks(), self.node.now_ns())
        resp = self.statuses.sandbox_status_response(sb, self.node.quirks(), self.node.now_ns())
        resp.info.update(encode.sandbox_info(sb))
        return resp

    async def ListPodSandbox(self, request: pb.ListPodSandboxRequest, context: Context) -> Any:
        return self.listings.reply(request, self.listings.sandboxes)

    async def StreamPodSandboxes(self, request: pb.StreamPodSandboxesRequest, context: Context) -> Any:
        for chunk in self.listings.chunks(request, self.listings.sandboxes):
            yield chunk

    async def UpdatePodSandboxResources(self, request: pb.UpdatePodSandboxResourcesRequest, context: Context) -> Any:
        self.runtime.update_pod_sandbox_resources(
            request.pod_sandbox_id,
            overhead=decode.resources_from_pb(request.overhead) if request.HasField("overhead") else None,
            resources=decode.resources_from_pb(request.resources) if request.HasField("resources") else None,
        )
        return pb.UpdatePodSandboxResourcesResponse()
