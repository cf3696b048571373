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

from collections.abc import Iterable, Sequence

from fakecri.engine.records import Container, Sandbox
from fakecri.engine.runtime import Runtime
from fakecri.faults.quirks import Quirk


def newest_first(containers: Iterable[Container]) -> list[Container]:
    """Container records newest first: by created_at, then attempt, then id (for ties)."""
    return sorted(containers, key=lambda c: (c.created_at, c.attempt, c.id), reverse=True)


def listed_containers(runtime: Runtime, sb: Sandbox, containers: Sequence[Container],
                      quirks: frozenset[Quirk]) -> list[Container]:
    """The container records a status of sandbox `sb` lists, in order. `containers` are the
    sandbox's own (as of the moment the status describes); the pod-wide quirk adds those of
    the pod's other sandboxes as they are now."""
    found = list(containers)
    if Quirk.POD_WIDE_CONTAINER_STATUSES in quirks:
        for other in runtime.list_sandboxes():
            if other.uid == sb.uid and other.id != sb.id:
                found += runtime.list_containers(sandbox_id=other.id)
    if Quirk.OLDEST_FIRST_CONTAINER_STATUSES in quirks:
        return found  # creation order
    return newest_first(found)
