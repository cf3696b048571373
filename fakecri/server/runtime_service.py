"""runtime.v1.RuntimeService: protobuf in, core calls, protobuf (or cached wire bytes) out.

No business rules live here; they are in fakecri.core. Errors raised by the core are
turned into status codes by the call wrapper (call_wrapper.py), through status.py.
"""
from __future__ import annotations

import operator
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fakecri import __version__
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine import errors
from fakecri.engine.records import ContainerState, SandboxState
from fakecri.engine.runtime import Runtime
from fakecri.server import checkpoint_archives as archives
from fakecri.server import stats_replies as replies
from fakecri.server import translate as tr
from fakecri.server.config_checks import check_container_config, check_sandbox_config
from fakecri.server.events.delivery import deliver
from fakecri.server.events.status_cache import sandbox_status_response
from fakecri.server.wire import JoinCache, batches, field_fragment

if TYPE_CHECKING:
    from fakecri.server.state import ServerState

_WIRE = operator.attrgetter("wire")
STREAM_BATCH = 5000  # items per Stream* message, as containerd batches them
_SANDBOX_STATES = frozenset(s.value for s in SandboxState)
_CONTAINER_STATES = frozenset(s.value for s in ContainerState)


def _selector(msg) -> dict[str, str] | None:
    return dict(msg.label_selector) if msg.label_selector else None


def _in_batches(items: list) -> Iterable[list]:
    """`items` in slices of STREAM_BATCH, one a Stream* message."""
    return (items[i : i + STREAM_BATCH] for i in range(0, len(items), STREAM_BATCH))


def _matching_sandboxes(runtime: Runtime, f) -> list[bytes]:
    if f.HasField("state") and f.state.state not in _SANDBOX_STATES:
        return []  # a state no sandbox can be in matches nothing
    state = SandboxState(f.state.state) if f.HasField("state") else None
    items = runtime.list_sandboxes(id=f.id, state=state, label_selector=_selector(f))
    frag = tr.sandbox_fragment
    return [sb.wire or frag(sb) for sb in items]


def _matching_containers(runtime: Runtime, f) -> list[bytes]:
    if f.HasField("state") and f.state.state not in _CONTAINER_STATES:
        return []  # a state no container can be in matches nothing
    state = ContainerState(f.state.state) if f.HasField("state") else None
    items = runtime.list_containers(
        id=f.id, state=state, sandbox_id=f.pod_sandbox_id, label_selector=_selector(f)
    )
    frag = tr.container_fragment
    return [c.wire or frag(c) for c in items]


@dataclass(frozen=True)
class _Listing:
    """How the List* and Stream* RPCs of one kind of record read the runtime."""

    every: Callable[[Runtime], list]  # all the records, in list order
    matching: Callable[[Runtime, Any], list[bytes]]  # the fragments of those a filter matches
    fragment: Callable[[Any], bytes]  # one record's list fragment
    join_key: str  # the JoinCache key of the unfiltered List* reply
    batches_key: str  # ... and of the unfiltered Stream* batches


_SANDBOXES = _Listing(operator.methodcaller("list_sandboxes"), _matching_sandboxes, tr.sandbox_fragment,
                      "sandboxes", "sandbox-batches")
_CONTAINERS = _Listing(operator.methodcaller("list_containers"), _matching_containers, tr.container_fragment,
                       "containers", "container-batches")


class RuntimeService:
    def __init__(self, state: ServerState) -> None:
        self.st = state
        # Unfiltered list responses (the relist), reused while no record changed.
        self._joined = JoinCache(state.config.max_message_bytes)
        self._max_bytes = state.config.max_message_bytes  # Stream* batches stay under the message limit

    # ------------------------------------------------------------ runtime info

    async def Version(self, request, context):
        return pb.VersionResponse(
            version="0.1.0", runtime_name="fakecri", runtime_version=__version__, runtime_api_version="v1"
        )

    async def Status(self, request, context):
        conditions = self.st.conditions()
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
                for h in self.st.config.runtime_handlers
            ],
            features=pb.RuntimeFeatures(supplemental_groups_policy=True, user_namespaces_host_network=True,
                                        mount_options=True),
        )
        if request.verbose:
            resp.info["config"] = self.st.describe_config()
        return resp

    async def RuntimeConfig(self, request, context):
        driver = pb.CGROUPFS if self.st.config.cgroup_driver == "cgroupfs" else pb.SYSTEMD
        return pb.RuntimeConfigResponse(linux=pb.LinuxRuntimeConfiguration(cgroup_driver=driver))

    async def UpdateRuntimeConfig(self, request, context):
        cidr = request.runtime_config.network_config.pod_cidr
        if cidr:
            self.st.runtime.set_pod_cidr(cidr)
        return pb.UpdateRuntimeConfigResponse()

    # ------------------------------------------------------------ sandboxes

    async def RunPodSandbox(self, request, context):
        cfg = request.config
        check_sandbox_config(cfg)
        md = cfg.metadata
        linux_res = cfg.linux.resources if cfg.linux.HasField("resources") else None
        overhead = cfg.linux.overhead if cfg.linux.HasField("overhead") else None
        sb = self.st.runtime.run_pod_sandbox(
            name=md.name,
            namespace=md.namespace,
            uid=md.uid,
            attempt=md.attempt,
            labels=dict(cfg.labels),
            annotations=dict(cfg.annotations),
            hostname=cfg.hostname,
            log_directory=cfg.log_directory,
            runtime_handler=request.runtime_handler,
            spec=cfg.SerializeToString(),
            resources=tr.resources_from_pb(linux_res) if linux_res is not None else None,
            overhead=tr.resources_from_pb(overhead) if overhead is not None else None,
        )
        return pb.RunPodSandboxResponse(pod_sandbox_id=sb.id)

    async def StopPodSandbox(self, request, context):
        self.st.runtime.stop_pod_sandbox(request.pod_sandbox_id)
        return pb.StopPodSandboxResponse()

    async def RemovePodSandbox(self, request, context):
        self.st.runtime.remove_pod_sandbox(request.pod_sandbox_id)
        return pb.RemovePodSandboxResponse()

    async def PodSandboxStatus(self, request, context):
        sb = self.st.runtime.get_sandbox(request.pod_sandbox_id)
        if not request.verbose:  # wire bytes from the cached statuses (the common kubelet call)
            return self.st.statuses.sandbox_status_wire(self.st.runtime, sb, self.st.quirks(), self.st.now_ns())
        resp = sandbox_status_response(self.st.runtime, sb, self.st.quirks(), self.st.now_ns())
        if request.verbose:
            resp.info.update(tr.sandbox_info(sb))
        return resp

    @staticmethod
    def _unfiltered(items: list, build) -> tuple[list, Callable[[], list[bytes]]]:
        """Every record's cached fragment (None where not built yet), gathered in C, and how to
        complete the list. The relist path: a Python pass over 100k records costs more than
        the join (it is memory-latency bound), so it only runs when the JoinCache misses."""
        wires = list(map(_WIRE, items))
        return wires, lambda: [w if w is not None else build(r) for w, r in zip(wires, items)]

    def _list_reply(self, request, listing: _Listing) -> bytes:
        """A List* reply: the filtered fragments joined, or every record's, joined once and
        cached while no record changes."""
        if request.filter.ByteSize():
            return b"".join(listing.matching(self.st.runtime, request.filter))
        wires, complete = self._unfiltered(listing.every(self.st.runtime), listing.fragment)
        return self._joined.join(listing.join_key, wires, complete)

    def _stream_chunks(self, request, listing: _Listing) -> Iterable[bytes]:
        """The Stream* replies of the same list, in batches (cached too when unfiltered)."""
        if request.filter.ByteSize():
            return batches(listing.matching(self.st.runtime, request.filter), STREAM_BATCH, self._max_bytes)
        wires, complete = self._unfiltered(listing.every(self.st.runtime), listing.fragment)
        return self._joined.batches(listing.batches_key, wires, STREAM_BATCH, complete, self._max_bytes)

    async def ListPodSandbox(self, request, context):
        return self._list_reply(request, _SANDBOXES)

    async def StreamPodSandboxes(self, request, context):
        for chunk in self._stream_chunks(request, _SANDBOXES):
            yield chunk

    async def UpdatePodSandboxResources(self, request, context):
        self.st.runtime.update_pod_sandbox_resources(
            request.pod_sandbox_id,
            overhead=tr.resources_from_pb(request.overhead) if request.HasField("overhead") else None,
            resources=tr.resources_from_pb(request.resources) if request.HasField("resources") else None,
        )
        return pb.UpdatePodSandboxResourcesResponse()

    # ------------------------------------------------------------ containers

    async def CreateContainer(self, request, context):
        cfg = request.config
        if not cfg.image.image:
            raise errors.InvalidArgument("CreateContainer: config.image.image is required")
        check_container_config(cfg)
        sb = self.st.runtime.get_sandbox(request.pod_sandbox_id)
        image = self.st.images.resolve(cfg.image.image)
        log_path = posixpath.join(sb.log_directory, cfg.log_path) if sb.log_directory and cfg.log_path else ""
        c = self.st.runtime.create_container(
            sb.id,
            name=cfg.metadata.name,
            attempt=cfg.metadata.attempt,
            image=image,
            image_ref_requested=cfg.image.image,
            labels=dict(cfg.labels),
            annotations=dict(cfg.annotations),
            command=tuple(cfg.command),
            args=tuple(cfg.args),
            log_path=log_path,
            resources=tr.resources_from_pb(cfg.linux.resources),
            spec=cfg.SerializeToString(),
        )
        return pb.CreateContainerResponse(container_id=c.id)

    async def StartContainer(self, request, context):
        self.st.runtime.start_container(request.container_id)
        return pb.StartContainerResponse()

    async def StopContainer(self, request, context):
        rt = self.st.runtime
        delay = rt.stop_container(request.container_id, float(request.timeout))
        if delay > 0:
            cid = rt.get_container(request.container_id).id
            await self.st.wait(delay)
            if self.st.runtime is rt:  # not reset or wiped meanwhile
                rt.complete_stop(cid)
            self.st.tick()
        return pb.StopContainerResponse()

    async def RemoveContainer(self, request, context):
        self.st.runtime.remove_container(request.container_id)
        return pb.RemoveContainerResponse()

    async def ListContainers(self, request, context):
        return self._list_reply(request, _CONTAINERS)

    async def StreamContainers(self, request, context):
        for chunk in self._stream_chunks(request, _CONTAINERS):
            yield chunk

    async def ContainerStatus(self, request, context):
        c = self.st.runtime.get_container(request.container_id)
        if not request.verbose:  # ContainerStatusResponse.status (field 1) from the cached status
            return field_fragment(1, self.st.statuses.container_status_bytes(c))
        resp = pb.ContainerStatusResponse(status=tr.container_status(c, self.st.runtime.content_of(c)))
        if request.verbose:
            resp.info.update(tr.container_info(c))
        return resp

    async def UpdateContainerResources(self, request, context):
        c = self.st.runtime.get_container(request.container_id)
        if "resize-not-applied" in self.st.quirks():
            return pb.UpdateContainerResourcesResponse()
        resources = tr.resources_from_pb(request.linux) if request.HasField("linux") else c.resources
        self.st.runtime.update_container_resources(c.id, resources, dict(request.annotations) or None)
        return pb.UpdateContainerResourcesResponse()

    async def ReopenContainerLog(self, request, context):
        self.st.runtime.reopen_container_log(request.container_id)
        return pb.ReopenContainerLogResponse()

    async def ExecSync(self, request, context):
        if not request.cmd:
            raise errors.InvalidArgument(f"ExecSync in container {request.container_id}: cmd is empty")
        result = self.st.runtime.exec_sync(request.container_id, list(request.cmd), float(request.timeout))
        if result.duration_s > 0:
            await self.st.wait(result.duration_s)
        if result.timed_out:
            raise errors.DeadlineExceeded(
                f"ExecSync {list(request.cmd)} in container {request.container_id} timed out "
                f"after {request.timeout}s"
            )
        return pb.ExecSyncResponse(stdout=result.stdout, stderr=result.stderr, exit_code=result.exit_code)

    # ------------------------------------------------------------ streaming endpoints

    async def Exec(self, request, context):
        return pb.ExecResponse(url=self.st.streaming_url("exec", request))

    async def Attach(self, request, context):
        return pb.AttachResponse(url=self.st.streaming_url("attach", request))

    async def PortForward(self, request, context):
        return pb.PortForwardResponse(url=self.st.streaming_url("portforward", request))

    # ------------------------------------------------------------ stats

    async def ContainerStats(self, request, context):
        c = self.st.runtime.get_container(request.container_id)
        return pb.ContainerStatsResponse(stats=replies.container_stats(c, self.st.now_ns(), self.st.disk))

    def _container_stats(self, f):
        items = self.st.runtime.list_containers(id=f.id, sandbox_id=f.pod_sandbox_id, label_selector=_selector(f))
        now = self.st.now_ns()
        return [replies.container_stats(c, now, self.st.disk) for c in items if c.state != ContainerState.EXITED or f.id]

    async def ListContainerStats(self, request, context):
        return pb.ListContainerStatsResponse(stats=self._container_stats(request.filter))

    async def StreamContainerStats(self, request, context):
        for part in _in_batches(self._container_stats(request.filter)):
            yield pb.StreamContainerStatsResponse(container_stats=part)

    async def PodSandboxStats(self, request, context):
        sb = self.st.runtime.get_sandbox(request.pod_sandbox_id)
        return pb.PodSandboxStatsResponse(stats=replies.pod_sandbox_stats(self.st.runtime, sb, self.st.now_ns(), self.st.disk))

    def _sandbox_stats(self, f):
        items = self.st.runtime.list_sandboxes(id=f.id, label_selector=_selector(f))
        rt, now = self.st.runtime, self.st.now_ns()
        return [replies.pod_sandbox_stats(rt, sb, now, self.st.disk) for sb in items]

    async def ListPodSandboxStats(self, request, context):
        return pb.ListPodSandboxStatsResponse(stats=self._sandbox_stats(request.filter))

    async def StreamPodSandboxStats(self, request, context):
        for part in _in_batches(self._sandbox_stats(request.filter)):
            yield pb.StreamPodSandboxStatsResponse(pod_sandbox_stats=part)

    async def ListMetricDescriptors(self, request, context):
        return pb.ListMetricDescriptorsResponse(descriptors=replies.metric_descriptors())

    def _sandbox_metrics(self):
        rt, now = self.st.runtime, self.st.now_ns()
        return [replies.pod_sandbox_metrics(rt, sb, now) for sb in rt.list_sandboxes()]

    async def ListPodSandboxMetrics(self, request, context):
        return pb.ListPodSandboxMetricsResponse(pod_metrics=self._sandbox_metrics())

    async def StreamPodSandboxMetrics(self, request, context):
        for part in _in_batches(self._sandbox_metrics()):
            yield pb.StreamPodSandboxMetricsResponse(pod_sandbox_metrics=part)

    # ------------------------------------------------------------ checkpoints

    async def CheckpointContainer(self, request, context):
        archives.checkpoint_container(self.st.runtime, request.container_id, request.location)
        return pb.CheckpointContainerResponse()

    async def CheckpointPod(self, request, context):
        archives.checkpoint_pod(self.st.runtime, request.pod_sandbox_id, request.output_path,
                                list(request.container_ids))
        return pb.CheckpointPodResponse()

    async def RestorePod(self, request, context):
        sb, containers = archives.restore_pod(self.st.runtime, request)
        return pb.RestorePodResponse(
            pod_sandbox_id=sb.id,
            restored_containers=[pb.RestoredContainer(name=c.name, container_id=c.id) for c in containers],
        )

    # ------------------------------------------------------------ events

    async def GetContainerEvents(self, request, context):
        sub, faults = self.st.subscribe()
        try:
            async for item in deliver(self.st.bus, sub, faults, self.st.count):
                yield item
        finally:
            self.st.unsubscribe(sub)
