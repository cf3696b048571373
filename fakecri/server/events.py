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

if TYPE_CHECKING:
    from fakecri.server.state import ServerState


class EventBuilder:
    def __init__(self, state: ServerState) -> None:
        self.st = state
        self._held: tuple[Event, bytes] | None = None  # for the stopped-before-started quirk

    # ------------------------------------------------------------ statuses

    def _container_statuses(self, sandbox_id: str, uid: str, pod_wide: bool) -> list[pb.ContainerStatus]:
        rt = self.st.runtime
        if pod_wide:
            sandboxes = [sb for sb in rt.list_sandboxes() if sb.uid == uid]
        else:
            sandboxes = [rt.get_sandbox(sandbox_id)]
        out = []
        for sb in sandboxes:
            for cid in sb.container_ids:
                out.append(tr.container_status(rt.get_container(cid)))
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
        msg = pb.ContainerEventResponse(
            container_id=ev.container_id, container_event_type=int(ev.type), created_at=created_at
        )
        sb = self.st.find_sandbox(ev.sandbox_id)
        nil_status = sandbox_deleted and self._quirk(quirks, "nil-sandbox-status-on-delete", ev)
        if sb is not None and not nil_status:
            msg.pod_sandbox_status.CopyFrom(tr.sandbox_status(sb))
            msg.containers_statuses.extend(
                self._container_statuses(sb.id, sb.uid, "pod-wide-container-statuses" in quirks)
            )
        return msg.SerializeToString()

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
