"""Serialized ContainerStatus and PodSandboxStatus, built once per record, and which
containers a sandbox status or an event lists, in what order.

PodSandboxStatus, ContainerStatus and every container event carry the same statuses; they
are built here once per record (records are frozen, so a changed record is a new key) and
reused as wire bytes. Quirks that change what a sandbox status answer holds
(`timestamp-without-statuses`, `pod-wide-container-statuses`,
`oldest-first-container-statuses`) act here too, each through its module of
fakecri.faults.quirk_kinds.

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

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.records import Container, Sandbox
from fakecri.engine.runtime import Runtime
from fakecri.faults.quirk_kinds import (
    oldest_first_container_statuses,
    pod_wide_container_statuses,
    timestamp_without_statuses,
)
from fakecri.faults.quirks import Quirk
from fakecri.server.codec import translate as tr
from fakecri.server.codec.wire import field_fragment, varint
from fakecri.sim.image_content import ImageContent

# Serialized statuses kept, by record. Bounded: at most this many, then it starts over.
STATUS_CACHE_MAX = 4096


class StatusCache:
    def __init__(self, runtime: Runtime, content_of: Callable[[Container], ImageContent]) -> None:
        """`content_of`: what is inside a container's image (its user, its account files), asked
        only for a container record without the user settled at its creation."""
        self.runtime = runtime
        self.content_of = content_of
        self._entries: dict[object, bytes] = {}

    def _cached(self, rec: Any, build: Callable[[Any], Any]) -> bytes:
        data = self._entries.get(rec)
        if data is None:
            data = build(rec).SerializeToString()
            if len(self._entries) >= STATUS_CACHE_MAX:
                self._entries.clear()
            self._entries[rec] = data
        return data

    def clear(self) -> None:
        self._entries.clear()

    def image_tag(self, c: Container) -> str:
        """The first repo tag of the container's image as it is now ("" when it has none, or is gone)."""
        img = self.runtime.images.get(c.image_id)
        return img.repo_tags[0] if img is not None and img.repo_tags else ""

    def _status(self, c: Container, tag: str) -> pb.ContainerStatus:
        # The user was settled at creation; a record of an older fakecri has none: its image's content says.
        return tr.container_status(c, self.content_of(c) if c.user is None else None, tag)

    def container_status(self, c: Container) -> pb.ContainerStatus:
        return self._status(c, self.image_tag(c))

    def container_status_bytes(self, c: Container) -> bytes:
        tag = self.image_tag(c)
        key = (c, tag) if tag else c
        return self._cached(key, lambda key: self._status(c, tag))

    def sandbox_status_bytes(self, sb: Sandbox) -> bytes:
        return self._cached(sb, tr.sandbox_status)

    def container_statuses_wire(self, sb: Sandbox, containers: Sequence[Container],
                                quirks: frozenset[Quirk]) -> list[bytes]:
        """The serialized statuses of the sandbox's containers (the pod's, with the pod-wide
        quirk), newest first (see `listed_containers`)."""
        return [self.container_status_bytes(c) for c in listed_containers(self.runtime, sb, containers, quirks)]

    def _own(self, sb: Sandbox) -> list[Container]:
        return self.runtime.list_containers(sandbox_id=sb.id)

    def sandbox_status_wire(self, sb: Sandbox, quirks: frozenset[Quirk], now_ns: int) -> bytes:
        """PodSandboxStatusResponse (non-verbose) as wire bytes: status (1), containers_statuses (3),
        timestamp (4), set together as sandbox_status_response() does."""
        parts = [field_fragment(1, self.sandbox_status_bytes(sb))]
        if not (quirks and timestamp_without_statuses.omits_statuses(quirks)):
            parts += [field_fragment(3, b) for b in self.container_statuses_wire(sb, self._own(sb), quirks)]
        if now_ns > 0:
            parts.append(b"\x20" + varint(now_ns))
        return b"".join(parts)

    def sandbox_status_response(self, sb: Sandbox, quirks: frozenset[Quirk],
                                now_ns: int) -> pb.PodSandboxStatusResponse:
        """The verbose answer as a message: PodSandboxStatus sets `timestamp` and
        `containers_statuses` together."""
        resp = pb.PodSandboxStatusResponse(status=tr.sandbox_status(sb), timestamp=now_ns)
        if not (quirks and timestamp_without_statuses.omits_statuses(quirks)):
            resp.containers_statuses.extend(
                self.container_status(c)
                for c in listed_containers(self.runtime, sb, self._own(sb), quirks))
        return resp


def newest_first(containers: Iterable[Container]) -> list[Container]:
    """Container records newest first: by created_at, then attempt, then id (for ties)."""
    return sorted(containers, key=lambda c: (c.created_at, c.attempt, c.id), reverse=True)


def listed_containers(runtime: Runtime, sb: Sandbox, containers: Sequence[Container],
                      quirks: frozenset[Quirk]) -> list[Container]:
    """The container records a status of sandbox `sb` lists, in order. `containers` are the
    sandbox's own (as of the moment the status describes); the pod-wide quirk adds those of
    the pod's other sandboxes as they are now."""
    if not quirks:  # none in force: the sandbox's own, newest first, no quirk module asked
        return newest_first(list(containers))
    found = pod_wide_container_statuses.listed(sb, containers, quirks, runtime)
    return oldest_first_container_statuses.ordered(found, quirks, newest_first)
