"""What the engine needs from outside it, as protocols its owner fills in.

The engine asks; it never tells. `Programs` answers what a container's program does (the
container simulation in fakecri/sim implements it); the other port, `images.Registry`
(what an image reference pulls, the sim's catalog fills it in), lives beside the image
store that asks it. The engine hands them what they need in the call (the container, its
sandbox, its image record); they answer from their arguments and their own state and never
call back into the engine (tests/engine/test_ports_ask.py holds it).
"""
from __future__ import annotations

from typing import Protocol

from fakecri.engine.program_plan import Plan
from fakecri.engine.records import Container, Image, RunAs, Sandbox


class Programs(Protocol):
    def check_sandbox(self, sandbox: Sandbox) -> None:
        """Raise InvalidArgument when the sandbox's settings for its containers' programs are
        bad (its `fakecri.io/` annotations); called before the sandbox is recorded."""

    def check(self, container: Container, sandbox: Sandbox, image: Image | None) -> RunAs:
        """Raise InvalidArgument when the container cannot be made as configured (a bad
        `fakecri.io/` annotation, say); else the user its process runs as (which the engine
        records with it). Called before the container is recorded."""

    def plan(self, container: Container, sandbox: Sandbox, image: Image | None) -> Plan:
        """What the container's program does once started (the same answer every time);
        `image` is its image record (None if the store no longer holds it)."""

    def cpu_used_ns(self, container: Container, sandbox: Sandbox, now_ns: int) -> int:
        """CPU time the container has used by `now_ns` (kept for its pod once it is removed)."""


class NoPrograms:
    """Containers whose programs do nothing and never end (for engine-only use)."""

    _PLAN = Plan(outputs=(), end_ns=None, exit_code=0, reason="")

    def check_sandbox(self, sandbox: Sandbox) -> None:
        return None

    def check(self, container: Container, sandbox: Sandbox, image: Image | None) -> RunAs:
        return RunAs()

    def plan(self, container: Container, sandbox: Sandbox, image: Image | None) -> Plan:
        return self._PLAN

    def cpu_used_ns(self, container: Container, sandbox: Sandbox, now_ns: int) -> int:
        return 0
