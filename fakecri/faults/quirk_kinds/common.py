"""What every quirk module shares: its declaration (`QuirkSpec`) and the small Protocols its
behaviour sees of the fault plan and of the runtime, so that no quirk reaches into the
server (dependencies go server -> faults)."""
from __future__ import annotations

import random
from collections.abc import Set
from dataclasses import dataclass
from typing import Protocol

from fakecri.engine.records import Container, Event, Sandbox

# The quirks in force, as the fault plan answers them (Quirk members, which are str).
Quirks = Set[str]


@dataclass(frozen=True)
class QuirkSpec:
    """One quirk, declared once: `name` (the --quirks value, the faults file's and the control
    API's `attributes.name`), `description` (the help `fakecri quirks` shows), `runtime`
    (which runtime and version show it) and `reference` (upstream issues and pull requests,
    `owner/repo#N`)."""
    name: str
    description: str
    runtime: str
    reference: tuple[str, ...] = ()

    def on(self, quirks: Quirks) -> bool:
        return self.name in quirks


class QuirkLog(Protocol):
    """The fault plan as a quirk sees it: it logs and counts each use of a quirk."""

    def quirk_hit(self, quirk: str, hit: str) -> bool: ...


class QuirkDraws(QuirkLog, Protocol):
    """The fault plan, for a quirk that draws from its seeded stream."""

    @property
    def has_quirks(self) -> bool: ...

    def quirk_rng(self, quirk: str) -> random.Random | None: ...


class ContainerView(Protocol):
    """The runtime's containers as a quirk reads them."""

    def list_containers(self, *, id: str = "", sandbox_id: str = "") -> list[Container]: ...

    def is_stopping(self, cid: str) -> bool: ...


class PodView(Protocol):
    """The runtime's sandboxes and containers as a quirk reads them."""

    def list_sandboxes(self, *, id: str = "") -> list[Sandbox]: ...

    def list_containers(self, *, id: str = "", sandbox_id: str = "") -> list[Container]: ...


def event_hit(spec: QuirkSpec, quirks: Quirks, log: QuirkLog, ev: Event) -> bool:
    """True when `spec` is in force; the plan logs the use against the event."""
    if spec.name not in quirks:
        return False
    return log.quirk_hit(spec.name, f"{ev.type.name} {ev.container_id[:12]}")
