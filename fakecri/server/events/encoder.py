"""Turn the engine's events into ContainerEventResponse bytes and hand them to the bus.

Each event carries its pod's records as they were at the transition, so the statuses in
the response are a snapshot of that moment whenever it is encoded. Runtime quirks
(fakecri.faults.quirks) that change what an event looks like are applied here, in one
place, so a conformance suite can be shown real runtime bugs on request.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.records import Event, EventType
from fakecri.faults.plan import FaultPlan
from fakecri.faults.quirks import Quirk
from fakecri.server.codec.statuses import StatusCache
from fakecri.server.codec.wire import field_fragment
from fakecri.server.events.bus import EventBus


class EventEncoder:
    """`publish(events, quirks)` encodes a commit's events and sends them to every subscriber
    on `bus` (to one, with the shared-event-channel quirk), tallied in `counters`
    (events_emitted, events_dropped)."""

    def __init__(self, plan: FaultPlan, statuses: StatusCache, bus: EventBus, counters: Counter[str]) -> None:
        self.plan = plan
        self.statuses = statuses
        self.bus = bus
        self.counters = counters
        self._shared = False  # the shared-event-channel quirk, as of the events being published
        self._held: tuple[Event, bytes] | None = None  # for the stopped-before-started quirk
        self._quiet: set[str] = set()  # no-container-deleted-on-sandbox-remove: sandboxes being removed

    def quiet_container_deletes(self, sandbox_id: str) -> None:
        """No container DELETED goes out for `sandbox_id` until its own DELETED event passes
        (the no-container-deleted-on-sandbox-remove quirk; RemovePodSandbox asks for it)."""
        self._quiet.add(sandbox_id)

    def _quirk(self, quirks: frozenset[Quirk], quirk: Quirk, ev: Event) -> bool:
        """True when `quirk` is on; the fault layer logs and counts each use."""
        if quirk not in quirks:
            return False
        return self.plan.quirk_hit(quirk, f"{ev.type.name} {ev.container_id[:12]}")

    def encode(self, ev: Event, quirks: frozenset[Quirk]) -> bytes | None:
        """The event as ContainerEventResponse bytes; None when a quirk swallows it."""
        sandbox_deleted = ev.is_sandbox and ev.type == EventType.DELETED
        if self._quiet and ev.type == EventType.DELETED:
            if sandbox_deleted:
                self._quiet.discard(ev.sandbox_id)
            elif ev.sandbox_id in self._quiet:
                return None  # a container removed with its sandbox, unannounced (CRI-O 1.36)
        if sandbox_deleted and self._quirk(quirks, Quirk.NO_SANDBOX_DELETED_EVENT, ev):
            return None
        if (ev.is_sandbox and ev.type == EventType.CREATED
                and self._quirk(quirks, Quirk.NO_SANDBOX_CREATED_EVENT, ev)):
            return None
        created_at = ev.created_at
        if self._quirk(quirks, Quirk.CREATED_AT_SECONDS, ev):
            created_at //= 1_000_000_000
        event_type = ev.type
        if (ev.type == EventType.STOPPED and not ev.is_sandbox
                and self._quirk(quirks, Quirk.STOPPED_AS_CREATED, ev)):
            event_type = EventType.CREATED  # the type mixed up; the statuses still say EXITED
        head: bytes = pb.ContainerEventResponse(
            container_id=ev.container_id, container_event_type=int(event_type), created_at=created_at  # type: ignore[arg-type]
        ).SerializeToString()
        nil_status = sandbox_deleted and self._quirk(quirks, Quirk.NIL_SANDBOX_STATUS_ON_DELETE, ev)
        if ev.sandbox is None or nil_status:
            return head
        # pod_sandbox_status (4) and containers_statuses (5) appended as wire fragments of the
        # cached statuses: the same bytes SerializeToString would give (fields in number order).
        statuses = self.statuses.container_statuses_wire(ev.sandbox, ev.containers, quirks)
        return b"".join([head, field_fragment(4, self.statuses.sandbox_status_bytes(ev.sandbox)),
                         *[field_fragment(5, b) for b in statuses]])

    def publish(self, events: Iterable[Event], quirks: frozenset[Quirk]) -> None:
        """Encode and send `events` in order; a STARTED held back by the stopped-before-started
        quirk goes out at the end, unless its STOPPED overtook it."""
        self._shared = Quirk.SHARED_EVENT_CHANNEL in quirks
        for ev in events:
            self._one(ev, quirks)
        self.flush()

    def _send(self, data: bytes) -> None:
        self.counters["events_emitted"] += 1
        if not self.bus.publish(data, shared=self._shared):
            self.counters["events_dropped"] += 1

    def _one(self, ev: Event, quirks: frozenset[Quirk]) -> None:
        data = self.encode(ev, quirks)
        if data is None:
            return
        if Quirk.STOPPED_BEFORE_STARTED in quirks and not ev.is_sandbox:
            held = self._held
            if ev.type == EventType.STARTED:
                self.flush()
                self._held = (ev, data)
                return
            if held is not None and held[0].container_id == ev.container_id and ev.type == EventType.STOPPED:
                # CRI-O #9738: the exit of an instant container overtakes its start.
                self._held = None
                self._send(data)
                self._send(held[1])
                return
        if self._held is not None:
            self.flush()
        self._send(data)
        if ev.type == EventType.STOPPED and not ev.is_sandbox and self._quirk(quirks, Quirk.DELETED_ON_STOP, ev):
            # cri-o#6625: a DELETED right after the STOPPED, for a container that still exists.
            spurious = self.encode(dataclasses.replace(ev, type=EventType.DELETED), quirks)
            if spurious is not None:
                self._send(spurious)

    def flush(self) -> None:
        """Release a STARTED event held back by the stopped-before-started quirk."""
        if self._held is not None:
            held, self._held = self._held, None
            self._send(held[1])

    def reset(self) -> None:
        self._held = None
        self._quiet.clear()
