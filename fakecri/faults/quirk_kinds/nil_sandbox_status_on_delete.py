"""`nil-sandbox-status-on-delete`: the sandbox DELETED event carries no pod_sandbox_status
(nor containers_statuses)."""
from __future__ import annotations

from fakecri.engine.records import Event, EventType
from fakecri.faults.quirk_kinds.common import QuirkLog, Quirks, QuirkSpec, event_hit

SPEC = QuirkSpec(
    "nil-sandbox-status-on-delete",
    "The sandbox DELETED event carries no pod_sandbox_status (containerd 1.7).",
    "containerd 1.7",
    ("containerd/containerd#12418", "kubernetes/kubernetes#114371"))


def drops_statuses(ev: Event, quirks: Quirks, log: QuirkLog) -> bool:
    """True when `ev` is a sandbox's DELETED event that goes out without its statuses."""
    return ev.is_sandbox and ev.type == EventType.DELETED and event_hit(SPEC, quirks, log, ev)
