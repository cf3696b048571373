"""Delivery on one GetContainerEvents stream: bus subscription -> per-subscriber faults -> the wire.

Delayed events (the delay_events fault) wait in a small heap while later events go
ahead of them, as they would on a real network. A cut_stream fault ends the stream
after the delivery that trips it.
"""
from __future__ import annotations

import asyncio
import heapq
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

from fakecri.engine import errors
from fakecri.server.events.bus import EventBus, Subscription, SubscriptionClosed


class _StreamCut(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


async def deliver(bus: EventBus, sub: Subscription, faults: Any, counters: Counter[str],
                  release: Callable[[Subscription], None]) -> AsyncIterator[bytes]:
    """The bytes to write on one stream, until its subscription closes or a fault cuts it.
    `faults` are the stream's event faults (FaultPlan.subscriber); `counters` are the
    server's (events_delivered, streams_cut); `release(sub)` ends the subscription when the
    stream ends, however it ends."""
    loop = asyncio.get_running_loop()
    delivered = 0
    pending: list[tuple[float, int, bytes]] = []  # (due loop time, seq, item)
    seq = 0
    getter: asyncio.Future[bytes] | None = None

    def after_delivery() -> None:
        nonlocal delivered
        delivered += 1
        counters["events_delivered"] += 1
        code = faults.cut(delivered)
        if code is not None:
            counters["streams_cut"] += 1
            raise _StreamCut(code, faults.cut_status[1])

    try:
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
                for held in faults.flush():
                    yield held
                if closed.code == "OK":
                    return
                raise errors.from_code(closed.code, closed.message) from None
            bus.note_progress()
            now = loop.time()
            for delay, out in faults.on_event(item):
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
