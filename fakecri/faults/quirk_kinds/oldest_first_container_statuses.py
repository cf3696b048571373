"""`oldest-first-container-statuses`: sandbox statuses and events list containers oldest
first (in creation order) instead of newest first; a kubelet with EventedPLEG then takes an
old attempt for the latest and recreates one that exists."""
from __future__ import annotations

from collections.abc import Callable

from fakecri.engine.records import Container
from fakecri.faults.quirk_kinds.common import Quirks, QuirkSpec

SPEC = QuirkSpec(
    "oldest-first-container-statuses",
    "Sandbox statuses and events list containers oldest first; a kubelet with EventedPLEG "
    "then recreates an attempt that exists (AlreadyExists, over and over).",
    "containerd before #11408",
    ("kubernetes/kubernetes#129857", "containerd/containerd#11408"))


def ordered(found: list[Container], quirks: Quirks,
            newest_first: Callable[[list[Container]], list[Container]]) -> list[Container]:
    """`found` in the order a status lists them: creation order with the quirk, else `newest_first`'s."""
    if SPEC.name in quirks:
        return found  # creation order
    return newest_first(found)
