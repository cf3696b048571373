"""`no-container-deleted-on-sandbox-remove`: RemovePodSandbox removes the containers still
in the sandbox without a container DELETED event for any of them; a RemoveContainer of its
own is still told."""
from __future__ import annotations

from fakecri.engine.records import Event, EventType
from fakecri.faults.quirk_kinds.common import PodView, QuirkLog, Quirks, QuirkSpec

SPEC = QuirkSpec(
    "no-container-deleted-on-sandbox-remove",
    "RemovePodSandbox removes the containers still in the sandbox without a container DELETED "
    "event for any of them (CRI-O 1.36).",
    "CRI-O 1.36.3 (measured by fakecri's conformance suite)",
    ("cri-o/cri-o#6404",))


def quiet_on_remove(sandbox_id: str, quirks: Quirks, log: QuirkLog, pods: PodView) -> str | None:
    """At RemovePodSandbox of `sandbox_id`: the id of the sandbox whose containers go without
    their DELETED events (None: the quirk is off, or there is no such sandbox)."""
    if SPEC.name not in quirks:
        return None
    found = pods.list_sandboxes(id=sandbox_id)
    if found and log.quirk_hit(SPEC.name, found[0].id[:12]):
        return found[0].id
    return None


class QuietSandboxes:
    """The sandboxes being removed whose containers' DELETED events do not go out, until the
    sandbox's own DELETED event passes."""

    def __init__(self) -> None:
        self._quiet: set[str] = set()

    def add(self, sandbox_id: str) -> None:
        self._quiet.add(sandbox_id)

    def swallows(self, ev: Event) -> bool:
        """True when `ev` is a container's DELETED event of a quiet sandbox."""
        if not self._quiet or ev.type != EventType.DELETED:
            return False
        if ev.is_sandbox:
            self._quiet.discard(ev.sandbox_id)
            return False
        return ev.sandbox_id in self._quiet  # removed with its sandbox, unannounced (CRI-O 1.36)

    def clear(self) -> None:
        self._quiet.clear()
