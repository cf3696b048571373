"""Services that run beside the gRPC servers: exec/attach/port-forward streaming,
Prometheus metrics and the state file. Each has an async `stop()`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakecri.server.app import FakeCRIServer
    from fakecri.server.state import ServerState


async def start_side_services(app: FakeCRIServer, state: ServerState) -> list[Any]:
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
    from fakecri.server.app import StartupError
    from fakecri.server.metrics import start_metrics

    try:
        return await start_metrics(state)
    except (OSError, ValueError) as exc:
        raise StartupError(f"cannot serve metrics on {state.config.metrics_addr}: {exc}") from None


async def _start_streaming(state: ServerState):
    from fakecri.server.streaming import StreamingServer
    from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend, StreamingUrls

    host, _, port = state.config.streaming_addr.rpartition(":")
    server = StreamingServer(RuntimeStreamingBackend(state), host=host or "127.0.0.1", port=int(port or 0))
    await server.start()
    state.streaming = StreamingUrls(server)
    return server
