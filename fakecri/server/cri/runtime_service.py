"""runtime.v1.RuntimeService: protobuf in, engine calls, protobuf (or cached wire bytes) out.

No business rules live here; they are in the engine (fakecri.engine) and the container
simulation (fakecri.sim). Errors they raise are turned into status codes by the call
wrapper (call_wrapper.py), through status.py.
"""
from __future__ import annotations

import posixpath
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from fakecri import __version__
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine import errors
from fakecri.engine.records import ContainerState, SandboxState
from fakecri.engine.resources import merged, validate
from fakecri.engine.runtime import Runtime
from fakecri.faults.quirks import Quirk
from fakecri.server.codec import stats_replies as replies
from fakecri.server.codec import translate as tr
from fakecri.server.codec.configs import check_sandbox_config, checked_container_spec, sandbox_spec
from fakecri.server.codec.wire import FragmentCache, VersionedCache, batches, field_fragment
from fakecri.server.cri import checkpoint_archives as archives
from fakecri.server.events.delivery import deliver
from fakecri.server.exceptions import DeadlineExceeded
from fakecri.server.host.processes import exec_to_end
from fakecri.server.node.call_wrapper import too_big
from fakecri.server.node.node import Node
from fakecri.server.streaming.annotations import check_port_forward_annotations

Context: TypeAlias = Any  # a grpc.aio.ServicerContext (grpc ships no types)

if TYPE_CHECKING:
    from fakecri.server.streaming.runtime_backend import StreamingUrls

STREAM_BATCH = 5000  # items per Stream* message, as containerd batches them
EXITING_NS = 2_000_000_000  # remove-exiting-unknown: how long after its exit a container counts as exiting
_SANDBOX_STATES = frozenset(s.value for s in SandboxState)
_CONTAINER_STATES = frozenset(s.value for s in ContainerState)


def _selector(msg: Any) -> dict[str, str] | None:
    return dict(msg.label_selector) if msg.label_selector else None


@dataclass(frozen=True)
class _Listing:
    """How the List* and Stream* RPCs of one kind of record read the runtime."""

    key: str  # the cache key of the unfiltered answers
    every: Callable[[Runtime], list[Any]]  # all the records, in list order
    matching: Callable[[Runtime, Any], list[Any]]  # the records a filter matches
    fragments: FragmentCache  # each record's list item


def _matching_sandboxes(runtime: Runtime, f: Any) -> list[Any]:
    if f.HasField("state") and f.state.state not in _SANDBOX_STATES:
        return []  # a state no sandbox can be in matches nothing
    state = SandboxState(f.state.state) if f.HasField("state") else None
    return runtime.list_sandboxes(id=f.id, state=state, label_selector=_selector(f))


def _matching_containers(runtime: Runtime, f: Any) -> list[Any]:
    if f.HasField("state") and f.state.state not in _CONTAINER_STATES:
        return []  # a state no container can be in matches nothing
    state = ContainerState(f.state.state) if f.HasField("state") else None
    return runtime.list_containers(id=f.id, state=state, sandbox_id=f.pod_sandbox_id, label_selector=_selector(f))


class RuntimeService:
    def __init__(self, node: Node, streaming: StreamingUrls | None = None) -> None:
        self.node = node  # its methods: time, waits, the network, events, counters
        # The parts of the node the CRI calls read and change (each changes only inside the
        # call's `node.changing()`, which the call wrapper opens).
        self.runtime, self.sim, self.statuses, self.plan = node.runtime, node.sim, node.statuses, node.plan
        self.config, self.disk, self.host_root = node.config, node.disk, node.host_root
        self.log_files, self.sessions, self.bus = node.log_files, node.sessions, node.bus
        self._streaming = streaming  # the exec/attach/port-forward server's URLs (None: not running)
        # Unfiltered list answers (the relist), reused while nothing changed.
        self._answers = VersionedCache(self.config.max_message_bytes)
        self._max_bytes = self.config.max_message_bytes  # Stream* batches stay under the message limit
        self._attributes = replies.Attributes()  # each container's stats attributes, made once
        self._sandboxes = _Listing("sandboxes", lambda rt: rt.list_sandboxes(), _matching_sandboxes,
                                   FragmentCache(tr.sandbox_item))
        self._containers = _Listing("containers", lambda rt: rt.list_containers(), _matching_containers,
                                    FragmentCache(tr.container_item))

    # ------------------------------------------------------------ runtime info

    async def Version(self, request: pb.VersionRequest, context: Context) -> Any:
        return pb.VersionResponse(
            version="0.1.0", runtime_name="fakecri", runtime_version=__version__, runtime_api_version="v1"
        )

    async def Status(self, request: pb.StatusRequest, context: Context) -> Any:
        conditions = self.node.conditions()
        resp = pb.StatusResponse(
            status=pb.RuntimeStatus(
                conditions=[
                    pb.RuntimeCondition(type=name, status=c.status, reason=c.reason, message=c.message)
                    for name, c in conditions.items()
                ]
            ),
            runtime_handlers=[
                pb.RuntimeHandler(
                    name=h, features=pb.RuntimeHandlerFeatures(recursive_read_only_mounts=True, user_namespaces=True)
                )
                for h in self.config.runtime_handlers
            ],
            features=pb.RuntimeFeatures(supplemental_groups_policy=True, user_namespaces_host_network=True,
                                        mount_options=True),
        )
        if request.verbose:
            resp.info["config"] = self.node.describe_config()
        return resp

    async def RuntimeConfig(self, request: pb.RuntimeConfigRequest, context: Context) -> Any:
        driver = pb.CGROUPFS if self.config.cgroup_driver == "cgroupfs" else pb.SYSTEMD
        return pb.RuntimeConfigResponse(linux=pb.LinuxRuntimeConfiguration(cgroup_driver=driver))

    async def UpdateRuntimeConfig(self, request: pb.UpdateRuntimeConfigRequest, context: Context) -> Any:
        cidr = request.runtime_config.network_config.pod_cidr
        if cidr:
            self.runtime.set_pod_cidr(cidr)
        return pb.UpdateRuntimeConfigResponse()

    # ------------------------------------------------------------ sandboxes

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
            resources=tr.resources_from_pb(linux_res) if linux_res is not None else None,
            overhead=tr.resources_from_pb(overhead) if overhead is not None else None,
        )
        return pb.RunPodSandboxResponse(pod_sandbox_id=sb.id)

    async def StopPodSandbox(self, request: pb.StopPodSandboxRequest, context: Context) -> Any:
        self.runtime.stop_pod_sandbox(request.pod_sandbox_id)
        return pb.StopPodSandboxResponse()

    async def RemovePodSandbox(self, request: pb.RemovePodSandboxRequest, context: Context) -> Any:
        if Quirk.NO_CONTAINER_DELETED_ON_SANDBOX_REMOVE in self.node.quirks():  # CRI-O 1.36
            found = self.runtime.list_sandboxes(id=request.pod_sandbox_id)
            if found and self.plan.quirk_hit(Quirk.NO_CONTAINER_DELETED_ON_SANDBOX_REMOVE, found[0].id[:12]):
                self.node.quiet_container_deletes(found[0].id)
        self.runtime.remove_pod_sandbox(request.pod_sandbox_id)
        return pb.RemovePodSandboxResponse()

    async def PodSandboxStatus(self, request: pb.PodSandboxStatusRequest, context: Context) -> Any:
        sb = self.runtime.get_sandbox(request.pod_sandbox_id)
        if not request.verbose:  # wire bytes from the cached statuses (the common kubelet call)
            return self.statuses.sandbox_status_wire(sb, self.node.quirks(), self.node.now_ns())
        resp = self.statuses.sandbox_status_response(sb, self.node.quirks(), self.node.now_ns())
        resp.info.update(tr.sandbox_info(sb))
        return resp

    def _list_reply(self, request: Any, listing: _Listing) -> bytes:
        """A List* reply: the matching records' fragments joined; unfiltered, kept while nothing changes."""
        runtime = self.runtime
        if request.filter.ByteSize():
            return b"".join(map(listing.fragments.of, listing.matching(runtime, request.filter)))
        changes = runtime.changes
        data: bytes | None = self._answers.get(listing.key, changes)
        if data is None:
            data = b"".join(listing.fragments.every(listing.every(runtime)))
            self._answers.put(listing.key, changes, data)
        return data

    def _stream_chunks(self, request: Any, listing: _Listing) -> Iterable[bytes]:
        """The Stream* replies of the same list, in batches (kept too when unfiltered)."""
        runtime = self.runtime
        if request.filter.ByteSize():
            frags = list(map(listing.fragments.of, listing.matching(runtime, request.filter)))
            return batches(frags, STREAM_BATCH, self._max_bytes)
        changes = runtime.changes
        key = listing.key + "-batches"
        chunks: list[bytes] | None = self._answers.get(key, changes)
        if chunks is None:
            chunks = list(batches(listing.fragments.every(listing.every(runtime)), STREAM_BATCH, self._max_bytes))
            self._answers.put(key, changes, chunks)
        return chunks

    async def ListPodSandbox(self, request: pb.ListPodSandboxRequest, context: Context) -> Any:
        return self._list_reply(request, self._sandboxes)

    async def StreamPodSandboxes(self, request: pb.StreamPodSandboxesRequest, context: Context) -> Any:
        for chunk in self._stream_chunks(request, self._sandboxes):
            yield chunk

    async def UpdatePodSandboxResources(self, request: pb.UpdatePodSandboxResourcesRequest, context: Context) -> Any:
        self.runtime.update_pod_sandbox_resources(
            request.pod_sandbox_id,
            overhead=tr.resources_from_pb(request.overhead) if request.HasField("overhead") else None,
            resources=tr.resources_from_pb(request.resources) if request.HasField("resources") else None,
        )
        return pb.UpdatePodSandboxResourcesResponse()

    # ------------------------------------------------------------ containers

    async def CreateContainer(self, request: pb.CreateContainerRequest, context: Context) -> Any:
        cfg = request.config
        if not cfg.image.image:
            raise errors.InvalidArgument("CreateContainer: config.image.image is required")
        spec = checked_container_spec(cfg)
        self._confine_container(request.pod_sandbox_id, spec, cfg.log_path)
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
            resources=tr.resources_from_pb(cfg.linux.resources),
            spec=spec,
        )
        return pb.CreateContainerResponse(container_id=c.id)

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
        if request.timeout > 0:  # a graceful stop: SIGTERM first (a timeout of 0 kills at once)
            try:
                self.node.apply(self.sim.signalled(runtime.get_container(request.container_id),
                                                   self.node.now_ns()))  # a trap's output is logged
            except errors.NotFound:
                pass  # stopping what is not there does nothing
        lag = self._stop_lag_ns(request.container_id)
        with self.node.changing():  # the stop has begun: what it changed is out before the wait
            delay = runtime.stop_container(request.container_id, float(request.timeout), lag)
        if lag:  # the stop-returns-while-running quirk: answered before the exit; the engine's timer ends it
            await self.node.wait(max(0.0, delay - lag / 1e9))
            return pb.StopContainerResponse()
        if delay > 0:
            cid = runtime.get_container(request.container_id).id
            await self.node.wait(delay)
            runtime.complete_stop(cid)  # nothing, if a reset or a wipe took the container meanwhile
        return pb.StopContainerResponse()

    # ---- the stop-returns-while-running quirk (containerd 1.6.20, 2.0.0, 2.3.4)

    def _stop_lag_ns(self, container_id: str) -> int:
        """How much later than the stop the exit comes (0 without the quirk): 150-250 ms,
        drawn from the quirk's seeded stream, for a container that is running."""
        rng = self.plan.quirk_rng(Quirk.STOP_RETURNS_WHILE_RUNNING) if self.plan.has_quirks else None
        if rng is None:
            return 0
        found = self.runtime.list_containers(id=container_id)
        if not found or found[0].state != ContainerState.RUNNING:
            return 0
        self.plan.quirk_hit(Quirk.STOP_RETURNS_WHILE_RUNNING, f"stop {found[0].id[:12]}")
        return rng.randrange(150_000_000, 250_000_001)

    def _refuse_still_running(self, container_id: str) -> None:
        """containerd's RemoveContainer finds the container RUNNING while its exit is not yet
        handled, and wraps setContainerRemoving's error (a plain error: UNKNOWN)."""
        found = self.runtime.list_containers(id=container_id)
        if (found and found[0].state == ContainerState.RUNNING and self.runtime.is_stopping(found[0].id)
                and self.plan.quirk_hit(Quirk.STOP_RETURNS_WHILE_RUNNING, f"remove {found[0].id[:12]}")):
            raise errors.from_code("UNKNOWN", f"failed to set removing state for container {found[0].id!r}: "
                                              "container is still running, to stop first")

    async def RemoveContainer(self, request: pb.RemoveContainerRequest, context: Context) -> Any:
        if Quirk.STOP_RETURNS_WHILE_RUNNING in self.node.quirks():
            self._refuse_still_running(request.container_id)
        if Quirk.REMOVE_EXITING_UNKNOWN in self.node.quirks():
            self._refuse_exiting(request.container_id)
        self.runtime.remove_container(request.container_id)
        return pb.RemoveContainerResponse()

    def _refuse_exiting(self, container_id: str) -> None:
        """The remove-exiting-unknown quirk: containerd 1.6 refused to remove a container whose
        exit it had not finished handling; here, one stopping or exited less than 2 s ago."""
        runtime = self.runtime
        found = runtime.list_containers(id=container_id)
        if not found:
            return
        c = found[0]
        stopping = runtime.is_stopping(c.id)
        just_exited = c.state == ContainerState.EXITED and self.node.now_ns() - c.finished_at < EXITING_NS
        if (stopping or just_exited) and self.plan.quirk_hit(Quirk.REMOVE_EXITING_UNKNOWN, c.id[:12]):
            raise errors.from_code("UNKNOWN", f"failed to set removing state for container {c.id!r}: "
                                              "container is still running, to stop first")

    async def ListContainers(self, request: pb.ListContainersRequest, context: Context) -> Any:
        return self._list_reply(request, self._containers)

    async def StreamContainers(self, request: pb.StreamContainersRequest, context: Context) -> Any:
        for chunk in self._stream_chunks(request, self._containers):
            yield chunk

    async def ContainerStatus(self, request: pb.ContainerStatusRequest, context: Context) -> Any:
        c = self.runtime.get_container(request.container_id)
        if not request.verbose:  # ContainerStatusResponse.status (field 1) from the cached status
            return field_fragment(1, self.statuses.container_status_bytes(c))
        resp = pb.ContainerStatusResponse(status=self.statuses.container_status(c))
        resp.info.update(tr.container_info(c))
        return resp

    async def UpdateContainerResources(self, request: pb.UpdateContainerResourcesRequest, context: Context) -> Any:
        c = self.runtime.get_container(request.container_id)
        if Quirk.RESIZE_NOT_APPLIED in self.node.quirks():
            return pb.UpdateContainerResourcesResponse()
        if not request.HasField("linux"):
            return pb.UpdateContainerResourcesResponse()  # nothing to change (annotations are hints; none kept)
        resources = merged(c.resources, tr.resources_from_pb(request.linux))  # unset fields keep theirs
        validate(resources, f"container {c.id} ({c.name})")
        after = self.sim.resize(c, resources)  # the kernel's say: refused (v1) or an OOM kill (v2)
        self.runtime.update_container_resources(c.id, resources)
        self.node.apply(after)
        return pb.UpdateContainerResourcesResponse()

    async def ReopenContainerLog(self, request: pb.ReopenContainerLogRequest, context: Context) -> Any:
        c = self.runtime.check_reopen_log(request.container_id)
        self.log_files.reopen(c.log_path)
        return pb.ReopenContainerLogResponse()

    async def ExecSync(self, request: pb.ExecSyncRequest, context: Context) -> Any:
        if not request.cmd:
            raise errors.InvalidArgument(f"ExecSync in container {request.container_id}: cmd is empty")
        c = self.runtime.check_exec(request.container_id)
        proc = self.sim.exec_process(c, list(request.cmd), self.node.now_ns())
        with self.sessions.watch(c.id) as watch:  # killed with its container: 137 and its output so far
            result = await exec_to_end(proc, wait=lambda s: self.node.wait(s, until=watch.ended),
                                       timeout_s=float(request.timeout), ended=watch.ended, dial=self.node.dial)
        if result.timed_out:  # as containerd words it (DEADLINE_EXCEEDED: the kubelet's probe then fails)
            raise DeadlineExceeded(
                f"failed to exec in container: timeout {request.timeout}s exceeded: context deadline exceeded")
        return pb.ExecSyncResponse(stdout=result.stdout, stderr=result.stderr, exit_code=result.exit_code)

    # ------------------------------------------------------------ streaming endpoints

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

    # ------------------------------------------------------------ stats

    async def ContainerStats(self, request: pb.ContainerStatsRequest, context: Context) -> Any:
        c = self.runtime.get_container(request.container_id)
        return pb.ContainerStatsResponse(stats=replies.container_stats(c, self.node.now_ns(), self.disk.place,
                                                                       self.sim.stats_script))

    def _container_stats(self, f: pb.ContainerStatsFilter) -> AsyncIterator[bytes]:
        items = self.runtime.list_containers(id=f.id, sandbox_id=f.pod_sandbox_id, label_selector=_selector(f))
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
        pods = replies.pods_now(rt, rt.list_sandboxes(id=f.id, label_selector=_selector(f)))
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

    # ------------------------------------------------------------ checkpoints

    async def CheckpointContainer(self, request: pb.CheckpointContainerRequest, context: Context) -> Any:
        archives.checkpoint_container(self.runtime, request.container_id, request.location, self.host_root)
        return pb.CheckpointContainerResponse()

    async def CheckpointPod(self, request: pb.CheckpointPodRequest, context: Context) -> Any:
        archives.checkpoint_pod(self.runtime, request.pod_sandbox_id, request.output_path,
                                list(request.container_ids), self.host_root)
        return pb.CheckpointPodResponse()

    async def RestorePod(self, request: pb.RestorePodRequest, context: Context) -> Any:
        sb, containers = archives.restore_pod(self.runtime, request, self.host_root)
        return pb.RestorePodResponse(
            pod_sandbox_id=sb.id,
            restored_containers=[pb.RestoredContainer(name=c.name, container_id=c.id) for c in containers],
        )

    # ------------------------------------------------------------ events

    def GetContainerEvents(self, request: Any, context: Context) -> AsyncIterator[bytes]:
        """The stream itself is `deliver`'s: the subscription is taken here and let go when it ends."""
        sub, faults = self.node.subscribe()
        return deliver(self.bus, sub, faults, self.node.counters, self.node.unsubscribe)
