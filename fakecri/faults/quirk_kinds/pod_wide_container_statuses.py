"""`pod-wide-container-statuses`: the containers_statuses of a sandbox's status or event
cover the whole pod (every sandbox with its uid) rather than the sandbox."""
from __future__ import annotations

from collections.abc import Sequence

from fakecri.engine.records import Container, Sandbox
from fakecri.faults.quirk_kinds.common import PodView, Quirks, QuirkSpec

SPEC = QuirkSpec(
    "pod-wide-container-statuses",
    "An event's containers_statuses covers the whole pod rather than the sandbox (CRI-O).",
    "CRI-O (by code reading)",
    ("cri-o/cri-o#6404",))


def listed(sb: Sandbox, containers: Sequence[Container], quirks: Quirks, pods: PodView) -> list[Container]:
    """`containers` (the sandbox's own), and with the quirk those of the pod's other sandboxes
    as they are now."""
    found = list(containers)
    if SPEC.name in quirks:
        for other in pods.list_sandboxes():
            if other.uid == sb.uid and other.id != sb.id:
                found += pods.list_containers(sandbox_id=other.id)
    return found
