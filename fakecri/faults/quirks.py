"""Runtime quirks seen in real CRI runtimes. The server implements the effect of each."""
from __future__ import annotations

QUIRKS: dict[str, str] = {
    "no-sandbox-deleted-event":
        "Removing a pod sandbox emits no sandbox DELETED event (CRI-O).",
    "nil-sandbox-status-on-delete":
        "The sandbox DELETED event carries no pod_sandbox_status (containerd 1.7).",
    "stopped-before-started":
        "A container that exits at once has its STOPPED event sent before STARTED (CRI-O #9738).",
    "created-at-seconds":
        "Event created_at is in seconds instead of nanoseconds.",
    "timestamp-without-statuses":
        "PodSandboxStatus fills timestamp but leaves containers_statuses empty (containerd 2.0).",
    "pod-wide-container-statuses":
        "An event's containers_statuses covers the whole pod rather than the sandbox (CRI-O).",
    "oldest-first-container-statuses":
        "Sandbox statuses and events list containers oldest first; a kubelet with EventedPLEG "
        "then recreates an attempt that exists (AlreadyExists, over and over).",
    "resize-not-applied":
        "UpdateContainerResources answers OK but changes nothing.",
}

QUIRK_NAMES: tuple[str, ...] = tuple(QUIRKS)
