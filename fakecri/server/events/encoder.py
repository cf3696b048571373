"""Turn the engine's events into ContainerEventResponse bytes for the subscribers.

Each event carries its pod's records as they were at the transition, so the statuses in
the response are a snapshot of that moment whenever it is encoded. Runtime quirks
(fakecri.faults.quirks) that change what an event looks like are applied here, in one
place, so a conformance suite can be shown real runtime bugs on request.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.records import Event, EventType
from fakecri.faults.plan import FaultPlan
from fakecri.faults.quirks import Quirk
from fakecri.server.codec.wire import field_fragment
from fakecri.server.events.status_cache import StatusCache


class EventEncoder:
    """`publish(data)` sends one encoded event to the subscribers."""

    def __init__(self, plan: FaultPlan, statuses: StatusCache, publish: Callable[[bytes], None]) -> None:
        self.plan = plan
        self.statuses = statuses
        self._publish = publish
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

    def publish(self, ev: Event) -> None:
        quirks = self.plan.quirks()
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
                self._publish(data)
                self._publish(held[1])
                return
        self.flush()
        self._publish(data)
        if ev.type == EventType.STOPPED and not ev.is_sandbox and self._quirk(quirks, Quirk.DELETED_ON_STOP, ev):
            # cri-o#6625: a DELETED right after the STOPPED, for a container that still exists.
            spurious = self.encode(dataclasses.replace(ev, type=EventType.DELETED), quirks)
            if spurious is not None:
                self._publish(spurious)

    def flush(self) -> None:
        """Release a STARTED event held back by the stopped-before-started quirk."""
        if self._held is not None:
            held, self._held = self._held, None
            self._publish(held[1])

    def reset(self) -> None:
        self._held = None
        self._quiet.clear()
