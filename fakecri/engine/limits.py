"""Capacity limits of a runtime. Going past one is ResourceExhausted."""
from __future__ import annotations

from dataclasses import dataclass

from fakecri.engine.errors import ResourceExhausted


@dataclass(frozen=True, slots=True)
class Limits:
    max_sandboxes: int | None = None  # None: unlimited
    max_containers: int | None = None

    def check_sandboxes(self, current: int, name: str) -> None:
        if self.max_sandboxes is not None and current >= self.max_sandboxes:
            raise ResourceExhausted(
                f"cannot run sandbox {name!r}: the runtime already holds {current} sandboxes "
                f"(limit {self.max_sandboxes})"
            )

    def check_containers(self, current: int, name: str) -> None:
        if self.max_containers is not None and current >= self.max_containers:
            raise ResourceExhausted(
                f"cannot create container {name!r}: the runtime already holds {current} containers "
                f"(limit {self.max_containers})"
            )
