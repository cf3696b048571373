"""The stats and metrics RPCs of runtime.v1.RuntimeService: ContainerStats, ListContainerStats
and StreamContainerStats, PodSandboxStats, ListPodSandboxStats and StreamPodSandboxStats,
ListMetricDescriptors, ListPodSandboxMetrics and StreamPodSandboxMetrics (containerd's
container_stats*.go, sandbox_stats*.go, sandbox_metrics.go). The figures are the pure
functions of codec/stats_replies.py; a unary list answer stops as soon as it outgrows the
message limit, naming its Stream* twin."""
from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, TypeAlias

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.records import ContainerState
from fakecri.server.codec import stats_replies as replies
from fakecri.server.cri.cri_node import CRINode
from fakecri.server.cri.listings import STREAM_BATCH, selector
from fakecri.server.node.call_path import too_big

Context: TypeAlias = Any  # a grpc.aio.ServicerContext (grpc ships no types)


class StatsCalls:
    def __init__(self, node: CRINode) -> None:
        self.node = node
        self.runtime, self.sim, self.disk, self.config = node.runtime, node.sim, node.disk, node.config
        self._max_bytes = self.config.max_message_bytes  # Stream* batches stay under the message limit
        self._attributes = replies.Attributes()  # each container's stats attributes, made once

    async def ContainerStats(self, request: pb.ContainerStatsRequest, context: Context) -> Any:
        c = self.runtime.get_container(request.container_id)
        return pb.ContainerStatsResponse(stats=replies.container_stats(c, self.node.now_ns(), self.disk.place,
                                                                       self.sim.stats_script))

    def _container_stats(self, f: pb.ContainerStatsFilter) -> AsyncIterator[bytes]:
        items = self.runtime.list_containers(id=f.id, sandbox_id=f.pod_sandbox_id, label_selector=selector(f))
        items = [c for c in items if c.state != ContainerState.EXITED or f.id]
        attributes = self._attributes
        if not f.ByteSize():
            attributes.keep_only(c.id for c in items)  # the containers that went are let go
        elif len(attributes) > 2 * self.runtime.counts()["containers"] + 1000:
            attributes.keep_only(c.id for c in self.runtime.list_containers())
        now, place, scripts = self.node.now_ns(), replies.memo_place(self.disk), self.sim.stats_script
        return replies.sliced(items, lambda c: replies.container_stats_item(c, now, place, attributes, scripts))

    async def ListContainerStats(self, request: pb.ListContainerStatsRequest, context: Context) -> Any:
        return await self._whole("ListContainerStats", self._container_stats(request.filter))

    async def StreamContainerStats(self, request: pb.StreamContainerStatsRequest, context: Context) -> Any:
        async for chunk in self._batched(self._container_stats(request.filter)):
            yield chunk

    async def PodSandboxStats(self, request: pb.PodSandboxStatsRequest, context: Context) -> Any:
        rt = self.runtime
        [pod] = replies.pods_now(rt, [rt.get_sandbox(request.pod_sandbox_id)])
        return pb.PodSandboxStatsResponse(stats=replies.pod_sandbox_stats(*pod, self.node.now_ns(),
                                                                          self.disk.place,
                                                                          self.sim.stats_script))

    def _sandbox_stats(self, f: pb.PodSandboxStatsFilter) -> AsyncIterator[bytes]:
        rt = self.runtime
        pods = replies.pods_now(rt, rt.list_sandboxes(id=f.id, label_selector=selector(f)))
        now, place, scripts = self.node.now_ns(), replies.memo_place(self.disk), self.sim.stats_script
        return replies.sliced(pods, lambda pod: replies.pod_sandbox_stats_item(pod, now, place, scripts))

    async def ListPodSandboxStats(self, request: pb.ListPodSandboxStatsRequest, context: Context) -> Any:
        return await self._whole("ListPodSandboxStats", self._sandbox_stats(request.filter))

    async def StreamPodSandboxStats(self, request: pb.StreamPodSandboxStatsRequest, context: Context) -> Any:
        async for chunk in self._batched(self._sandbox_stats(request.filter)):
            yield chunk

    async def ListMetricDescriptors(self, request: pb.ListMetricDescriptorsRequest, context: Context) -> Any:
        return pb.ListMetricDescriptorsResponse(descriptors=replies.metric_descriptors())

    def _sandbox_metrics(self) -> AsyncIterator[bytes]:
        rt = self.runtime
        pods, now, scripts = replies.pods_now(rt, rt.list_sandboxes()), self.node.now_ns(), self.sim.stats_script
        return replies.sliced(pods, lambda pod: replies.pod_sandbox_metrics_item(pod, now, scripts))

    async def ListPodSandboxMetrics(self, request: pb.ListPodSandboxMetricsRequest, context: Context) -> Any:
        return await self._whole("ListPodSandboxMetrics", self._sandbox_metrics())

    async def StreamPodSandboxMetrics(self, request: pb.StreamPodSandboxMetricsRequest, context: Context) -> Any:
        async for chunk in self._batched(self._sandbox_metrics()):
            yield chunk

    async def _whole(self, name: str, items: AsyncIterator[bytes]) -> bytes:
        """A unary list answer: every item, or RESOURCE_EXHAUSTED naming the Stream* twin as soon as
        the items outgrow the message limit (the rest is not computed)."""
        parts: list[bytes] = []
        size = 0
        async for item in items:
            size += len(item)
            if size > self._max_bytes:
                raise too_big(name, size, self._max_bytes, at_least=True)
            parts.append(item)
        return b"".join(parts)

    async def _batched(self, items: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """Stream* messages: up to STREAM_BATCH items, and never more bytes than the message limit."""
        chunk: list[bytes] = []
        size = 0
        async for item in items:
            if chunk and (len(chunk) >= STREAM_BATCH or size + len(item) > self._max_bytes):
                yield b"".join(chunk)
                chunk, size = [], 0
            chunk.append(item)
            size += len(item)
        if chunk:
            yield b"".join(chunk)
