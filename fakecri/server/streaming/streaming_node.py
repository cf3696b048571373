"""What the streaming backend needs of the node that serves it: the one interface
`runtime_backend.py` sees (the Node implements it).

It is a listener owner first (host/owner.py: a port-forward to a pod's web server is answered
as that server's real listener answers), and beyond that the backend reads and checks the
engine (`runtime`), starts exec processes and feeds attach input through the simulation
(`sim`), holds its sessions' watches (`sessions`), asks which sockets a container's server
has bound, hears the containers' output while a client is attached, and says where an exec's
writes to PID 1's output go (`pid1_log`). The node's other
parts (the listeners themselves, the list of output listeners, the bus, the fault plan, the
state file) are not in it: tests/server/test_closed_node.py holds the backend to these members.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from fakecri.engine.records import Container, Output
from fakecri.engine.runtime import Runtime
from fakecri.server.host.owner import ListenerOwner
from fakecri.server.node.sessions import Sessions
from fakecri.sim.simulation import Simulation


class StreamingNode(ListenerOwner, Protocol):
    @property
    def runtime(self) -> Runtime: ...

    @property
    def sim(self) -> Simulation: ...

    @property
    def sessions(self) -> Sessions: ...

    def bound_ports(self, cid: str) -> list[tuple[str, int]]:
        """The (address, port) the container's server really listens on now."""

    def hear_output(self, listener: Callable[[Output], None]) -> None:
        """From now on, `listener` hears every output a commit carries out (an attached client)."""

    def stop_hearing_output(self, listener: Callable[[Output], None]) -> None:
        """`listener` hears no more output (a no-op if it did not)."""

    def pid1_log(self, c: Container) -> Callable[[str, str], None] | None:
        """Where an exec's writes to /proc/1/fd/1 and 2 go (the container's log), None: nowhere."""
