"""Which containers a sandbox status or an event lists, and in what order.

PodSandboxStatusResponse.containers_statuses and ContainerEventResponse.containers_statuses
list the containers of a sandbox (or, with the pod-wide quirk, of the whole pod) newest
first, by (created_at, attempt), as CRI-O does. The order matters to a kubelet with the
EventedPLEG gate on: when PodSandboxStatus carries a timestamp it copies that list into
its pod cache without sorting it, then picks the first status with a container's name
as that container's latest attempt (kubernetes/kubernetes#129857 asks runtimes to fill
the list; nothing says in which order). An oldest-first list makes it recreate an
attempt that already exists, forever; the `oldest-first-container-statuses` quirk
restores that order to show it.
"""
from __future__ import annotations

from collections.abc import Iterable

OLDEST_FIRST_QUIRK = "oldest-first-container-statuses"


def newest_first(containers: Iterable) -> list:
    """Container records newest first: by created_at, then attempt, then id (for ties)."""
    return sorted(containers, key=lambda c: (c.created_at, c.attempt, c.id), reverse=True)


def listed_containers(runtime, sandbox_id: str, uid: str, quirks: frozenset[str]) -> list:
    """The container records a status of sandbox `sandbox_id` (pod `uid`) lists, in order."""
    if "pod-wide-container-statuses" in quirks:
        sandboxes = [sb for sb in runtime.list_sandboxes() if sb.uid == uid]
    else:
        sandboxes = [runtime.get_sandbox(sandbox_id)]
    found = [runtime.get_container(cid) for sb in sandboxes for cid in sb.container_ids]
    if OLDEST_FIRST_QUIRK in quirks:
        return found  # creation order
    return newest_first(found)
