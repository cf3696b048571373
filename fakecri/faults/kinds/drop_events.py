"""`drop_events`: drop events on a subscriber's stream (`--drop-events 5%`)."""
from __future__ import annotations

import random

from fakecri.faults import grammar
from fakecri.faults.ftype import EVENT, Entry, EventDecision, FaultFlag, FaultType
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.values import parse_percent

_FLAG = "--drop-events"


def parse_drop_events(text: str) -> Fault:
    """'5%' or '0.05' -> a drop_events fault with that per-event toxicity."""
    p = parse_percent(text)
    if p == 0:
        raise FaultSpecError(f"{_FLAG} {text!r} drops nothing; leave the flag out instead")
    return grammar.checked(DROP_EVENTS, Fault(type=DROP_EVENTS.name, toxicity=p), text)


def _on_event(e: Entry, rng: random.Random, d: EventDecision) -> bool:
    return True  # `vetoes`: the event is not sent, and no other event fault acts on it


DROP_EVENTS = FaultType(
    "drop_events", EVENT, "Drop events on a subscriber's stream.",
    flag=FaultFlag(_FLAG, "Drop this share of events on every event stream, decided per event: 5% or 0.05.",
                   "--drop-events 5%                         drop 5% of events, per subscriber",
                   lambda value: [parse_drop_events(value)]),
    on_event=_on_event, vetoes=True,
)
