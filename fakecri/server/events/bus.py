"""Fan-out of serialized events to every open GetContainerEvents stream.

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
"""
from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field


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
