"""`delay_events`: deliver events late (later events may overtake them)."""
from __future__ import annotations

import random

from fakecri.faults.ftype import EVENT, Entry, EventDecision, FaultType, jittered
from fakecri.faults.kinds.common import DELAY, JITTER


def _on_event(e: Entry, rng: random.Random, d: EventDecision) -> bool:
    d.delay_s += jittered(rng, e.params["delay"], e.params["jitter"])
    return True


DELAY_EVENTS = FaultType("delay_events", EVENT, "Deliver events late.", {"delay": DELAY, "jitter": JITTER},
                         on_event=_on_event)
