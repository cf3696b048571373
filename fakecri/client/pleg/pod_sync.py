"""The step of a kubelet's pod sync that decides a container's next attempt, from the pod cache.

A kubelet looks up a container by name in the cached pod status and takes the first
status with that name as the container's latest (FindContainerStatusByName). If that one
is not running it creates the next attempt, numbered one past it. Which status comes
first is therefore what decides: the kubelet sorts the statuses it builds from
ListContainers and from events newest first, but takes PodSandboxStatus's list as given.
"""
from __future__ import annotations

from collections.abc import Iterable

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg.cache import PodStatus

_LIVE = (pb.CONTAINER_RUNNING, pb.CONTAINER_CREATED)


def newest_first(statuses: Iterable[pb.ContainerStatus]) -> list[pb.ContainerStatus]:
    """Container statuses by creation time, newest first, as the kubelet sorts them."""
    return sorted(statuses, key=lambda s: s.created_at, reverse=True)


def find_status_by_name(status: PodStatus, name: str) -> pb.ContainerStatus | None:
    """The first container status named `name`: what the kubelet takes for the latest."""
    return next((s for s in status.container_statuses if s.metadata.name == name), None)


def next_attempt(status: PodStatus, name: str) -> int | None:
    """The attempt a sync would create for container `name`, or None when it would leave it be."""
    latest = find_status_by_name(status, name)
    if latest is None:
        return 0
    if latest.state in _LIVE:
        return None
    return latest.metadata.attempt + 1
