"""`update-sandbox-resources-fails`: UpdatePodSandboxResources fails with an error other than
UNIMPLEMENTED (INTERNAL), the answer that blocks a pod's resize."""
from __future__ import annotations

from fakecri.faults.kinds.error import ERROR
from fakecri.faults.recipe_kinds.common import RecipeSpec, fault

SPEC = RecipeSpec(
    "update-sandbox-resources-fails",
    "UpdatePodSandboxResources answers INTERNAL; since kubernetes/kubernetes#137555 an error other than "
    "UNIMPLEMENTED blocks the pod's resize.",
    ("kubernetes/kubernetes#137555",),
    (fault(ERROR, "UpdatePodSandboxResources", code="INTERNAL"),))
