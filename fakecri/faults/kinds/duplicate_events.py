"""`duplicate_events`: send events more than once."""
from __future__ import annotations

import random

from fakecri.faults.ftype import EVENT, Attr, Entry, EventDecision, FaultType
from fakecri.faults.kinds.common import positive


def _on_event(e: Entry, rng: random.Random, d: EventDecision) -> bool:
    d.copies += e.params["copies"]
    return True


DUPLICATE_EVENTS = FaultType(
    "duplicate_events", EVENT, "Send events more than once.",
    {"copies": Attr(positive, "1", doc="extra copies of a hit event")},
    on_event=_on_event,
)
