"""Stats RPC replies: the simulation's figures (fakecri.sim.stats, pod_metrics) as runtime.v1 messages.

The list answers are computed as wire bytes, one list item at a time, in slices that let
the event loop go (`sliced`): 50,000 containers' stats take seconds of CPU, and every
other call (Version included) would wait behind them. The answer is still one instant's:
the records are taken when the call begins (they are frozen, so a change meanwhile makes
new ones and leaves these as they were) and every figure is for the same `now_ns`.
"""
from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any, TypeVar

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.images import FsUsage
from fakecri.engine.records import Container, Sandbox
from fakecri.engine.runtime import Runtime
from fakecri.server.codec.encode import field_fragment
from fakecri.server.host.disk import DiskRoot
from fakecri.sim import pod_metrics as pm
from fakecri.sim import stats as sim_stats
from fakecri.sim.stats import Scripts, no_scripts

SLICE_S = 0.005  # a big answer lets the loop go at least this often
# ... for this long: a real pause, not just a turn of the loop, since grpc's own thread needs the
# interpreter lock to hand the loop what arrived (a Version call waited 10 slices with a bare turn).
PAUSE_S = 0.0005
_T = TypeVar("_T")
Place = Callable[[str], str]  # a logical mountpoint -> the directory standing for it (DiskRoot.place)


async def sliced(items: Iterable[_T], item_bytes: Callable[[_T], bytes]) -> AsyncIterator[bytes]:
    """`item_bytes(item)` for each item, handing the loop back (for PAUSE_S) every SLICE_S of work."""
    clock = time.perf_counter
    deadline = clock() + SLICE_S
    for n, item in enumerate(items, 1):
        yield item_bytes(item)
        if not n % 16 and clock() > deadline:
            await asyncio.sleep(PAUSE_S)
            deadline = clock() + SLICE_S


def memo_place(disk: DiskRoot) -> Place:
    """`disk.place` remembered for the length of one answer (it stats the directory each time)."""
    return functools.lru_cache(maxsize=16)(disk.place)


def pods_now(rt: Runtime, sandboxes: Sequence[Sandbox]) -> list[tuple[Sandbox, list[Container], int]]:
    """Each sandbox with its containers and the CPU of its removed ones, as they are now."""
    return [(sb, rt.containers_of(sb), rt.removed_cpu_ns(sb.id)) for sb in sandboxes]


def _u64(msg: Any, value: int) -> None:
    msg.value = max(0, int(value))


def _fs(usage: FsUsage, place: Place) -> pb.FilesystemUsage:
    """The usage with its mountpoint as the existing directory standing for it."""
    mountpoint = place(usage.mountpoint)
    msg = pb.FilesystemUsage(timestamp=usage.timestamp_ns, fs_id=pb.FilesystemIdentifier(mountpoint=mountpoint))
    _u64(msg.used_bytes, usage.used_bytes)
    _u64(msg.inodes_used, usage.inodes_used)
    return msg


def _psi_data(d: sim_stats.PsiData) -> pb.PsiData:
    return pb.PsiData(Total=max(0, d.total_ns), Avg10=d.avg10, Avg60=d.avg60, Avg300=d.avg300)


def _psi(p: sim_stats.Psi | None, msg: Any) -> None:
    if p is not None:
        msg.psi.CopyFrom(pb.PsiStats(Full=_psi_data(p.full), Some=_psi_data(p.some)))


def _cpu(c: sim_stats.CpuUsage) -> pb.CpuUsage:
    msg = pb.CpuUsage(timestamp=c.timestamp_ns)
    _u64(msg.usage_core_nano_seconds, c.usage_core_nano_seconds)
    _u64(msg.usage_nano_cores, c.usage_nano_cores)
    _psi(c.psi, msg)
    return msg


def _io(io: sim_stats.IoUsage | None) -> Any:
    if io is None:
        return None
    msg = pb.IoUsage(timestamp=io.timestamp_ns)
    _psi(io.psi, msg)
    return msg


def _memory(m: sim_stats.MemoryUsage) -> pb.MemoryUsage:
    msg = pb.MemoryUsage(timestamp=m.timestamp_ns)
    _u64(msg.working_set_bytes, m.working_set_bytes)
    _u64(msg.available_bytes, m.available_bytes)
    _u64(msg.usage_bytes, m.usage_bytes)
    _u64(msg.rss_bytes, m.rss_bytes)
    _u64(msg.page_faults, m.page_faults)
    _u64(msg.major_page_faults, m.major_page_faults)
    _psi(m.psi, msg)
    return msg


def _attributes(c: Container | sim_stats.ContainerStats) -> pb.ContainerAttributes:
    cid = c.id if isinstance(c, Container) else c.container_id
    return pb.ContainerAttributes(id=cid, metadata=pb.ContainerMetadata(name=c.name, attempt=c.attempt),
                                  labels=c.labels, annotations=c.annotations)


def _container(s: sim_stats.ContainerStats, place: Place, *, attributes: bool = True) -> pb.ContainerStats:
    swap = pb.SwapUsage(timestamp=s.swap.timestamp_ns)
    _u64(swap.swap_available_bytes, s.swap.swap_available_bytes)
    _u64(swap.swap_usage_bytes, s.swap.swap_usage_bytes)
    return pb.ContainerStats(
        attributes=_attributes(s) if attributes else None,
        cpu=_cpu(s.cpu),
        memory=_memory(s.memory),
        writable_layer=_fs(s.writable_layer, place),
        swap=swap,
        io=_io(s.io),
    )


class Attributes:
    """Each container's ContainerAttributes as wire bytes (field 1 of ContainerStats), made once per
    container: its id, name, attempt, labels and annotations never change while it lives."""

    def __init__(self) -> None:
        self._by_id: dict[str, bytes] = {}

    def of(self, c: Container) -> bytes:
        frag = self._by_id.get(c.id)
        if frag is None:
            frag = self._by_id[c.id] = field_fragment(1, _attributes(c).SerializeToString())
        return frag

    def keep_only(self, ids: Iterable[str]) -> None:
        """Forget the containers not in `ids` (all that live, after an unfiltered list)."""
        self._by_id = {i: self._by_id[i] for i in ids if i in self._by_id}

    def __len__(self) -> int:
        return len(self._by_id)


def _metric(m: pm.Metric) -> pb.Metric:
    msg = pb.Metric(name=m.name, timestamp=m.timestamp_ns, metric_type=int(m.metric_type),  # type: ignore[arg-type]
                    label_values=list(m.label_values))
    _u64(msg.value, m.value)
    return msg


def container_stats(c: Container, now_ns: int, place: Place, scripts: Scripts = no_scripts) -> pb.ContainerStats:
    """`scripts`: each container's scripted figures (the simulation's `stats_script`)."""
    return _container(sim_stats.container_stats(c, now_ns, scripts(c)), place)


def container_stats_item(c: Container, now_ns: int, place: Place, attributes: Attributes,
                         scripts: Scripts = no_scripts) -> bytes:
    """One ContainerStats as field 1 of a list answer (ListContainerStats and StreamContainerStats alike):
    the container's attributes as made before, then the figures of `now_ns` (fields in number order,
    as protobuf writes them)."""
    figures = _container(sim_stats.container_stats(c, now_ns, scripts(c)), place, attributes=False).SerializeToString()
    return field_fragment(1, attributes.of(c) + figures)


def pod_sandbox_stats(sb: Sandbox, containers: list[Container], removed_cpu_ns: int, now_ns: int,
                      place: Place, scripts: Scripts = no_scripts) -> pb.PodSandboxStats:
    s = sim_stats.pod_sandbox_stats(sb, containers, now_ns, removed_cpu_ns=removed_cpu_ns, scripts=scripts)
    linux = pb.LinuxPodSandboxStats(
        cpu=_cpu(s.cpu),
        memory=_memory(s.memory),
        process=pb.ProcessUsage(timestamp=s.cpu.timestamp_ns),
        containers=[_container(c, place) for c in s.containers],
        io=_io(s.io),
    )
    _u64(linux.process.process_count, s.process_count)
    if s.network is not None:
        n = s.network
        iface = pb.NetworkInterfaceUsage(name=n.interface)
        _u64(iface.rx_bytes, n.rx_bytes)
        _u64(iface.rx_errors, n.rx_errors)
        _u64(iface.tx_bytes, n.tx_bytes)
        _u64(iface.tx_errors, n.tx_errors)
        linux.network.CopyFrom(pb.NetworkUsage(timestamp=n.timestamp_ns, default_interface=iface))
    return pb.PodSandboxStats(
        attributes=pb.PodSandboxAttributes(
            id=s.sandbox_id,
            metadata=pb.PodSandboxMetadata(name=s.name, namespace=s.namespace, uid=s.uid, attempt=s.attempt),
            labels=s.labels, annotations=s.annotations,
        ),
        linux=linux,
    )


def metric_descriptors() -> list[pb.MetricDescriptor]:
    return [pb.MetricDescriptor(name=d.name, help=d.help, label_keys=list(d.label_keys))
            for d in pm.metric_descriptors()]


def pod_sandbox_stats_item(pod: tuple[Sandbox, list[Container], int], now_ns: int, place: Place,
                           scripts: Scripts = no_scripts) -> bytes:
    """One PodSandboxStats as field 1 of a list answer; `pod` as `pods_now` gives it."""
    return field_fragment(1, pod_sandbox_stats(*pod, now_ns, place, scripts).SerializeToString())


def pod_sandbox_metrics(sb: Sandbox, containers: list[Container], removed_cpu_ns: int,
                        now_ns: int, scripts: Scripts = no_scripts) -> pb.PodSandboxMetrics:
    m = pm.pod_sandbox_metrics(sb, containers, now_ns, removed_cpu_ns=removed_cpu_ns, scripts=scripts)
    return pb.PodSandboxMetrics(
        pod_sandbox_id=m.pod_sandbox_id,
        metrics=[_metric(x) for x in m.metrics],
        container_metrics=[pb.ContainerMetrics(container_id=c.container_id, metrics=[_metric(x) for x in c.metrics])
                           for c in m.container_metrics],
    )


def pod_sandbox_metrics_item(pod: tuple[Sandbox, list[Container], int], now_ns: int,
                             scripts: Scripts = no_scripts) -> bytes:
    """One PodSandboxMetrics as field 1 of a list answer."""
    return field_fragment(1, pod_sandbox_metrics(*pod, now_ns, scripts).SerializeToString())


def image_filesystem(usage: FsUsage, disk: DiskRoot) -> pb.FilesystemUsage:
    return _fs(usage, disk.place)


def container_filesystem(rt: Runtime, now_ns: int, disk: DiskRoot, scripts: Scripts = no_scripts
                         ) -> pb.FilesystemUsage:
    return _fs(sim_stats.container_fs_usage(rt.list_containers(), now_ns, scripts), disk.place)
