"""Lifecycle events the core emits, one per transition."""
from __future__ import annotations

import enum
from dataclasses import dataclass


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
