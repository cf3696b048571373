"""Services that run beside the gRPC servers: the exec/attach/port-forward streaming server
and the Prometheus endpoint. Each has an async `stop()`. (The state file, the third thing
a server keeps beside its sockets, is in persistence.py.)"""
from __future__ import annotations

from typing import Any

from fakecri.server.config import parse_address
from fakecri.server.exceptions import SettingError
from fakecri.server.node.node import Node
from fakecri.server.streaming import StreamingServer
from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend, StreamingUrls


async def start_side_services(state: Node) -> tuple[list[Any], dict[str, str]]:
    """The services started, and their addresses by name ("streaming", "metrics") as URLs."""
    started: list[Any] = []
    addresses: dict[str, str] = {}
    try:
        streaming = await _start_streaming(state)
        started.append(streaming)
        addresses["streaming"] = streaming.base_url
        if state.config.metrics_addr:
            metrics = await _start_metrics(state)
            started.append(metrics)
            addresses["metrics"] = metrics.url
    except BaseException:
        for svc in reversed(started):
            await svc.stop()
        raise
    return started, addresses


async def _start_metrics(state: Node):
    from fakecri.server.process.prometheus import (
        start_metrics,  # only with --metrics-addr (prometheus_client is slow to load)
    )

    try:
        return await start_metrics(state)
    except (OSError, ValueError) as exc:
        raise SettingError("metrics_addr", f"cannot serve metrics on {state.config.metrics_addr}: {exc}") from None


async def _start_streaming(state: Node):
    host, port = parse_address(state.config.streaming_addr, "streaming_addr")
    server = StreamingServer(RuntimeStreamingBackend(state), host=host, port=port)
    try:
        await server.start()
    except OSError as exc:
        raise SettingError("streaming_addr", f"cannot serve exec/attach/port-forward on "
                                             f"{state.config.streaming_addr}: {exc.strerror or exc}") from None
    state.streaming = StreamingUrls(server)
    return server
