"""Serialized ContainerStatus and PodSandboxStatus, built once per record revision.

PodSandboxStatus, ContainerStatus and every container event carry the same statuses; they
are built here once per change of the record (each core mutation bumps its `rev`) and
reused as wire bytes. Two quirks that change what a sandbox status answer holds
(`timestamp-without-statuses`, `pod-wide-container-statuses`) are applied here too.
"""
from __future__ import annotations

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.core.runtime import Runtime
from fakecri.server import translate as tr
from fakecri.server.wire import field_fragment, varint

# Serialized statuses kept per record (checked against the record object and its `rev`).
# Bounded: at most this many, then it starts over.
STATUS_CACHE_MAX = 4096


def _sandboxes_of(rt: Runtime, sb, pod_wide: bool) -> list:
    """The sandbox itself, or with the pod-wide quirk every sandbox of the same pod uid."""
    if pod_wide:
        return [other for other in rt.list_sandboxes() if other.uid == sb.uid]
    return [sb]


class StatusCache:
    def __init__(self) -> None:
        self._entries: dict[str, tuple[object, int, bytes]] = {}

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
        return self._cached(c, tr.container_status)

    def sandbox_status_bytes(self, sb) -> bytes:
        return self._cached(sb, tr.sandbox_status)

    def container_statuses_wire(self, rt: Runtime, sb, pod_wide: bool) -> list[bytes]:
        """The serialized statuses of the sandbox's containers (the pod's, with `pod_wide`)."""
        return [self.container_status_bytes(rt.get_container(cid))
                for other in _sandboxes_of(rt, sb, pod_wide) for cid in other.container_ids]

    def sandbox_status_wire(self, rt: Runtime, sb, quirks: frozenset[str], now_ns: int) -> bytes:
        """PodSandboxStatusResponse (non-verbose) as wire bytes: status (1), containers_statuses (3),
        timestamp (4), set together as sandbox_status_response() does."""
        parts = [field_fragment(1, self.sandbox_status_bytes(sb))]
        if "timestamp-without-statuses" not in quirks:
            pod_wide = "pod-wide-container-statuses" in quirks
            parts += [field_fragment(3, b) for b in self.container_statuses_wire(rt, sb, pod_wide)]
        if now_ns > 0:
            parts.append(b"\x20" + varint(now_ns))
        return b"".join(parts)


def sandbox_status_response(rt: Runtime, sb, quirks: frozenset[str], now_ns: int) -> pb.PodSandboxStatusResponse:
    """The verbose answer as a message: PodSandboxStatus sets `timestamp` and
    `containers_statuses` together."""
    resp = pb.PodSandboxStatusResponse(status=tr.sandbox_status(sb), timestamp=now_ns)
    if "timestamp-without-statuses" not in quirks:
        pod_wide = "pod-wide-container-statuses" in quirks
        resp.containers_statuses.extend(
            tr.container_status(rt.get_container(cid))
            for other in _sandboxes_of(rt, sb, pod_wide) for cid in other.container_ids
        )
    return resp
