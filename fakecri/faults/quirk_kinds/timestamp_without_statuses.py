"""`timestamp-without-statuses`: PodSandboxStatus fills `timestamp` but leaves
`containers_statuses` empty."""
from __future__ import annotations

from fakecri.faults.quirk_kinds.common import Quirks, QuirkSpec

SPEC = QuirkSpec(
    "timestamp-without-statuses",
    "PodSandboxStatus fills timestamp but leaves containers_statuses empty (containerd 2.0).",
    "containerd 2.0",
    ("containerd/containerd#10740", "containerd/containerd#11312", "containerd/containerd#11323",
     "kubernetes/kubernetes#129818", "kubernetes/kubernetes#129990"))


def omits_statuses(quirks: Quirks) -> bool:
    """True when a PodSandboxStatus answer goes without its containers_statuses."""
    return SPEC.name in quirks
