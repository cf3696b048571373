"""Sessions that live inside a container or a pod: they end when it stops.

An exec'd process, an attach, a port-forward and an ExecSync in flight all run inside
something the runtime can stop: a real runtime kills a container's processes with it
(the exec's process dies with exit status 137, its streams close) and a stopped pod's
network, and every connection into it, goes with the pod. Each such session holds a
`Watch` on the id it lives in; the node's commit point, which sees every STOPPED and
DELETED event, ends the watches of that id (`Sessions.on_event`). Nothing polls.
"""
from __future__ import annotations

import asyncio
from typing import Any

from fakecri.engine.records import Event, EventType

_ENDS = (EventType.STOPPED, EventType.DELETED)


class Watch:
    """One session's watch on the container or pod (`key`, its id) it runs in."""

    __slots__ = ("key", "ended", "at_ns", "reason", "_owner")

    def __init__(self, owner: Sessions | None, key: str) -> None:
        self.key = key
        self.ended = asyncio.Event()
        self.at_ns: int | None = None  # when it stopped, on the runtime's clock
        self.reason = ""
        self._owner = owner

    def end(self, at_ns: int, reason: str) -> None:
        """It stopped (the owner has let go of this watch already)."""
        self._owner = None
        if not self.ended.is_set():
            self.at_ns, self.reason = at_ns, reason
            self.ended.set()

    def close(self) -> None:
        """The session is over: stop watching."""
        if self._owner is not None:
            self._owner.drop(self)
            self._owner = None

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def ended(key: str, at_ns: int, reason: str) -> Watch:
    """A watch on something that has stopped already (a session that comes too late)."""
    watch = Watch(None, key)
    watch.end(at_ns, reason)
    return watch


class Sessions:
    """The watches of one node, by the id they watch."""

    def __init__(self) -> None:
        # The watches by the id they watch: the commit looks here before it tells on_event of an end.
        self.watched: dict[str, set[Watch]] = {}

    def watch(self, key: str) -> Watch:
        watch = Watch(self, key)
        self.watched.setdefault(key, set()).add(watch)
        return watch

    def drop(self, watch: Watch) -> None:
        watches = self.watched.get(watch.key)
        if watches is not None:
            watches.discard(watch)
            if not watches:
                del self.watched[watch.key]

    def on_event(self, ev: Event) -> None:
        """A container or pod stopped or went: the sessions inside it end."""
        if ev.type in _ENDS and ev.container_id in self.watched:
            what = "pod sandbox" if ev.is_sandbox else "container"
            verb = "stopped" if ev.type == EventType.STOPPED else "was removed"
            self.end(ev.container_id, ev.created_at, f"{what} {ev.container_id[:12]} {verb}")

    def end(self, key: str, at_ns: int, reason: str) -> None:
        for watch in self.watched.pop(key, ()):
            watch.end(at_ns, reason)

    def end_all(self, at_ns: int, reason: str) -> None:
        """Every session ends (a reset, a restart that lost the state)."""
        for key in list(self.watched):
            self.end(key, at_ns, reason)

    def watching(self, key: str) -> int:
        """How many sessions watch `key` now."""
        return len(self.watched.get(key, ()))

    def __len__(self) -> int:
        return sum(map(len, self.watched.values()))
