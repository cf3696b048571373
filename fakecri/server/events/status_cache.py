"""Serialized ContainerStatus and PodSandboxStatus, built once per record revision.

PodSandboxStatus, ContainerStatus and every container event carry the same statuses; they
are built here once per change of the record (each core mutation bumps its `rev`) and
reused as wire bytes. Quirks that change what a sandbox status answer holds
(`timestamp-without-statuses`, `pod-wide-container-statuses`,
`oldest-first-container-statuses`) are applied here too.
"""
from __future__ import annotations

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.sim.image_content import BUSYBOX
from fakecri.engine.runtime import Runtime
from fakecri.server import translate as tr
from fakecri.server.events.status_order import listed_containers
from fakecri.server.wire import field_fragment, varint

# Serialized statuses kept per record (checked against the record object and its `rev`).
# Bounded: at most this many, then it starts over.
STATUS_CACHE_MAX = 4096


class StatusCache:
    def __init__(self, content_of=None) -> None:
        self._entries: dict[str, tuple[object, int, bytes]] = {}
        # What is inside a container's image (its user, account files): the runtime in force
        # answers it; without one every image reads as busybox.
        self.content_of = content_of or (lambda c: BUSYBOX)

    def _cached(self, rec, build) -> bytes:
        """The serialized status of `rec`, built once per rev."""
        entry = self._entries.get(rec.id)
        if entry is not None and entry[0] is rec and entry[1] == rec.rev:
            return entry[2]
        data = build(rec).SerializeToString()
        if len(self._entries) >= STATUS_CACHE_MAX:
            self._entries.clear()
        self._entries[rec.id] = (rec, rec.rev, data)
        return data

    def container_status_bytes(self, c) -> bytes:
        return self._cached(c, lambda c: tr.container_status(c, self.content_of(c)))

    def sandbox_status_bytes(self, sb) -> bytes:
        return self._cached(sb, tr.sandbox_status)

    def container_statuses_wire(self, rt: Runtime, sb, quirks: frozenset[str]) -> list[bytes]:
        """The serialized statuses of the sandbox's containers (the pod's, with the pod-wide
        quirk), newest first (see status_order)."""
        return [self.container_status_bytes(c) for c in listed_containers(rt, sb.id, sb.uid, quirks)]

    def sandbox_status_wire(self, rt: Runtime, sb, quirks: frozenset[str], now_ns: int) -> bytes:
        """PodSandboxStatusResponse (non-verbose) as wire bytes: status (1), containers_statuses (3),
        timestamp (4), set together as sandbox_status_response() does."""
        parts = [field_fragment(1, self.sandbox_status_bytes(sb))]
        if "timestamp-without-statuses" not in quirks:
            parts += [field_fragment(3, b) for b in self.container_statuses_wire(rt, sb, quirks)]
        if now_ns > 0:
            parts.append(b"\x20" + varint(now_ns))
        return b"".join(parts)


def sandbox_status_response(rt: Runtime, sb, quirks: frozenset[str], now_ns: int) -> pb.PodSandboxStatusResponse:
    """The verbose answer as a message: PodSandboxStatus sets `timestamp` and
    `containers_statuses` together."""
    resp = pb.PodSandboxStatusResponse(status=tr.sandbox_status(sb), timestamp=now_ns)
    if "timestamp-without-statuses" not in quirks:
        resp.containers_statuses.extend(
            tr.container_status(c, rt.content_of(c)) for c in listed_containers(rt, sb.id, sb.uid, quirks)
        )
    return resp
