"""runtime.v1.RuntimeService, served by one servicer per family of RPCs, as containerd keeps
one file per call: the runtime's own (runtime_info.py), pod sandboxes (sandbox_calls.py),
containers and their events (container_calls.py), exec, attach and port-forward
(exec_calls.py), stats and metrics (stats_calls.py), checkpoints (checkpoint_archives.py).

Each is protobuf in, engine calls, protobuf (or cached wire bytes) out, and sees the node
only as a `CRINode` (cri_node.py). No business rules live in them; they are in the engine
(fakecri.engine) and the container simulation (fakecri.sim). Errors they raise are turned
into status codes by the call wrapper (node/call_path.py), through codec/status.py.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from fakecri.server.cri.checkpoint_archives import CheckpointCalls
from fakecri.server.cri.container_calls import ContainerCalls
from fakecri.server.cri.cri_node import CRINode
from fakecri.server.cri.exec_calls import ExecCalls
from fakecri.server.cri.listings import Listings
from fakecri.server.cri.runtime_info import RuntimeInfo
from fakecri.server.cri.sandbox_calls import SandboxCalls
from fakecri.server.cri.stats_calls import StatsCalls

if TYPE_CHECKING:
    from fakecri.server.streaming.runtime_backend import StreamingUrls


def runtime_servicers(node: CRINode, streaming: StreamingUrls | None = None) -> list[object]:
    """The servicers of runtime.v1.RuntimeService, each RPC on exactly one of them."""
    config = node.config
    listings = Listings(node.runtime, config.max_message_bytes)
    return [RuntimeInfo(node), SandboxCalls(node, listings), ContainerCalls(node, listings),
            ExecCalls(node, streaming), StatsCalls(node), CheckpointCalls(node)]
