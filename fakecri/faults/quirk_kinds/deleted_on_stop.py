"""`deleted-on-stop`: a container's STOPPED event is followed by a DELETED event although
the container still exists."""
from __future__ import annotations

import dataclasses

from fakecri.engine.records import Event, EventType
from fakecri.faults.quirk_kinds.common import QuirkLog, Quirks, QuirkSpec, event_hit

SPEC = QuirkSpec(
    "deleted-on-stop",
    "A container's STOPPED event is followed by a DELETED event although the container "
    "still exists (CRI-O 1.26).",
    "CRI-O 1.26",
    ("cri-o/cri-o#6625", "cri-o/cri-o#6633"))


def spurious_delete(ev: Event, quirks: Quirks, log: QuirkLog) -> Event | None:
    """The DELETED event to send right after `ev` has gone out (None: none)."""
    if ev.type == EventType.STOPPED and not ev.is_sandbox and event_hit(SPEC, quirks, log, ev):
        return dataclasses.replace(ev, type=EventType.DELETED)  # cri-o#6625: the container still exists
    return None
