"""Turn the engine's events into ContainerEventResponse bytes and hand them to the bus.

Each event carries its pod's records as they were at the transition, so the statuses in
the response are a snapshot of that moment whenever it is encoded. Runtime quirks
that change what an event looks like act here, each through its own module of
fakecri.faults.quirk_kinds, so a conformance suite can be shown real runtime bugs on request.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from fakecri.engine.records import Event
from fakecri.faults.plan import FaultPlan
from fakecri.faults.quirk_kinds import (
    created_at_seconds,
    deleted_on_stop,
    nil_sandbox_status_on_delete,
    no_container_deleted_on_sandbox_remove,
    no_sandbox_created_event,
    no_sandbox_deleted_event,
    shared_event_channel,
    stopped_as_created,
    stopped_before_started,
)
from fakecri.faults.quirks import Quirk
from fakecri.server.codec.encode import StatusCache
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
        self._held = stopped_before_started.HeldStart()
        self._quiet = no_container_deleted_on_sandbox_remove.QuietSandboxes()
        # Whether a quirk has been in force since the last reset: until one is, events take the
        # plain path and no quirk module is asked (nothing can be held back or quieted then).
        self._quirked = False

    def quiet_container_deletes(self, sandbox_id: str) -> None:
        """No container DELETED goes out for `sandbox_id` until its own DELETED event passes
        (the no-container-deleted-on-sandbox-remove quirk; RemovePodSandbox asks for it)."""
        self._quirked = True
        self._quiet.add(sandbox_id)

    def _plain(self, ev: Event) -> bytes:
        """The event as ContainerEventResponse bytes, no quirk in force."""
        return self.statuses.event_response(ev, ev.type, ev.created_at, frozenset(), True)

    def encode(self, ev: Event, quirks: frozenset[Quirk]) -> bytes | None:
        """The event as ContainerEventResponse bytes; None when a quirk swallows it."""
        if not quirks and not self._quirked:
            return self._plain(ev)
        plan = self.plan
        if self._quiet.swallows(ev):
            return None
        if no_sandbox_deleted_event.swallows(ev, quirks, plan):
            return None
        if no_sandbox_created_event.swallows(ev, quirks, plan):
            return None
        created_at = created_at_seconds.created_at(ev, quirks, plan)
        event_type = stopped_as_created.event_type(ev, quirks, plan)
        nil_status = nil_sandbox_status_on_delete.drops_statuses(ev, quirks, plan)
        return self.statuses.event_response(ev, event_type, created_at, quirks, not nil_status)

    def publish(self, events: Iterable[Event], quirks: frozenset[Quirk]) -> None:
        """Encode and send `events` in order; a STARTED held back by the stopped-before-started
        quirk goes out at the end, unless its STOPPED overtook it."""
        if not quirks and not self._quirked:
            self._shared = False
            for ev in events:
                self._send(self._plain(ev))
            return
        self._quirked = True
        self._shared = shared_event_channel.shared(quirks)
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
        instead = self._held.take(ev, data, quirks)
        if instead is not None:
            for held in instead:
                self._send(held)
            return
        self.flush()
        self._send(data)
        spurious = deleted_on_stop.spurious_delete(ev, quirks, self.plan)
        if spurious is not None:
            extra = self.encode(spurious, quirks)
            if extra is not None:
                self._send(extra)

    def flush(self) -> None:
        """Release a STARTED event held back by the stopped-before-started quirk."""
        for held in self._held.release():
            self._send(held)

    def reset(self) -> None:
        self._held.release()
        self._quiet.clear()
        self._quirked = False
