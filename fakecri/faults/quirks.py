"""Runtime quirks seen in real CRI runtimes, one enum member each. The server implements
the effect of each; a name that is not a member fails where it is written, so a typo
cannot silently switch a quirk off.

Each member carries its description and its upstream references (issues and pull
requests, `owner/repo#N`), which `fakecri quirks`, `fakecri serve --help` and
docs/bug-lab.md show. docs/bug-lab.md says what a real kubelet does with each.
"""
from __future__ import annotations

import enum


class Quirk(str, enum.Enum):
    description: str
    reference: tuple[str, ...]

    def __new__(cls, name: str, description: str, reference: tuple[str, ...] = ()) -> Quirk:
        member = str.__new__(cls, name)
        member._value_ = name
        member.description = description
        member.reference = reference
        return member

    NO_SANDBOX_DELETED_EVENT = (
        "no-sandbox-deleted-event",
        "Removing a pod sandbox emits no sandbox DELETED event (CRI-O).",
        ("cri-o/cri-o#6404",))
    NIL_SANDBOX_STATUS_ON_DELETE = (
        "nil-sandbox-status-on-delete",
        "The sandbox DELETED event carries no pod_sandbox_status (containerd 1.7).",
        ("containerd/containerd#12418", "kubernetes/kubernetes#114371"))
    STOPPED_BEFORE_STARTED = (
        "stopped-before-started",
        "A container that exits at once has its STOPPED event sent before STARTED (CRI-O #9738).",
        ("cri-o/cri-o#9738", "cri-o/cri-o#9822"))
    CREATED_AT_SECONDS = (
        "created-at-seconds",
        "Event created_at is in seconds instead of nanoseconds.",
        ("kubernetes/kubernetes#124297", "kubernetes/kubernetes#126414", "cri-o/cri-o#8582"))
    TIMESTAMP_WITHOUT_STATUSES = (
        "timestamp-without-statuses",
        "PodSandboxStatus fills timestamp but leaves containers_statuses empty (containerd 2.0).",
        ("containerd/containerd#10740", "containerd/containerd#11312", "containerd/containerd#11323",
         "kubernetes/kubernetes#129818", "kubernetes/kubernetes#129990"))
    POD_WIDE_CONTAINER_STATUSES = (
        "pod-wide-container-statuses",
        "An event's containers_statuses covers the whole pod rather than the sandbox (CRI-O).",
        ("cri-o/cri-o#6404",))
    OLDEST_FIRST_CONTAINER_STATUSES = (
        "oldest-first-container-statuses",
        "Sandbox statuses and events list containers oldest first; a kubelet with EventedPLEG "
        "then recreates an attempt that exists (AlreadyExists, over and over).",
        ("kubernetes/kubernetes#129857", "containerd/containerd#11408"))
    RESIZE_NOT_APPLIED = (
        "resize-not-applied",
        "UpdateContainerResources answers OK but changes nothing.",
        ("kubernetes/kubernetes#123441", "kubernetes/kubernetes#125559"))
    SHARED_EVENT_CHANNEL = (
        "shared-event-channel",
        "Every GetContainerEvents stream reads from one shared buffer (--subscriber-buffer events): "
        "each event reaches one subscriber only, in turn, and events are dropped while the buffer "
        "is full (containerd 1.7 before #9661).",
        ("containerd/containerd#7073", "containerd/containerd#7318", "containerd/containerd#8892",
         "containerd/containerd#8916", "containerd/containerd#9661"))
    STOPPED_AS_CREATED = (
        "stopped-as-created",
        "A container's STOPPED event goes out with the type CREATED (event types mixed up, as in "
        "CRI-O 1.26).",
        ("cri-o/cri-o#6531", "cri-o/cri-o#6631", "cri-o/cri-o#6633"))
    DELETED_ON_STOP = (
        "deleted-on-stop",
        "A container's STOPPED event is followed by a DELETED event although the container "
        "still exists (CRI-O 1.26).",
        ("cri-o/cri-o#6625", "cri-o/cri-o#6633"))
    REMOVE_EXITING_UNKNOWN = (
        "remove-exiting-unknown",
        "RemoveContainer of a container that exited less than 2 s ago (or is being stopped) answers UNKNOWN "
        "'container is still running, to stop first' (containerd 1.6's race with the exit).",
        ("containerd/containerd#4655", "containerd/containerd#8953"))

    # ---- issue 30 part 8: what the conformance suite found on containerd 2.x and CRI-O 1.36
    STOP_RETURNS_WHILE_RUNNING = (
        "stop-returns-while-running",
        "StopContainer answers OK while the container still runs: ContainerStatus says RUNNING and "
        "the STOPPED event waits for 150-250 ms more (seeded), and a RemoveContainer in that window "
        "answers UNKNOWN 'container is still running, to stop first' (containerd 1.6.20, 2.0.0, 2.3.4).",
        ("containerd/containerd#4655", "containerd/containerd#8953"))
    NO_SANDBOX_CREATED_EVENT = (
        "no-sandbox-created-event",
        "RunPodSandbox emits no sandbox CREATED event (CRI-O 1.36).",
        ("cri-o/cri-o#6404",))
    NO_CONTAINER_DELETED_ON_SANDBOX_REMOVE = (
        "no-container-deleted-on-sandbox-remove",
        "RemovePodSandbox removes the containers still in the sandbox without a container DELETED "
        "event for any of them (CRI-O 1.36).",
        ("cri-o/cri-o#6404",))

    @property
    def references(self) -> str:
        """The references as one comma-separated line ('' when there are none)."""
        return ", ".join(self.reference)


QUIRK_NAMES: tuple[str, ...] = tuple(q.value for q in Quirk)
BY_NAME: dict[str, Quirk] = {q.value: q for q in Quirk}
QUIRKS: dict[str, str] = {q.value: q.description for q in Quirk}
