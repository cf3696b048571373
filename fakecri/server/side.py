"""Services that run beside the gRPC servers: exec/attach/port-forward streaming,
Prometheus metrics and the state file. Each has an async `stop()`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakecri.server.app import FakeCRIServer
    from fakecri.server.state import ServerState


async def start_side_services(app: FakeCRIServer, state: ServerState) -> list[Any]:
    started: list[Any] = []
    started.append(await _start_streaming(state))
    return started


async def _start_streaming(state: ServerState):
    from fakecri.server.streaming import StreamingServer
    from fakecri.server.streaming_backend import RuntimeStreamingBackend, StreamingUrls

    host, _, port = state.config.streaming_addr.rpartition(":")
    server = StreamingServer(RuntimeStreamingBackend(state), host=host or "127.0.0.1", port=int(port or 0))
    await server.start()
    state.streaming = StreamingUrls(server)
    return server
