"""`stopped-as-created`: a container's STOPPED event goes out typed CREATED (its statuses
still say EXITED)."""
from __future__ import annotations

from fakecri.engine.records import Event, EventType
from fakecri.faults.quirk_kinds.common import QuirkLog, Quirks, QuirkSpec, event_hit

SPEC = QuirkSpec(
    "stopped-as-created",
    "A container's STOPPED event goes out with the type CREATED (event types mixed up, as in "
    "CRI-O 1.26).",
    "CRI-O 1.26",
    ("cri-o/cri-o#6531", "cri-o/cri-o#6631", "cri-o/cri-o#6633"))


def event_type(ev: Event, quirks: Quirks, log: QuirkLog) -> EventType:
    """The type `ev` goes out with."""
    if ev.type == EventType.STOPPED and not ev.is_sandbox and event_hit(SPEC, quirks, log, ev):
        return EventType.CREATED  # the type mixed up; the statuses still say EXITED
    return ev.type
