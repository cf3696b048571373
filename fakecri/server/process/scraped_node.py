"""What a /metrics scrape reads of the node: the one interface `prometheus.py` sees (the Node
implements it). A scrape reads the counters, the engine's sandboxes, containers and images
(`runtime`), and the figures of each open GetContainerEvents stream; the bus those streams
are on, like the node's other parts, is not in it: tests/server/test_closed_node.py holds
the collector to these members.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from typing import Protocol

from fakecri.engine.runtime import Runtime


class Subscriber(Protocol):
    """One event stream's figures, as a scrape reads them."""

    @property
    def index(self) -> int: ...

    @property
    def delivered(self) -> int: ...

    @property
    def dropped(self) -> int: ...

    @property
    def closed(self) -> object:
        """None while the stream is open."""

    @property
    def queue(self) -> Sized:
        """The events waiting to be taken."""


class ScrapedNode(Protocol):
    @property
    def runtime(self) -> Runtime: ...

    @property
    def counters(self) -> Mapping[str, int]: ...

    def event_subscribers(self) -> Sequence[Subscriber]:
        """The event streams subscribed now, as they are at this moment."""
