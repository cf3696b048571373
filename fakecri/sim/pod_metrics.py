"""CRI metrics (ListMetricDescriptors / ListPodSandboxMetrics), from sim/stats.py.

A small fixed set named as cAdvisor names them. Label keys start with `id`,
`name`, `image`; a few add one more (`cpu`, `device`, `interface`). Values are
the same figures ContainerStats and PodSandboxStats report at the same instant.
"""
from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from fakecri.engine.clock import NS_PER_S
from fakecri.engine.records import Container, Sandbox
from fakecri.sim.stats import ContainerStats, Scripts, no_scripts, pod_sandbox_stats

BASE_LABEL_KEYS = ("id", "name", "image")


class MetricType(enum.IntEnum):
    # Numbered as runtime.v1.MetricType.
    COUNTER = 0
    GAUGE = 1


@dataclass(frozen=True, slots=True)
class MetricDescriptor:
    name: str
    help: str
    label_keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    timestamp_ns: int
    metric_type: MetricType
    label_values: tuple[str, ...]  # in the order of the descriptor's label_keys
    value: int


@dataclass(frozen=True, slots=True)
class ContainerMetrics:
    container_id: str
    metrics: tuple[Metric, ...]


@dataclass(frozen=True, slots=True)
class PodSandboxMetrics:
    pod_sandbox_id: str
    metrics: tuple[Metric, ...]
    container_metrics: tuple[ContainerMetrics, ...]


# (name, help, extra label key, type)
_TABLE = (
    ("container_cpu_usage_seconds_total", "Cumulative CPU time consumed in seconds.", "cpu", MetricType.COUNTER),
    ("container_memory_working_set_bytes", "Current working set in bytes.", None, MetricType.GAUGE),
    ("container_memory_usage_bytes",
     "Current memory usage in bytes, including all memory regardless of when it was accessed.",
     None, MetricType.GAUGE),
    ("container_memory_rss", "Size of RSS in bytes.", None, MetricType.GAUGE),
    ("container_fs_usage_bytes",
     "Number of bytes that are consumed by the container on this filesystem.",
     "device", MetricType.GAUGE),
    ("container_start_time_seconds",
     "Start time of the container since unix epoch in seconds.",
     None, MetricType.GAUGE),
    ("container_network_receive_bytes_total", "Cumulative count of bytes received.", "interface", MetricType.COUNTER),
    ("container_network_transmit_bytes_total",
     "Cumulative count of bytes transmitted.",
     "interface", MetricType.COUNTER),
    ("container_network_receive_errors_total",
     "Cumulative count of errors encountered while receiving.",
     "interface", MetricType.COUNTER),
    ("container_network_transmit_errors_total",
     "Cumulative count of errors encountered while transmitting.",
     "interface", MetricType.COUNTER),
)
_TYPES = {name: kind for name, _, _, kind in _TABLE}

DESCRIPTORS = tuple(
    MetricDescriptor(name, help_, BASE_LABEL_KEYS + ((extra,) if extra else ())) for name, help_, extra, _ in _TABLE
)


def metric_descriptors() -> tuple[MetricDescriptor, ...]:
    """Every metric ListPodSandboxMetrics may report."""
    return DESCRIPTORS


def _metric(name: str, now_ns: int, labels: tuple[str, ...], value: int) -> Metric:
    return Metric(name, now_ns, _TYPES[name], labels, value)


def _container_metrics(s: ContainerStats, started_at: int, now_ns: int) -> ContainerMetrics:
    base = (s.container_id, s.name, s.image)
    wl = s.writable_layer
    return ContainerMetrics(
        s.container_id,
        (
            _metric("container_cpu_usage_seconds_total", now_ns, base + ("total",),
                    s.cpu.usage_core_nano_seconds // NS_PER_S),
            _metric("container_memory_working_set_bytes", now_ns, base, s.memory.working_set_bytes),
            _metric("container_memory_usage_bytes", now_ns, base, s.memory.usage_bytes),
            _metric("container_memory_rss", now_ns, base, s.memory.rss_bytes),
            _metric("container_fs_usage_bytes", now_ns, base + (wl.mountpoint,), wl.used_bytes),
            _metric("container_start_time_seconds", now_ns, base, started_at // NS_PER_S),
        ),
    )


def pod_sandbox_metrics(
    sb: Sandbox, containers: Iterable[Container], now_ns: int, *, removed_cpu_ns: int = 0, scripts: Scripts = no_scripts
) -> PodSandboxMetrics:
    """Metrics for one sandbox: network at pod level, the rest per container (scripted
    figures included, as `scripts` gives them)."""
    cs = list(containers)
    stats = pod_sandbox_stats(sb, cs, now_ns, removed_cpu_ns=removed_cpu_ns, scripts=scripts)
    pod: tuple[Metric, ...] = ()
    net = stats.network
    if net is not None:
        labels = (sb.id, sb.name, "", net.interface)
        pod = (
            _metric("container_network_receive_bytes_total", now_ns, labels, net.rx_bytes),
            _metric("container_network_transmit_bytes_total", now_ns, labels, net.tx_bytes),
            _metric("container_network_receive_errors_total", now_ns, labels, net.rx_errors),
            _metric("container_network_transmit_errors_total", now_ns, labels, net.tx_errors),
        )
    per_container = tuple(
        _container_metrics(s, c.started_at, now_ns) for s, c in zip(stats.containers, cs, strict=False)
    )
    return PodSandboxMetrics(sb.id, pod, per_container)
