"""What both Evented PLEG generations share: the event-stream loop they own, how an
incoming event is counted and announced to the ledger, and the context-manager shape.

Each generation decides what an accepted event does (a relist request, or a cache
write); this base only decides whether the event is usable at all.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.background import Background
from fakecri.client.errors import CRIError
from fakecri.client.pleg.counters import EVENT_TYPE_NAMES, PLEGMetrics
from fakecri.client.pleg.generic import GenericPLEG
from fakecri.client.pleg.ledger import EventLedger
from fakecri.client.pleg.lifecycle import EventType
from fakecri.client.pleg.stream import StreamLoop
from fakecri.client.sync_client import CRIClient


class EventedPLEG(Background):
    """Base of CurrentEventedPLEG and LegacyEventedPLEG. Subclasses set `metrics`,
    `ledger` and `_stream`, and define `start()` and `stop()`."""

    metrics: PLEGMetrics
    ledger: EventLedger
    _stream: StreamLoop

    def _relist_with(self, client: CRIClient, now: Callable[[], int], missed_settle: float, *,
                     announces: dict[int, tuple[EventType, ...]] | None = None, **generic_options: Any) -> None:
        """Build the GenericPLEG this PLEG relists with and adopt it: its metrics, cache
        and event channel become this PLEG's, and the ledger (with `announces`: what each
        event type tells this kubelet) hears of every relist."""
        self.client, self.now = client, now
        self.generic = GenericPLEG(client, now=now, **generic_options)
        self.metrics, self.cache, self.events = self.generic.metrics, self.generic.cache, self.generic.events
        self.ledger = EventLedger(self.metrics, announces, settle=missed_settle, now=now)
        self.generic.relist_observer = self.ledger.observe_relist
        self.generic.after_relist = self.ledger.expire

    @property
    def stream_failures(self) -> int:
        return self._stream.failures

    @property
    def stream_errors(self) -> list[CRIError]:
        """The latest stream failures, oldest first."""
        return list(self._stream.errors)

    def accept_event(self, event: pb.ContainerEventResponse) -> bool:
        """Count one received event; False (counted as ignored) when it carries no pod
        sandbox metadata, else announce it to the ledger and return True."""
        with self.metrics.lock:
            self.metrics.events_received += 1
            self.metrics.events_received_by_type[EVENT_TYPE_NAMES.get(event.container_event_type, "?")] += 1
        if not event.HasField("pod_sandbox_status") or not event.pod_sandbox_status.HasField("metadata"):
            with self.metrics.lock:
                self.metrics.events_ignored += 1
            return False
        self.ledger.announce(event)
        return True
