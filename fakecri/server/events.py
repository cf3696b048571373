"""Turn core events into ContainerEventResponse bytes and publish them.

The core calls `on_event` at the instant of each transition, so the statuses in an
event are a snapshot of exactly that moment. Runtime quirks (fakecri.faults.quirks)
that change what an event or a sandbox status looks like are applied here, in one
place, so a conformance suite can be shown real runtime bugs on request.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.core.events import Event, EventType
from fakecri.server import translate as tr
from fakecri.server.wire import field_fragment, varint

if TYPE_CHECKING:
    from fakecri.server.state import ServerState


# Serialized statuses kept per record (checked against the record object and its `rev`,
# which every core mutation bumps). Bounded: at most this many, then it starts over.
STATUS_CACHE_MAX = 4096


class EventBuilder:
    def __init__(self, state: ServerState) -> None:
        self.st = state
        self._held: tuple[Event, bytes] | None = None  # for the stopped-before-started quirk
        self._status_cache: dict[str, tuple[object, int, bytes]] = {}

    # ------------------------------------------------------------ statuses

    def _cached(self, rec, build) -> bytes:
        """The serialized status of `rec` (a ContainerStatus or PodSandboxStatus), built once per rev."""
        entry = self._status_cache.get(rec.id)
        if entry is not None and entry[0] is rec and entry[1] == rec.rev:
            return entry[2]
        data = build(rec).SerializeToString()
        if len(self._status_cache) >= STATUS_CACHE_MAX:
            self._status_cache.clear()
        self._status_cache[rec.id] = (rec, rec.rev, data)
        return data

    def container_status_bytes(self, c) -> bytes:
        return self._cached(c, lambda c: tr.container_status(c, self.st.runtime.content_of(c)))

    def sandbox_status_bytes(self, sb) -> bytes:
        return self._cached(sb, tr.sandbox_status)

    def _container_status_wire(self, sandbox_id: str, uid: str, pod_wide: bool) -> list[bytes]:
        rt = self.st.runtime
        if pod_wide:
            sandboxes = [sb for sb in rt.list_sandboxes() if sb.uid == uid]
        else:
            sandboxes = [rt.get_sandbox(sandbox_id)]
        return [self.container_status_bytes(rt.get_container(cid)) for sb in sandboxes for cid in sb.container_ids]

    def sandbox_status_wire(self, sb) -> bytes:
        """PodSandboxStatusResponse (non-verbose) as wire bytes: status (1), containers_statuses (3),
        timestamp (4), set together as sandbox_status_response() does."""
        quirks = self.st.quirks()
        parts = [field_fragment(1, self.sandbox_status_bytes(sb))]
        if "timestamp-without-statuses" not in quirks:
            pod_wide = "pod-wide-container-statuses" in quirks
            parts += [field_fragment(3, b) for b in self._container_status_wire(sb.id, sb.uid, pod_wide)]
        ts = self.st.clock.now_ns()
        if ts > 0:
            parts.append(b"\x20" + varint(ts))
        return b"".join(parts)

    def _container_statuses(self, sandbox_id: str, uid: str, pod_wide: bool) -> list[pb.ContainerStatus]:
        rt = self.st.runtime
        if pod_wide:
            sandboxes = [sb for sb in rt.list_sandboxes() if sb.uid == uid]
        else:
            sandboxes = [rt.get_sandbox(sandbox_id)]
        out = []
        for sb in sandboxes:
            for cid in sb.container_ids:
                c = rt.get_container(cid)
                out.append(tr.container_status(c, rt.content_of(c)))
        return out

    def sandbox_status_response(self, sb) -> pb.PodSandboxStatusResponse:
        """PodSandboxStatus sets `timestamp` and `containers_statuses` together."""
        quirks = self.st.quirks()
        resp = pb.PodSandboxStatusResponse(status=tr.sandbox_status(sb), timestamp=self.st.clock.now_ns())
        if "timestamp-without-statuses" not in quirks:
            resp.containers_statuses.extend(
                self._container_statuses(sb.id, sb.uid, "pod-wide-container-statuses" in quirks)
            )
        return resp

    # ------------------------------------------------------------ events

    def _quirk(self, quirks: frozenset[str], name: str, ev: Event) -> bool:
        """True when quirk `name` is on; the fault layer logs and counts each use."""
        if name not in quirks:
            return False
        return self.st.plan.quirk_hit(name, f"{ev.type.name} {ev.container_id[:12]}")

    def build(self, ev: Event, quirks: frozenset[str]) -> bytes | None:
        sandbox_deleted = ev.is_sandbox and ev.type == EventType.DELETED
        if sandbox_deleted and self._quirk(quirks, "no-sandbox-deleted-event", ev):
            return None
        created_at = ev.created_at
        if self._quirk(quirks, "created-at-seconds", ev):
            created_at //= 1_000_000_000
        head = pb.ContainerEventResponse(
            container_id=ev.container_id, container_event_type=int(ev.type), created_at=created_at
        ).SerializeToString()
        sb = self.st.find_sandbox(ev.sandbox_id)
        nil_status = sandbox_deleted and self._quirk(quirks, "nil-sandbox-status-on-delete", ev)
        if sb is None or nil_status:
            return head
        # pod_sandbox_status (4) and containers_statuses (5) appended as wire fragments of the
        # cached statuses: the same bytes SerializeToString would give (fields in number order).
        statuses = self._container_status_wire(sb.id, sb.uid, "pod-wide-container-statuses" in quirks)
        return b"".join([head, field_fragment(4, self.sandbox_status_bytes(sb)),
                         *[field_fragment(5, b) for b in statuses]])

    def on_event(self, ev: Event) -> None:
        quirks = self.st.quirks()
        data = self.build(ev, quirks)
        if data is None:
            return
        if "stopped-before-started" in quirks and not ev.is_sandbox:
            held = self._held
            if ev.type == EventType.STARTED:
                self.flush()
                self._held = (ev, data)
                return
            if held is not None and held[0].container_id == ev.container_id and ev.type == EventType.STOPPED:
                # CRI-O #9738: the exit of an instant container overtakes its start.
                self._held = None
                self._publish(data)
                self._publish(held[1])
                return
        self.flush()
        self._publish(data)

    def flush(self) -> None:
        """Release a STARTED event held back by the stopped-before-started quirk."""
        if self._held is not None:
            held, self._held = self._held, None
            self._publish(held[1])

    def _publish(self, data: bytes) -> None:
        self.st.count("events_emitted")
        self.st.bus.publish(data)
