"""`no-sandbox-created-event`: RunPodSandbox emits no sandbox CREATED event (the sandbox's
STARTED still goes out)."""
from __future__ import annotations

from fakecri.engine.records import Event, EventType
from fakecri.faults.quirk_kinds.common import QuirkLog, Quirks, QuirkSpec, event_hit

SPEC = QuirkSpec(
    "no-sandbox-created-event",
    "RunPodSandbox emits no sandbox CREATED event (CRI-O 1.36).",
    "CRI-O 1.36.3 (measured by fakecri's conformance suite)",
    ("cri-o/cri-o#6404",))


def swallows(ev: Event, quirks: Quirks, log: QuirkLog) -> bool:
    """True when `ev` is a sandbox's CREATED event the quirk keeps from going out."""
    return ev.is_sandbox and ev.type == EventType.CREATED and event_hit(SPEC, quirks, log, ev)
