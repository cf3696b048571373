"""Per-subscriber event faults: drop, duplicate, reorder, delay, cut and stale replay.

One EventFaults serves one GetContainerEvents stream. It reads the plan's live list
of event faults on every event it is handed, so faults added or removed mid-stream take
effect at once, and it draws from random streams of its own, keyed by (seed, subscriber,
fault). The stream numbers the events it takes itself and hands the number in, and it asks
only while some event fault is in force or something is held (`held`): an event that
finds neither goes out as it came, and no fault of it would have drawn or fired.
Items are opaque: the server passes whatever it queues (serialized bytes).
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from fakecri.faults.ftype import Entry, EventDecision


class EventFaultSource(Protocol):
    """What EventFaults needs from the plan that owns it (FaultPlan provides it)."""

    def event_entries(self) -> Sequence[Entry]: ...

    def fire(self, entry: Entry, hit: str) -> None: ...

    def subscriber_rng(self, index: int, fault_name: str) -> random.Random: ...


@dataclass
class _Held:
    """An event held back (reorder_events) until `wait` more events have arrived."""

    item: object
    delay: float
    wait: int


class EventFaults:
    """The event faults of one subscriber stream."""

    def __init__(self, plan: EventFaultSource, index: int) -> None:
        self.index = index
        self._plan = plan
        self._rngs: dict[int, random.Random] = {}
        self.held: list[_Held] = []  # reordered events waiting for their turn
        self._cut_chosen: dict[int, bool] = {}
        self._replayed = False
        # (code, message) once the stream has been cut.
        self.cut_status: tuple[str, str] | None = None

    def on_event(self, item: object, number: int) -> list[tuple[float, object]]:
        """What to deliver now for the `number`th event (from 1) the stream took from the bus:
        (delay in seconds, item) pairs, in order."""
        entries = [e for e in self._plan.event_entries() if e.ftype.on_event is not None]
        if not entries and not self.held:
            return [(0.0, item)]
        hit = f"subscriber {self.index}, event {number}"
        # Every fault draws for every event, so one fault's decisions never shift another's.
        fired = [(e, rng) for e in entries if e.applies(rng := self._rng(e))]
        released = self._tick(any(e.ftype.holds for e in entries))
        veto = next((e for e, _ in fired if e.ftype.vetoes), None)
        if veto is not None:  # a dropped event is not also duplicated, delayed or held
            self._plan.fire(veto, hit)
            return released
        d = EventDecision()
        for e, rng in fired:
            assert e.ftype.on_event is not None
            if e.ftype.on_event(e, rng, d):
                self._plan.fire(e, hit)
        if d.hold is not None:
            self.held.extend(_Held(item, d.delay_s, d.hold) for _ in range(d.copies))
            return released
        return [(d.delay_s, item)] * d.copies + released

    def flush(self) -> list[object]:
        """Items still held back when the stream ends, oldest first."""
        items = [h.item for h in self.held]
        self.held.clear()
        return items

    def cut(self, delivered: int) -> str | None:
        """The status code to end the stream with now, after `delivered` events; else None.

        Call it once when the stream opens (delivered=0) and after each delivery. Whether a
        fault that cuts streams (cut_stream) applies to this stream is drawn once per stream.
        """
        if self.cut_status is not None:
            return self.cut_status[0]
        for e in self._plan.event_entries():
            if e.ftype.cut is None:
                continue
            chosen = self._cut_chosen.get(e.serial)
            if chosen is None:
                chosen = self._cut_chosen[e.serial] = e.applies(self._rng(e))
            status = e.ftype.cut(e, delivered) if chosen else None
            if status is not None:
                self.cut_status = status
                self._plan.fire(e, f"subscriber {self.index}, after {delivered} events")
                return str(status[0])
        return None

    def replay(self, history: Sequence[object]) -> list[object]:
        """Old events to send to this new subscriber before live ones (stale_replay), else []."""
        if self._replayed:
            return []
        self._replayed = True
        for e in self._plan.event_entries():
            if e.ftype.replay is None or not e.applies(self._rng(e)):
                continue
            items = e.ftype.replay(e, history)
            self._plan.fire(e, f"subscriber {self.index}, {len(items)} old events")
            return items
        return []

    def _rng(self, entry: Entry) -> random.Random:
        rng = self._rngs.get(entry.serial)
        if rng is None:
            rng = self._rngs[entry.serial] = self._plan.subscriber_rng(self.index, entry.fault.name)
        return rng

    def _tick(self, holding: bool) -> list[tuple[float, object]]:
        """Count one more event for the held items; hand back those whose wait is over."""
        if not self.held:
            return []
        if not holding:
            out = [(h.delay, h.item) for h in self.held]
            self.held.clear()
            return out
        for h in self.held:
            h.wait -= 1
        out = [(h.delay, h.item) for h in self.held if h.wait <= 0]
        self.held = [h for h in self.held if h.wait > 0]
        return out
