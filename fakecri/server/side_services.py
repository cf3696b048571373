"""Services that run beside the gRPC servers: the exec/attach/port-forward streaming server
and the Prometheus endpoint. Each has an async `stop()`. (The state file, the third thing
a server keeps beside its sockets, is in persistence.py.)"""
from __future__ import annotations

from typing import Any

from fakecri.server.exceptions import StartupError
from fakecri.server.prometheus import start_metrics
from fakecri.server.state import ServerState
from fakecri.server.streaming import StreamingServer
from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend, StreamingUrls


async def start_side_services(state: ServerState) -> list[Any]:
    started: list[Any] = []
    try:
        started.append(await _start_streaming(state))
        if state.config.metrics_addr:
            started.append(await _start_metrics(state))
    except BaseException:
        for svc in reversed(started):
            await svc.stop()
        raise
    return started


async def _start_metrics(state: ServerState):
    try:
        return await start_metrics(state)
    except (OSError, ValueError) as exc:
        raise StartupError(f"cannot serve metrics on {state.config.metrics_addr}: {exc}") from None


async def _start_streaming(state: ServerState):
    host, _, port = state.config.streaming_addr.rpartition(":")
    server = StreamingServer(RuntimeStreamingBackend(state), host=host or "127.0.0.1", port=int(port or 0))
    await server.start()
    state.streaming = StreamingUrls(server)
    return server
