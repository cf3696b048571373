"""`no-sandbox-deleted-event`: removing a pod sandbox emits no sandbox DELETED event."""
from __future__ import annotations

from fakecri.engine.records import Event, EventType
from fakecri.faults.quirk_kinds.common import QuirkLog, Quirks, QuirkSpec, event_hit

SPEC = QuirkSpec(
    "no-sandbox-deleted-event",
    "Removing a pod sandbox emits no sandbox DELETED event (CRI-O).",
    "CRI-O (by code reading)",
    ("cri-o/cri-o#6404",))


def swallows(ev: Event, quirks: Quirks, log: QuirkLog) -> bool:
    """True when `ev` is a sandbox's DELETED event the quirk keeps from going out."""
    return ev.is_sandbox and ev.type == EventType.DELETED and event_hit(SPEC, quirks, log, ev)
