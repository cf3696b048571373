"""A fault in force inside a FaultPlan, with the state its decisions need."""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from fakecri.faults.model import Fault


@dataclass(eq=False)
class Entry:
    """A fault in force, with what the plan needs to decide for it."""

    fault: Fault
    params: dict[str, Any]
    kind: str
    rng: random.Random
    serial: int
    matcher: re.Pattern[str] | None
    added_ns: int
    matched: int = 0
    reported: bool = False

    def matches(self, text: str) -> bool:
        return self.matcher is None or self.matcher.match(text) is not None

    def applies(self, rng: random.Random) -> bool:
        """One toxicity draw (none at all when toxicity is 1)."""
        tox = self.fault.toxicity
        return tox >= 1.0 or rng.random() < tox


def jittered(rng: random.Random, delay: float, jitter: float) -> float:
    """`delay` moved by a uniform draw in [-jitter, +jitter], never below zero."""
    if jitter <= 0:
        return delay
    return max(0.0, delay + rng.uniform(-jitter, jitter))
