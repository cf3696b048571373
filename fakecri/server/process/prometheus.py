"""Prometheus metrics for one server (`--metrics-addr HOST:PORT`, path /metrics).

Each server has its own CollectorRegistry, never the global one. The hot path only
counts RPCs and observes their latencies (`observe_rpc`, called by the RPC wrapper);
those series live as long as the process. Everything else is read from the server
state at scrape time by `StateCollector`, so it starts from zero again after a control
Reset. The HTTP endpoint runs on the server's event loop, so a scrape reads the state
between two handlers and needs no locks.
"""
from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest
from prometheus_client import Counter as PromCounter
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from fakecri.server.config import format_address, parse_address
from fakecri.server.process.scraped_node import ScrapedNode
from fakecri.server.streaming.httphead import BadRequest, parse_head

RPC_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SANDBOX_STATES = ("READY", "NOTREADY")
CONTAINER_STATES = ("CREATED", "RUNNING", "EXITED", "UNKNOWN")


class StateCollector:
    """Reads counters, the event bus, the runtime and the images at scrape time."""

    def __init__(self, node: ScrapedNode) -> None:
        self.node = node
        self.counters, self.runtime = node.counters, node.runtime

    def collect(self) -> Iterator[Metric]:
        counters = Counter(self.counters)
        faults = CounterMetricFamily("fakecri_faults_injected", "Times each fault fired, by fault name",
                                     labels=["fault"])
        refused = CounterMetricFamily("fakecri_shell_refused", "Commands and constructs the shell refused as not "
                                      "modelled by fakecri, by name", labels=["command"])
        for key, n in sorted(counters.items()):
            kind, _, rest = key.partition(":")
            if kind == "fault":
                faults.add_metric([rest], n)
            elif kind == "refused":
                refused.add_metric([rest], n)
        yield faults
        yield refused
        yield from self._events(counters)
        yield from self._objects()

    def _events(self, counters: Counter[str]) -> Iterator[Metric]:
        subs = self.node.event_subscribers()
        yield CounterMetricFamily("fakecri_events_emitted", "Container events published to the bus",
                                  value=counters["events_emitted"])
        yield CounterMetricFamily("fakecri_events_delivered", "Events written to GetContainerEvents streams",
                                  value=counters["events_delivered"])
        yield CounterMetricFamily(
            "fakecri_events_dropped", "Events dropped because a subscriber's queue was full (drop policy)",
            value=counters["events_dropped"] + sum(s.dropped for s in subs),
        )
        yield CounterMetricFamily("fakecri_event_streams_cut", "Event streams ended by a cut_stream fault",
                                  value=counters["streams_cut"])
        yield GaugeMetricFamily("fakecri_event_subscribers", "GetContainerEvents streams open",
                                value=sum(1 for s in subs if s.closed is None))
        per_sub = CounterMetricFamily("fakecri_subscriber_events", "Events taken or dropped, per open subscriber",
                                      labels=["subscriber", "outcome"])
        queued = GaugeMetricFamily("fakecri_subscriber_queue_length", "Events waiting, per open subscriber",
                                   labels=["subscriber"])
        for s in subs:
            per_sub.add_metric([str(s.index), "delivered"], s.delivered)
            per_sub.add_metric([str(s.index), "dropped"], s.dropped)
            queued.add_metric([str(s.index)], len(s.queue))
        yield per_sub
        yield queued

    def _objects(self) -> Iterator[Metric]:
        rt = self.runtime
        images = rt.images
        by_state = Counter(sb.state.name for sb in rt.list_sandboxes())
        sandboxes = GaugeMetricFamily("fakecri_sandboxes", "Pod sandboxes, by state", labels=["state"])
        for name in SANDBOX_STATES:
            sandboxes.add_metric([name], by_state.get(name, 0))
        yield sandboxes
        by_state = Counter(c.state.name for c in rt.list_containers())
        containers = GaugeMetricFamily("fakecri_containers", "Containers, by state", labels=["state"])
        for name in CONTAINER_STATES:
            containers.add_metric([name], by_state.get(name, 0))
        yield containers
        pinned = Counter("pinned" if img.pinned else "unpinned" for img in images.list())
        gauge = GaugeMetricFamily("fakecri_images", "Images in the store, pinned or not", labels=["state"])
        for name in ("pinned", "unpinned"):
            gauge.add_metric([name], pinned.get(name, 0))
        yield gauge


class ServerMetrics:
    """The registry of one server plus the hot-path hook `observe_rpc`. Made before its node
    (which is built with it), then told the node to read at scrape time (`watch`)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.url = ""  # set once the HTTP endpoint listens
        self.rpc_seconds = Histogram("fakecri_rpc_duration_seconds", "Time to answer an RPC, by method and code",
                                     ["method", "code"], buckets=RPC_BUCKETS, registry=self.registry)
        self.rpcs = PromCounter("fakecri_rpcs", "CRI RPCs answered, by method and gRPC code", ["method", "code"],
                                registry=self.registry)

    def watch(self, node: ScrapedNode) -> None:
        """The node whose state a scrape reads."""
        self.registry.register(StateCollector(node))

    def observe_rpc(self, method: str, code: str, duration_s: float) -> None:
        self.rpcs.labels(method, code).inc()
        self.rpc_seconds.labels(method, code).observe(duration_s)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


class FarmMetrics:
    """The series of every node of a farm, each with the label node="NAME", as one exposition."""

    def __init__(self) -> None:
        self.url = ""
        self.per_node: dict[str, ServerMetrics] = {}

    def for_node(self, name: str) -> ServerMetrics:
        """The metrics of the farm's node `name`, to build it with."""
        metrics = ServerMetrics()
        metrics.url = self.url
        self.per_node[name] = metrics
        return metrics

    def detach(self, name: str) -> None:
        self.per_node.pop(name, None)

    def exposition(self) -> bytes:
        families: dict[str, Metric] = {}
        for name, metrics in sorted(self.per_node.items()):
            for metric in metrics.registry.collect():
                family = families.get(metric.name)
                if family is None:
                    family = families[metric.name] = Metric(metric.name, metric.documentation, metric.type,
                                                            metric.unit)
                for sample in metric.samples:
                    family.add_sample(sample.name, {**sample.labels, "node": name}, sample.value, sample.timestamp,
                                      sample.exemplar)
        registry = CollectorRegistry()
        registry.register(_Fixed(families.values()))
        return generate_latest(registry)


class _Fixed:
    """A collector of metric families built already."""

    def __init__(self, families: Iterable[Metric]) -> None:
        self.families = list(families)

    def collect(self) -> Iterator[Metric]:
        return iter(self.families)


class Exposition(Protocol):
    def exposition(self) -> bytes: ...


class MetricsServer:
    """A small HTTP/1.1 server for GET /metrics, on the server's event loop."""

    def __init__(self, metrics: Exposition, host: str, port: int) -> None:
        self.metrics = metrics
        self.host = host
        self.port = port
        self._server: asyncio.AbstractServer | None = None

    @property
    def url(self) -> str:
        return f"http://{format_address(self.host, self.port)}/metrics"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=10.0)
            head = parse_head(raw[:-4])
            if head.method not in ("GET", "HEAD"):
                writer.write(_reply(405, b"only GET /metrics\n", "text/plain; charset=utf-8"))
            elif head.path not in ("/metrics", "/"):
                writer.write(_reply(404, f"no {head.path} here; try /metrics\n".encode(), "text/plain; charset=utf-8"))
            else:
                body = self.metrics.exposition()
                writer.write(_reply(200, b"" if head.method == "HEAD" else body, CONTENT_TYPE_LATEST, len(body)))
            await writer.drain()
        except (TimeoutError, BadRequest, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            writer.write(_reply(400, b"bad request\n", "text/plain; charset=utf-8"))
        except ConnectionError:
            pass
        finally:
            writer.close()


def _reply(status: int, body: bytes, content_type: str, length: int | None = None) -> bytes:
    from http import HTTPStatus

    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body) if length is None else length}\r\nConnection: close\r\n\r\n")
    return head.encode("latin-1") + body


async def start_metrics(metrics: ServerMetrics, address: str, log: Any) -> MetricsServer:
    """Serve `metrics` on `address` (--metrics-addr)."""
    host, port = parse_address(address, "metrics_addr")
    server = MetricsServer(metrics, host, port)
    await server.start()
    metrics.url = server.url
    log.info("metrics serving", url=server.url)
    return server
