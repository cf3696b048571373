"""Counters the PLEGs keep, as plain attributes, with an optional Prometheus export."""
from __future__ import annotations

import threading
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from fakecri.api.runtime.v1 import api_pb2 as pb

EVENT_TYPE_NAMES: dict[int, str] = {v: k for k, v in pb.ContainerEventType.items()}


@dataclass
class Samples:
    """Count, sum, max and the most recent values of a measurement (seconds)."""

    count: int = 0
    total: float = 0.0
    max: float = 0.0
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=1000))

    def observe(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.max = max(self.max, value)
        self.recent.append(value)

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    def quantile(self, q: float) -> float:
        """A quantile of the recent values (0 when none)."""
        if not self.recent:
            return 0.0
        ordered = sorted(self.recent)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class PLEGMetrics:
    """Shared by a generic PLEG and the evented PLEG around it. Update under `lock`."""

    relists: int = 0
    relist_errors: int = 0
    relist_duration: Samples = field(default_factory=Samples)
    relist_interval: Samples = field(default_factory=Samples)
    last_relist_ns: int = 0
    inspect_errors: int = 0
    discard_events: int = 0
    events_sent: Counter[str] = field(default_factory=Counter)
    # Evented side.
    connection_successes: int = 0
    connection_errors: int = 0
    events_received: int = 0
    events_received_by_type: Counter[str] = field(default_factory=Counter)
    events_ignored: int = 0  # no sandbox status or metadata
    event_latency: Samples = field(default_factory=Samples)
    # Transitions a relist found that no event had announced first (the KEP's
    # kube_pod_missed_events, never shipped in a kubelet).
    missed_events: int = 0
    missed_by_type: Counter[str] = field(default_factory=Counter)
    # Current evented PLEG: STOPPED -> targeted relist requests.
    relist_requests: int = 0
    relist_requests_dropped: int = 0
    targeted_relists: int = 0
    targeted_relists_skipped: int = 0  # a global relist began after the request
    targeted_relist_latency: Samples = field(default_factory=Samples)
    fallbacks: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        with self.lock:
            return {
                "relists": self.relists,
                "relist_errors": self.relist_errors,
                "relist_duration_mean_s": self.relist_duration.mean,
                "relist_duration_max_s": self.relist_duration.max,
                "inspect_errors": self.inspect_errors,
                "pleg_discard_events": self.discard_events,
                "events_sent": dict(self.events_sent),
                "connection_successes": self.connection_successes,
                "connection_errors": self.connection_errors,
                "events_received": self.events_received,
                "events_received_by_type": dict(self.events_received_by_type),
                "events_ignored": self.events_ignored,
                "event_latency_mean_s": self.event_latency.mean,
                "event_latency_max_s": self.event_latency.max,
                "missed_events": self.missed_events,
                "missed_by_type": dict(self.missed_by_type),
                "relist_requests": self.relist_requests,
                "relist_requests_dropped": self.relist_requests_dropped,
                "targeted_relists": self.targeted_relists,
                "targeted_relists_skipped": self.targeted_relists_skipped,
                "fallbacks": self.fallbacks,
            }


def register_prometheus(metrics: PLEGMetrics, registry: Any, *, namespace: str = "fakecri_client") -> Any:
    """Register a collector for `metrics` on a prometheus_client registry; returns it.

    Names follow the kubelet's (pleg_*, evented_pleg_*) under `namespace`.
    """
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, SummaryMetricFamily

    def name(n: str) -> str:
        return f"{namespace}_{n}" if namespace else n

    class _Collector:
        def collect(self) -> Any:
            with metrics.lock:
                yield CounterMetricFamily(name("pleg_relist"), "Relists run", value=metrics.relists)
                yield CounterMetricFamily(name("pleg_relist_errors"), "Relists that failed",
                                          value=metrics.relist_errors)
                yield SummaryMetricFamily(
                    name("pleg_relist_duration_seconds"), "Relist duration",
                    count_value=metrics.relist_duration.count, sum_value=metrics.relist_duration.total,
                )
                yield SummaryMetricFamily(
                    name("pleg_relist_interval_seconds"), "Time between relists",
                    count_value=metrics.relist_interval.count, sum_value=metrics.relist_interval.total,
                )
                yield GaugeMetricFamily(
                    name("pleg_last_seen_seconds"), "When the last relist finished", value=metrics.last_relist_ns / 1e9
                )
                yield CounterMetricFamily(name("pleg_discard_events"), "Events dropped on a full channel",
                                          value=metrics.discard_events)
                yield CounterMetricFamily(name("evented_pleg_connection_success_count"), "Event streams opened",
                                          value=metrics.connection_successes)
                yield CounterMetricFamily(name("evented_pleg_connection_error_count"), "Event stream failures",
                                          value=metrics.connection_errors)
                yield SummaryMetricFamily(
                    name("evented_pleg_connection_latency_seconds"), "Event receive time minus created_at",
                    count_value=metrics.event_latency.count, sum_value=metrics.event_latency.total,
                )
                missed = CounterMetricFamily(name("pod_missed_events"),
                                             "Transitions a relist found with no event first", labels=["type"])
                for kind, n in sorted(metrics.missed_by_type.items()):
                    missed.add_metric([kind], n)
                yield missed
                yield CounterMetricFamily(name("pleg_relist_requests_dropped"), "Targeted relist requests dropped",
                                          value=metrics.relist_requests_dropped)

    collector = _Collector()
    registry.register(collector)
    return collector
