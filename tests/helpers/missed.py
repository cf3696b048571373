"""What an evented PLEG must count as missed, worked out from the events it received and
the server's own record of what it dropped."""
from __future__ import annotations

import re
from collections import Counter

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg import EventType
from fakecri.client.pleg.ledger import ANNOUNCES
from fakecri.control_client import ControlClient

KINDS = (pb.CONTAINER_CREATED_EVENT, pb.CONTAINER_STARTED_EVENT, pb.CONTAINER_STOPPED_EVENT,
         pb.CONTAINER_DELETED_EVENT)


def recording(kind):
    """A subclass of PLEG class `kind` whose instances note (container id, event type) of
    every event they receive in `.got`."""

    class Recording(kind):
        def __init__(self, *args, **kwargs):
            self.got: list[tuple[str, int]] = []
            super().__init__(*args, **kwargs)

        def handle_event(self, event):
            self.got.append((event.container_id, event.container_event_type))
            super().handle_event(event)

    return Recording


def drop_positions(endpoint: str, subscriber: int = 0) -> list[int]:
    """The positions in subscriber `subscriber`'s stream the server's fault log says it
    dropped; fails if the log names another subscriber."""
    with ControlClient(endpoint) as ctl:
        hits = [r["hit"] for r in ctl.fault_log() if r["type"] == "drop_events"]
    positions = []
    for hit in hits:
        m = re.fullmatch(r"subscriber (\d+), event (\d+)", hit)
        assert m and int(m.group(1)) == subscriber, hit
        positions.append(int(m.group(2)))
    return positions


def must_count(ids, dropped, announces=ANNOUNCES) -> Counter:
    """For objects each seen running by a relist and later gone, with `announces` saying which
    event types announce which transitions (the PLEG's `ledger.announces`): each transition
    of STARTED, DIED and REMOVED counts when every event type that announces it was dropped
    (for the legacy PLEG, STOPPED or DELETED announce a death; for the current one only
    STOPPED does, and nothing announces a start or a removal, so they never count)."""
    want: Counter = Counter()
    for kind in (EventType.STARTED, EventType.DIED, EventType.REMOVED):
        by = [event for event, kinds in announces.items() if kind in kinds]
        if not by:
            continue
        for i in ids:
            if all((i, event) in dropped for event in by):
                want[(i, kind)] += 1
    return want
