"""Services that run beside the gRPC servers: exec/attach/port-forward streaming,
Prometheus metrics and the state file. Each has an async `stop()`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakecri.server.app import FakeCRIServer
    from fakecri.server.state import ServerState


async def start_side_services(app: FakeCRIServer, state: ServerState) -> list[Any]:
    started: list[Any] = []
    return started
