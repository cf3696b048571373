"""Stats RPC replies: the simulation's figures (fakecri.sim.stats, pod_metrics) as runtime.v1 messages."""
from __future__ import annotations

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.images import FsUsage
from fakecri.engine.runtime import Runtime
from fakecri.server.disk import DiskRoot
from fakecri.sim import pod_metrics as pm
from fakecri.sim import stats as sim_stats
from fakecri.sim.stats import Scripts, no_scripts


def _u64(msg, value: int) -> None:
    msg.value = max(0, int(value))


def _fs(usage: FsUsage, disk: DiskRoot) -> pb.FilesystemUsage:
    """The usage with its mountpoint as the existing directory standing for it."""
    mountpoint = disk.place(usage.mountpoint)
    msg = pb.FilesystemUsage(timestamp=usage.timestamp_ns, fs_id=pb.FilesystemIdentifier(mountpoint=mountpoint))
    _u64(msg.used_bytes, usage.used_bytes)
    _u64(msg.inodes_used, usage.inodes_used)
    return msg


def _psi_data(d: sim_stats.PsiData) -> pb.PsiData:
    return pb.PsiData(Total=max(0, d.total_ns), Avg10=d.avg10, Avg60=d.avg60, Avg300=d.avg300)


def _psi(p: sim_stats.Psi | None, msg) -> None:
    if p is not None:
        msg.psi.CopyFrom(pb.PsiStats(Full=_psi_data(p.full), Some=_psi_data(p.some)))


def _cpu(c: sim_stats.CpuUsage) -> pb.CpuUsage:
    msg = pb.CpuUsage(timestamp=c.timestamp_ns)
    _u64(msg.usage_core_nano_seconds, c.usage_core_nano_seconds)
    _u64(msg.usage_nano_cores, c.usage_nano_cores)
    _psi(c.psi, msg)
    return msg


def _io(io: sim_stats.IoUsage | None):
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


def _container(s: sim_stats.ContainerStats, disk: DiskRoot) -> pb.ContainerStats:
    swap = pb.SwapUsage(timestamp=s.swap.timestamp_ns)
    _u64(swap.swap_available_bytes, s.swap.swap_available_bytes)
    _u64(swap.swap_usage_bytes, s.swap.swap_usage_bytes)
    return pb.ContainerStats(
        attributes=pb.ContainerAttributes(
            id=s.container_id, metadata=pb.ContainerMetadata(name=s.name, attempt=s.attempt),
            labels=s.labels, annotations=s.annotations,
        ),
        cpu=_cpu(s.cpu),
        memory=_memory(s.memory),
        writable_layer=_fs(s.writable_layer, disk),
        swap=swap,
        io=_io(s.io),
    )


def _metric(m: pm.Metric) -> pb.Metric:
    msg = pb.Metric(name=m.name, timestamp=m.timestamp_ns, metric_type=int(m.metric_type),  # type: ignore[arg-type]
                    label_values=list(m.label_values))
    _u64(msg.value, m.value)
    return msg


def container_stats(c, now_ns: int, disk: DiskRoot, scripts: Scripts = no_scripts) -> pb.ContainerStats:
    """`scripts`: each container's scripted figures (the simulation's `stats_script`)."""
    return _container(sim_stats.container_stats(c, now_ns, scripts(c)), disk)


def _containers_of(rt: Runtime, sb) -> list:
    return rt.list_containers(sandbox_id=sb.id)


def pod_sandbox_stats(rt: Runtime, sb, now_ns: int, disk: DiskRoot, scripts: Scripts = no_scripts
                      ) -> pb.PodSandboxStats:
    s = sim_stats.pod_sandbox_stats(sb, _containers_of(rt, sb), now_ns, removed_cpu_ns=rt.removed_cpu_ns(sb.id),
                                    scripts=scripts)
    linux = pb.LinuxPodSandboxStats(
        cpu=_cpu(s.cpu),
        memory=_memory(s.memory),
        process=pb.ProcessUsage(timestamp=s.cpu.timestamp_ns),
        containers=[_container(c, disk) for c in s.containers],
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


def pod_sandbox_metrics(rt: Runtime, sb, now_ns: int, scripts: Scripts = no_scripts) -> pb.PodSandboxMetrics:
    m = pm.pod_sandbox_metrics(sb, _containers_of(rt, sb), now_ns, removed_cpu_ns=rt.removed_cpu_ns(sb.id),
                               scripts=scripts)
    return pb.PodSandboxMetrics(
        pod_sandbox_id=m.pod_sandbox_id,
        metrics=[_metric(x) for x in m.metrics],
        container_metrics=[pb.ContainerMetrics(container_id=c.container_id, metrics=[_metric(x) for x in c.metrics])
                           for c in m.container_metrics],
    )


def image_filesystem(usage: FsUsage, disk: DiskRoot) -> pb.FilesystemUsage:
    return _fs(usage, disk)


def container_filesystem(rt: Runtime, now_ns: int, disk: DiskRoot, scripts: Scripts = no_scripts
                         ) -> pb.FilesystemUsage:
    return _fs(sim_stats.container_fs_usage(rt.list_containers(), now_ns, scripts), disk)
