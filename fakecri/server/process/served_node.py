"""What the process does with the node it serves, once the node is built: the one interface
`app.py` (after its one `Node(...)`) and `farm.py` see (the Node implements it).

The process runs what fell due while fakecri was down (`tick`), carries out a restart fault
that has no trigger point, resets the node for a test, reads the handler errors kept and
their count, reads the pod CIDR and the engine's sizes for the farm's ListNodes, logs as the
node, and at the end closes the event streams (`shut_down`) and lets go of the host (`close`).
Everything else it hands, at the build, to the servicers, the streaming backend and /metrics,
each through its own interface: tests/server/test_closed_node.py holds app.py and farm.py
to these members.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from fakecri.engine.runtime import Runtime


class ServedNode(Protocol):
    log: Any

    @property
    def runtime(self) -> Runtime:
        """The engine, for its sizes (`counts()`) in a farm's ListNodes."""

    @property
    def pod_cidr(self) -> str: ...

    @property
    def counters(self) -> Mapping[str, int]: ...

    @property
    def server_errors(self) -> Sequence[str]:
        """The newest handler tracebacks, kept until taken or reset."""

    def tick(self) -> None:
        """Run what is due (what fell due while a restored node was down) and commit."""

    async def apply_pending_restart(self) -> None:
        """Carry out a restart fault that has no trigger point."""

    def reset(self) -> None:
        """A control Reset, in place."""

    def shut_down(self) -> None:
        """The server is going: every event stream ends UNAVAILABLE."""

    def close(self) -> None:
        """Let go of what the node holds on the host."""
