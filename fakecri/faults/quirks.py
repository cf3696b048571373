"""Runtime quirks seen in real CRI runtimes, one enum member each. The server implements
the effect of each; a name that is not a member fails where it is written, so a typo
cannot silently switch a quirk off."""
from __future__ import annotations

import enum


class Quirk(str, enum.Enum):
    description: str

    def __new__(cls, name: str, description: str) -> Quirk:
        member = str.__new__(cls, name)
        member._value_ = name
        member.description = description
        return member

    NO_SANDBOX_DELETED_EVENT = (
        "no-sandbox-deleted-event",
        "Removing a pod sandbox emits no sandbox DELETED event (CRI-O).")
    NIL_SANDBOX_STATUS_ON_DELETE = (
        "nil-sandbox-status-on-delete",
        "The sandbox DELETED event carries no pod_sandbox_status (containerd 1.7).")
    STOPPED_BEFORE_STARTED = (
        "stopped-before-started",
        "A container that exits at once has its STOPPED event sent before STARTED (CRI-O #9738).")
    CREATED_AT_SECONDS = (
        "created-at-seconds",
        "Event created_at is in seconds instead of nanoseconds.")
    TIMESTAMP_WITHOUT_STATUSES = (
        "timestamp-without-statuses",
        "PodSandboxStatus fills timestamp but leaves containers_statuses empty (containerd 2.0).")
    POD_WIDE_CONTAINER_STATUSES = (
        "pod-wide-container-statuses",
        "An event's containers_statuses covers the whole pod rather than the sandbox (CRI-O).")
    OLDEST_FIRST_CONTAINER_STATUSES = (
        "oldest-first-container-statuses",
        "Sandbox statuses and events list containers oldest first; a kubelet with EventedPLEG "
        "then recreates an attempt that exists (AlreadyExists, over and over).")
    RESIZE_NOT_APPLIED = (
        "resize-not-applied",
        "UpdateContainerResources answers OK but changes nothing.")


QUIRK_NAMES: tuple[str, ...] = tuple(q.value for q in Quirk)
BY_NAME: dict[str, Quirk] = {q.value: q for q in Quirk}
QUIRKS: dict[str, str] = {q.value: q.description for q in Quirk}
