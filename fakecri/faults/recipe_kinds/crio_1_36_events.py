"""`crio-1.36-events`: CRI-O 1.36.3's event stream as the conformance suite measured it, made of
four quirks (each switched on by its own `quirk` fault, named from its module's SPEC)."""
from __future__ import annotations

from fakecri.faults.kinds.quirk import quirk_fault
from fakecri.faults.quirk_kinds import (
    no_container_deleted_on_sandbox_remove,
    no_sandbox_created_event,
    no_sandbox_deleted_event,
    stopped_before_started,
)
from fakecri.faults.recipe_kinds.common import RecipeSpec

SPEC = RecipeSpec(
    "crio-1.36-events",
    "The event stream of CRI-O 1.36.3 as fakecri's conformance suite measured it: no sandbox CREATED, "
    "no sandbox DELETED, no container DELETED for the containers RemovePodSandbox removes, and an "
    "instant container's STOPPED before its STARTED.",
    ("cri-o/cri-o#6404", "cri-o/cri-o#9738"),
    tuple(quirk_fault(q.SPEC.name) for q in (no_sandbox_created_event, no_sandbox_deleted_event,
                                             no_container_deleted_on_sandbox_remove, stopped_before_started)))
