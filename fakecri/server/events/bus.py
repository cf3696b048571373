"""Fan-out of serialized events to every open GetContainerEvents stream, and the delivery
on each stream (`deliver`: bus subscription -> the stream's event faults -> the wire).

Everything here runs on the server's event loop, so there are no locks. `publish`
never blocks: it appends to each subscriber's queue. What happens when a subscriber's
queue is full depends on the policy:

- `close` (default): the subscriber's stream ends with RESOURCE_EXHAUSTED, so its client
  relists. Other subscribers and RPCs are untouched.
- `drop`: the event is dropped for that subscriber and counted (CRI-O's way).
- `block`: the event is queued anyway and the RPC that emitted it does not return until
  every subscriber is back under its limit (containerd's way: a slow reader stalls
  the runtime). `wait_for_room()` is that wait.

With the `shared-event-channel` quirk (`publish(item, shared=True)`) there is instead one
buffer of `capacity` events that every stream reads from, as containerd's CRI plugin had
before containerd#9661: each event goes to one open subscriber only (they take turns), an
event that finds the buffer full is dropped, and events published while nobody listens
wait in the buffer for the next subscriber.

On a stream, delayed events (the delay_events fault) wait in a small heap while later
events go ahead of them, as they would on a real network; a cut_stream fault ends the
stream after the delivery that trips it. With no event fault in force and nothing held
back, an event goes out as it came and the stream's faults are not asked.
"""
from __future__ import annotations

import asyncio
import heapq
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from fakecri.engine import errors


class SubscriptionClosed(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(eq=False)
class Subscription:
    index: int
    capacity: int
    policy: str
    queue: deque[bytes] = field(default_factory=deque)
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    closed: SubscriptionClosed | None = None
    dropped: int = 0
    delivered: int = 0

    def offer(self, item: bytes) -> None:
        if self.closed is not None:
            return
        if len(self.queue) >= self.capacity:
            if self.policy == "drop":
                self.dropped += 1
                return
            if self.policy == "close":
                self.close("RESOURCE_EXHAUSTED", f"event subscriber {self.index} fell more than "
                           f"{self.capacity} events behind; relist and subscribe again")
                return
        self.queue.append(item)
        self.wakeup.set()

    def close(self, code: str, message: str) -> None:
        if self.closed is None:
            self.closed = SubscriptionClosed(code, message)
            self.wakeup.set()

    def take(self) -> bytes | None:
        """The next queued event without waiting; None when there is none or the stream is
        closed (get() then waits, or reports the close)."""
        if self.closed is None and self.queue:
            self.delivered += 1
            return self.queue.popleft()
        return None

    async def get(self) -> bytes:
        """The next event, or SubscriptionClosed once the queue is empty and closed."""
        while True:
            if self.closed is not None and (self.closed.code != "OK" or not self.queue):
                # An error close skips what is queued, as a broken stream would.
                raise self.closed
            if self.queue:
                self.delivered += 1
                item = self.queue.popleft()
                return item
            self.wakeup.clear()
            await self.wakeup.wait()

    @property
    def over_capacity(self) -> bool:
        return len(self.queue) >= self.capacity


class EventBus:
    def __init__(self, *, capacity: int, policy: str, history: int = 1000) -> None:
        self.capacity = capacity
        self.policy = policy
        self.subscribers: list[Subscription] = []
        self.history: deque[bytes] = deque(maxlen=history)
        self._next_index = 0
        self._room = asyncio.Event()
        self.emitted = 0
        # The shared-event-channel quirk: events waiting for a first subscriber, whose turn is
        # next, and how many events found the shared buffer full.
        self.backlog: deque[bytes] = deque()
        self._turn = 0
        self.shared_dropped = 0

    def subscribe(self) -> Subscription:
        sub = Subscription(self._next_index, self.capacity, self.policy)
        self._next_index += 1
        self.subscribers.append(sub)
        if self.backlog:  # what the shared buffer held goes to whoever reads first
            sub.queue.extend(self.backlog)
            self.backlog.clear()
            sub.wakeup.set()
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        if sub in self.subscribers:
            self.subscribers.remove(sub)
        self._room.set()

    def publish(self, item: bytes, *, shared: bool = False) -> bool:
        """Queue `item` for every subscriber (or, `shared`, for one); False if it was dropped."""
        self.emitted += 1
        self.history.append(item)
        if shared:
            return self._publish_shared(item)
        for sub in self.subscribers:
            sub.offer(item)
        return True

    def _publish_shared(self, item: bytes) -> bool:
        readers = [s for s in self.subscribers if s.closed is None]
        waiting = len(self.backlog) + sum(len(s.queue) for s in readers)
        if waiting >= self.capacity:
            self.shared_dropped += 1
            return False
        if not readers:
            self.backlog.append(item)
            return True
        sub = readers[self._turn % len(readers)]
        self._turn += 1
        sub.queue.append(item)
        sub.wakeup.set()
        return True

    def close_all(self, code: str, message: str) -> None:
        for sub in list(self.subscribers):
            sub.close(code, message)

    def reset(self) -> None:
        self.close_all("UNAVAILABLE", "the runtime was reset")
        self.history.clear()
        self._next_index = 0
        self.emitted = 0
        self.backlog.clear()
        self._turn = 0
        self.shared_dropped = 0

    def note_progress(self) -> None:
        """Called by streams after they take an item, so blocked publishers can resume."""
        self._room.set()

    async def wait_for_room(self) -> None:
        """Under the block policy, wait until no open subscriber is over its limit."""
        if self.policy != "block":
            return
        while any(s.over_capacity and s.closed is None for s in self.subscribers):
            self._room.clear()
            await self._room.wait()


class Armed(Protocol):
    """The fault plan as a stream reads it on every event: whether an event fault is in force."""

    has_event_faults: bool


class _StreamCut(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


async def deliver(bus: EventBus, sub: Subscription, faults: Any, armed: Armed, counters: Counter[str],
                  release: Callable[[Subscription], None]) -> AsyncIterator[bytes]:
    """The bytes to write on one stream, until its subscription closes or a fault cuts it.
    `faults` are the stream's event faults (FaultPlan.subscriber), asked only while `armed`
    (the plan) has an event fault in force or they hold an event back; `counters` are the
    server's (events_delivered, streams_cut); `release(sub)` ends the subscription when the
    stream ends, however it ends."""
    loop = asyncio.get_running_loop()
    delivered = 0
    taken = 0  # events taken from the bus, numbered for the faults' log
    pending: list[tuple[float, int, bytes]] = []  # (due loop time, seq, item)
    seq = 0
    getter: asyncio.Future[bytes] | None = None

    def after_delivery() -> None:
        nonlocal delivered
        delivered += 1
        counters["events_delivered"] += 1
        if not armed.has_event_faults:
            return
        code = faults.cut(delivered)
        if code is not None:
            counters["streams_cut"] += 1
            raise _StreamCut(code, faults.cut_status[1])

    try:
        if armed.has_event_faults:
            if faults.cut(0) is not None:
                raise _StreamCut(*faults.cut_status)
            for item in faults.replay(list(bus.history)):
                yield item
        while True:
            now = loop.time()
            while pending and pending[0][0] <= now:
                yield heapq.heappop(pending)[2]
                after_delivery()
            closed: SubscriptionClosed | None = None
            if getter is None and not pending:
                # Nothing delayed to wake up for: take the next event straight from the queue
                # (no task and no asyncio.wait per delivery; that was most of the fan-out cost).
                try:
                    item = sub.take()
                    if item is None:
                        item = await sub.get()
                except SubscriptionClosed as exc:
                    closed = exc
            else:
                if getter is None:
                    getter = asyncio.ensure_future(sub.get())
                timeout = max(0.0, pending[0][0] - now) if pending else None
                done, _ = await asyncio.wait({getter}, timeout=timeout)
                if not done:
                    continue
                task, getter = getter, None
                try:
                    item = task.result()
                except SubscriptionClosed as exc:
                    closed = exc
            if closed is not None:
                for _, _, late in sorted(pending):
                    yield late
                if faults.held:
                    for held in faults.flush():
                        yield held
                if closed.code == "OK":
                    return
                raise errors.from_code(closed.code, closed.message) from None
            bus.note_progress()
            taken += 1
            if not (armed.has_event_faults or faults.held):  # nothing to do to it: as it came
                yield item
                after_delivery()
                continue
            now = loop.time()
            for delay, out in faults.on_event(item, taken):
                if delay > 0:
                    seq += 1
                    heapq.heappush(pending, (now + delay, seq, out))
                    continue
                yield out
                after_delivery()
    except _StreamCut as cut:
        if cut.code != "OK":
            raise errors.from_code(cut.code, cut.message) from None
    finally:
        if getter is not None:
            getter.cancel()
        release(sub)
