"""What the control service (fakecri.control.v1, fakecri's own API) needs of the node it
drives: the one interface `control_service.py` sees (the Node implements it).

A control call changes the fault plan (`plan`), exits a container or sets its stats through
the engine and the simulation (`runtime`, `sim`), moves a fake clock (`clock`, then `tick`),
and drives the node whole: `reset`, `restart`, a restart fault's `apply_pending_restart`. It
reads the call log, the counters and the kept handler errors, never changing them. The
node's other parts (the bus and encoder, the listeners, the sessions, the state file) are
not in it: tests/server/test_closed_node.py holds the service to these members.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from fakecri.engine.clock import Clock
from fakecri.engine.runtime import Runtime
from fakecri.faults.plan import FaultPlan
from fakecri.server.config import ServerConfig
from fakecri.server.node.call_path import CallRecord
from fakecri.sim.simulation import Simulation


class ControlNode(Protocol):
    @property
    def runtime(self) -> Runtime: ...

    @property
    def sim(self) -> Simulation: ...

    @property
    def plan(self) -> FaultPlan: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def config(self) -> ServerConfig: ...

    @property
    def call_log(self) -> Iterable[CallRecord]:
        """The answered calls kept, oldest first."""

    @property
    def counters(self) -> Mapping[str, int]: ...

    @property
    def server_errors(self) -> Iterable[str]:
        """The newest handler tracebacks (read, not taken)."""

    def now_ns(self) -> int: ...

    def tick(self) -> None:
        """Run what is due now and commit (after the fake clock moved)."""

    def reset(self) -> None:
        """Forget everything a test may have changed, in place."""

    async def restart(self, downtime_s: float, wipe: bool) -> None:
        """A simulated restart of the runtime daemon."""

    async def apply_pending_restart(self) -> None:
        """A restart fault with no trigger point happens as soon as it is added."""
