"""`resize-not-applied`: UpdateContainerResources answers OK but changes nothing."""
from __future__ import annotations

from fakecri.faults.quirk_kinds.common import Quirks, QuirkSpec

SPEC = QuirkSpec(
    "resize-not-applied",
    "UpdateContainerResources answers OK but changes nothing.",
    "runtimes that ignore an in-place resize",
    ("kubernetes/kubernetes#123441", "kubernetes/kubernetes#125559"))


def ignores_resize(quirks: Quirks) -> bool:
    """True when UpdateContainerResources answers OK without changing anything."""
    return SPEC.name in quirks
