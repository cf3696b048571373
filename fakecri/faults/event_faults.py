"""Per-subscriber event faults: drop, duplicate, reorder, delay, cut and stale replay.

One EventFaults serves one GetContainerEvents stream. It reads the plan's live list
of event faults on every event, so faults added or removed mid-stream take effect at
once, and it draws from random streams of its own, keyed by (seed, subscriber, fault).
Items are opaque: the server passes whatever it queues (serialized bytes).
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from fakecri.faults.entry import Entry, jittered


class EventFaultSource(Protocol):
    """What EventFaults needs from the plan that owns it (FaultPlan provides it)."""

    def event_entries(self) -> Sequence[Entry]: ...

    def fire(self, entry: Entry, hit: str) -> None: ...

    def subscriber_rng(self, index: int, fault_name: str) -> random.Random: ...


# The faults on_event applies; cut_stream and stale_replay have calls of their own.
_PER_EVENT = ("drop_events", "duplicate_events", "reorder_events", "delay_events")


@dataclass
class _Held:
    """An event held back by reorder_events until `wait` more events have arrived."""

    item: object
    delay: float
    wait: int


class EventFaults:
    """The event faults of one subscriber stream."""

    def __init__(self, plan: EventFaultSource, index: int) -> None:
        self.index = index
        self._plan = plan
        self._rngs: dict[int, random.Random] = {}
        self._seen = 0
        self._held: list[_Held] = []
        self._cut_chosen: dict[int, bool] = {}
        self._replayed = False
        # (code, message) once the stream has been cut.
        self.cut_status: tuple[str, str] | None = None

    def on_event(self, item: object) -> list[tuple[float, object]]:
        """What to deliver now for one event from the bus: (delay in seconds, item) pairs, in order."""
        self._seen += 1
        entries = [e for e in self._plan.event_entries() if e.fault.type in _PER_EVENT]
        if not entries and not self._held:
            return [(0.0, item)]
        hit = f"subscriber {self.index}, event {self._seen}"
        # Every fault draws for every event, so one fault's decisions never shift another's.
        fired = [(e, rng) for e in entries if e.applies(rng := self._rng(e))]
        released = self._tick(any(e.fault.type == "reorder_events" for e in entries))
        drop = next((e for e, _ in fired if e.fault.type == "drop_events"), None)
        if drop is not None:
            self._plan.fire(drop, hit)
            return released
        copies, delay = 1, 0.0
        reorder: tuple[Entry, random.Random] | None = None
        for e, rng in fired:
            ftype = e.fault.type
            if ftype == "duplicate_events":
                copies += e.params["copies"]
            elif ftype == "delay_events":
                delay += jittered(rng, e.params["delay"], e.params["jitter"])
            elif ftype == "reorder_events":
                if reorder is not None:
                    continue
                reorder = (e, rng)
            self._plan.fire(e, hit)
        out = [(delay, item)] * copies
        if reorder is not None:
            e, rng = reorder
            wait = rng.randint(1, e.params["window"])
            self._held.extend(_Held(item, delay, wait) for _ in range(copies))
            return released
        return out + released

    def flush(self) -> list[object]:
        """Items still held back when the stream ends, oldest first."""
        items = [h.item for h in self._held]
        self._held.clear()
        return items

    def cut(self, delivered: int) -> str | None:
        """The status code to end the stream with now, after `delivered` events; else None.

        Call it once when the stream opens (delivered=0) and after each delivery. Whether a
        cut_stream fault applies to this stream is drawn once per stream.
        """
        if self.cut_status is not None:
            return self.cut_status[0]
        for e in self._plan.event_entries():
            if e.fault.type != "cut_stream":
                continue
            chosen = self._cut_chosen.get(e.serial)
            if chosen is None:
                chosen = self._cut_chosen[e.serial] = e.applies(self._rng(e))
            if chosen and delivered >= e.params["after"]:
                code = e.params["code"]
                message = e.params["message"] or (
                    f"fakecri fault {e.fault.name} ended the event stream after {delivered} events")
                self.cut_status = (code, message)
                self._plan.fire(e, f"subscriber {self.index}, after {delivered} events")
                return str(code)
        return None

    def replay(self, history: Sequence[object]) -> list[object]:
        """Old events to send to this new subscriber before live ones (stale_replay), else []."""
        if self._replayed:
            return []
        self._replayed = True
        for e in self._plan.event_entries():
            if e.fault.type != "stale_replay" or not e.applies(self._rng(e)):
                continue
            n = e.params["events"]
            items = list(history)[-n:] if n else list(history)
            self._plan.fire(e, f"subscriber {self.index}, {len(items)} old events")
            return items
        return []

    def _rng(self, entry: Entry) -> random.Random:
        rng = self._rngs.get(entry.serial)
        if rng is None:
            rng = self._rngs[entry.serial] = self._plan.subscriber_rng(self.index, entry.fault.name)
        return rng

    def _tick(self, reorder_active: bool) -> list[tuple[float, object]]:
        """Count one more event for the held items; hand back those whose wait is over."""
        if not self._held:
            return []
        if not reorder_active:
            out = [(h.delay, h.item) for h in self._held]
            self._held.clear()
            return out
        for h in self._held:
            h.wait -= 1
        out = [(h.delay, h.item) for h in self._held if h.wait <= 0]
        self._held = [h for h in self._held if h.wait > 0]
        return out
