"""`reorder_events`: hold events back behind up to `window` later events."""
from __future__ import annotations

import random

from fakecri.faults.ftype import EVENT, Attr, Entry, EventDecision, FaultType
from fakecri.faults.kinds.common import positive


def _on_event(e: Entry, rng: random.Random, d: EventDecision) -> bool:
    if d.hold is not None:  # another reorder fault holds this event already
        return False
    d.hold = rng.randint(1, e.params["window"])
    return True


REORDER_EVENTS = FaultType(
    "reorder_events", EVENT, "Hold events back behind up to `window` later events.",
    {"window": Attr(positive, "3", doc="most later events a held event waits for")},
    on_event=_on_event, holds=True,
)
