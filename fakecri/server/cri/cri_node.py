"""What the CRI servicers need of the node that serves them: the one interface the servicers
of runtime.v1 (one per family of RPCs) and ImageService see; the Node implements it.

Through it a servicer reads and changes the engine (`runtime`, whose API is the state
machine's), asks the simulation what a command or a resize does, reads the cached statuses,
the fault plan's quirks, the settings and the host's paths, and asks the node itself for
time, waits, the network, a committed change and the event stream. The node's own parts
(the encoder and the bus, the listeners, the state file, its timers and counters) are not
in it: tests/server/test_closed_node.py holds the servicers to these members.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AbstractContextManager
from typing import Protocol

from fakecri.engine.records import Container
from fakecri.engine.runtime import Runtime
from fakecri.faults.plan import FaultPlan
from fakecri.faults.quirks import Quirk
from fakecri.server.codec.encode import StatusCache
from fakecri.server.config import ServerConfig
from fakecri.server.host.disk import DiskRoot
from fakecri.server.host.host import HostRoot
from fakecri.server.host.log_files import LogFiles
from fakecri.server.node.node import Condition
from fakecri.server.node.sessions import Sessions
from fakecri.sim.live import Decision
from fakecri.sim.simulation import Simulation
from fakecri.sim.steps import Connect, NetResult


class CRINode(Protocol):
    @property
    def runtime(self) -> Runtime: ...

    @property
    def sim(self) -> Simulation: ...

    @property
    def statuses(self) -> StatusCache: ...

    @property
    def plan(self) -> FaultPlan: ...

    @property
    def config(self) -> ServerConfig: ...

    @property
    def disk(self) -> DiskRoot: ...

    @property
    def host_root(self) -> HostRoot: ...

    @property
    def log_files(self) -> LogFiles: ...

    @property
    def sessions(self) -> Sessions: ...

    def changing(self) -> AbstractContextManager[None]:
        """A change committed on the block's way out (the call wrapper opens one per call)."""

    def apply(self, decisions: Iterable[Decision]) -> None:
        """Carry out what the simulation decided (output, an exit), committed."""

    def pid1_log(self, c: Container) -> Callable[[str, str], None] | None:
        """Where an exec's writes to /proc/1/fd/1 and 2 go (the container's log), None: nowhere."""

    async def wait(self, seconds: float, until: asyncio.Event | None = None) -> None:
        """Let simulated time pass."""

    def dial(self, step: Connect) -> Awaitable[NetResult]:
        """Carry out a program's network step."""

    def event_stream(self) -> AsyncIterator[bytes]:
        """A GetContainerEvents stream: subscribed now, let go when it ends."""

    def quiet_container_deletes(self, sandbox_id: str) -> None: ...

    def quirks(self) -> frozenset[Quirk]: ...

    def conditions(self) -> dict[str, Condition]: ...

    def describe_config(self) -> str: ...

    def count(self, name: str, n: int = 1) -> None: ...

    def now_ns(self) -> int: ...
