"""`slow_pull`: make pulls of matching image references slow."""
from __future__ import annotations

from fakecri.faults.ftype import PULL, Entry, FaultType, PullDecision, jittered
from fakecri.faults.kinds.common import DELAY, JITTER


def _on_pull(e: Entry, reference: str, d: PullDecision) -> None:
    d.delay_s += jittered(e.rng, e.params["delay"], e.params["jitter"])


SLOW_PULL = FaultType("slow_pull", PULL, "Make pulls of matching image references slow.",
                      {"delay": DELAY, "jitter": JITTER}, on_pull=_on_pull)
