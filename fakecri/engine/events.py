"""What the engine says: lifecycle events and the lines containers write.

Both wait in the engine's outbox until its owner drains them (`Runtime.drain_events`),
in the order they happened. An `Event` carries the records of its pod as they were at
the transition, so whoever encodes it later needs nothing else from the engine.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from fakecri.engine.records import Container, Sandbox


class EventType(enum.IntEnum):
    # Numbered as runtime.v1.ContainerEventType.
    CREATED = 0
    STARTED = 1
    STOPPED = 2
    DELETED = 3


@dataclass(frozen=True, slots=True)
class Event:
    type: EventType
    # For sandbox events this equals sandbox_id, as in CRI.
    container_id: str
    sandbox_id: str
    created_at: int  # nanoseconds; never decreases across the events of one Runtime
    is_sandbox: bool
    # The pod as it was at this event: its sandbox (None only once the sandbox is gone)
    # and the records of the containers it holds, in creation order.
    sandbox: Sandbox | None = None
    containers: tuple[Container, ...] = ()
    # The record the event is about, as it was then (for a container DELETED, its last record).
    subject: Sandbox | Container | None = None


@dataclass(frozen=True, slots=True)
class Output:
    """Text a container's program wrote (a log line, or several) at `ts_ns`."""

    container_id: str
    log_path: str
    stream: str  # "stdout" or "stderr"
    text: str  # bytes that are not UTF-8 travel as surrogate escapes
    ts_ns: int


Said = Event | Output
