"""`remove-exiting-unknown`: RemoveContainer of a container whose stop is in progress, or
that exited less than EXITING_NS ago, answers UNKNOWN: containerd 1.6 refused to remove a
container whose exit it had not finished handling."""
from __future__ import annotations

from collections.abc import Callable

from fakecri.engine import errors
from fakecri.engine.records import ContainerState
from fakecri.faults.quirk_kinds.common import ContainerView, QuirkLog, Quirks, QuirkSpec

SPEC = QuirkSpec(
    "remove-exiting-unknown",
    "RemoveContainer of a container that exited less than 2 s ago (or is being stopped) answers UNKNOWN "
    "'container is still running, to stop first' (containerd 1.6's race with the exit).",
    "containerd 1.6",
    ("containerd/containerd#4655", "containerd/containerd#8953"))

EXITING_NS = 2_000_000_000  # how long after its exit a container counts as exiting


def still_running(container_id: str) -> errors.CoreError:
    """containerd's RemoveContainer wrapping setContainerRemoving's error (a plain error: UNKNOWN)."""
    return errors.from_code("UNKNOWN", f"failed to set removing state for container {container_id!r}: "
                                       "container is still running, to stop first")


def check_remove(container_id: str, quirks: Quirks, log: QuirkLog, containers: ContainerView,
                 now_ns: Callable[[], int]) -> None:
    """At RemoveContainer: raise UNKNOWN for a container stopping or exited less than EXITING_NS ago."""
    if SPEC.name not in quirks:
        return
    found = containers.list_containers(id=container_id)
    if not found:
        return
    c = found[0]
    stopping = containers.is_stopping(c.id)
    just_exited = c.state == ContainerState.EXITED and now_ns() - c.finished_at < EXITING_NS
    if (stopping or just_exited) and log.quirk_hit(SPEC.name, c.id[:12]):
        raise still_running(c.id)
