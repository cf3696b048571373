"""What the host's listeners need of the node that owns them: the one interface `listeners.py`
and `webserver.py` see (the Node implements it). Through it a listener asks which server
answers, lets time pass and the network be dialled, and hands back what the program did;
it never reaches the node's engine, simulation or commit point."""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import Any, Protocol

from fakecri.engine.records import Container
from fakecri.sim.live import Decision
from fakecri.sim.programs.base import Here, Listen, Server
from fakecri.sim.steps import Connect, NetResult


class ListenerOwner(Protocol):
    log: Any

    def served_by(self, cid: str) -> tuple[Server, Here] | None:
        """The running container's server and where it answers; None when it no longer runs."""

    def listeners_of(self, c: Container) -> tuple[Listen, ...]:
        """The sockets a started container's program listens on."""

    def apply(self, decisions: Iterable[Decision]) -> None:
        """Carry out what the program decided (output, an exit), committed."""

    def dial(self, step: Connect) -> Awaitable[NetResult]:
        """Carry out a program's network step."""

    async def wait(self, seconds: float, until: asyncio.Event | None = None) -> None:
        """Let simulated time pass."""

    def count(self, name: str, n: int = 1) -> None: ...

    def now_ns(self) -> int: ...
