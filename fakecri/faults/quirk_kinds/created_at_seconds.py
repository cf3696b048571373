"""`created-at-seconds`: an event's created_at is in seconds instead of nanoseconds."""
from __future__ import annotations

from fakecri.engine.records import Event
from fakecri.faults.quirk_kinds.common import QuirkLog, Quirks, QuirkSpec, event_hit

SPEC = QuirkSpec(
    "created-at-seconds",
    "Event created_at is in seconds instead of nanoseconds.",
    "CRI-O before #8582",
    ("kubernetes/kubernetes#124297", "kubernetes/kubernetes#126414", "cri-o/cri-o#8582"))


def created_at(ev: Event, quirks: Quirks, log: QuirkLog) -> int:
    """The created_at `ev` goes out with."""
    if event_hit(SPEC, quirks, log, ev):
        return ev.created_at // 1_000_000_000
    return ev.created_at
