"""Services that run beside the gRPC servers: the exec/attach/port-forward streaming server
and the Prometheus endpoint. Each has an async `stop()`. (The state file, the third thing
a server keeps beside its sockets, is the node's own: node/persistence.py.)"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakecri.server.config import ServerConfig, parse_address
from fakecri.server.exceptions import SettingError
from fakecri.server.streaming import StreamingServer
from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend, StreamingUrls
from fakecri.server.streaming.streaming_node import StreamingNode

if TYPE_CHECKING:
    from fakecri.server.process.prometheus import ServerMetrics


@dataclass
class SideServices:
    started: list[Any] = field(default_factory=list)  # each with an async stop()
    addresses: dict[str, str] = field(default_factory=dict)  # "streaming", "metrics": their URLs
    streaming: StreamingUrls | None = None  # what Exec, Attach and PortForward answer with


async def start_side_services(node: StreamingNode, config: ServerConfig, metrics: ServerMetrics | None) -> SideServices:
    """The services started beside `node` (built from `config`): its streaming server, and
    /metrics with `metrics`."""
    out = SideServices()
    try:
        streaming = await _start_streaming(node, config.streaming_addr)
        out.started.append(streaming)
        out.addresses["streaming"] = streaming.base_url
        out.streaming = StreamingUrls(streaming)
        if metrics is not None and config.metrics_addr:
            served = await _start_metrics(metrics, config.metrics_addr, node.log)
            out.started.append(served)
            out.addresses["metrics"] = served.url
    except BaseException:
        for svc in reversed(out.started):
            await svc.stop()
        raise
    return out


async def _start_metrics(metrics: ServerMetrics, address: str, log: Any) -> Any:
    from fakecri.server.process.prometheus import (
        start_metrics,  # only with --metrics-addr (prometheus_client is slow to load)
    )

    try:
        return await start_metrics(metrics, address, log)
    except (OSError, ValueError) as exc:
        raise SettingError("metrics_addr", f"cannot serve metrics on {address}: {exc}") from None


async def _start_streaming(node: StreamingNode, address: str) -> StreamingServer:
    host, port = parse_address(address, "streaming_addr")
    server = StreamingServer(RuntimeStreamingBackend(node), host=host, port=port)
    try:
        await server.start()
    except OSError as exc:
        raise SettingError("streaming_addr", f"cannot serve exec/attach/port-forward on "
                                             f"{address}: {exc.strerror or exc}") from None
    return server
