"""The List* and Stream* answers of sandboxes and containers, shared by their servicers: the
matching records' list items joined (each record's item made once, `FragmentCache`), and
the unfiltered answers, the relist, kept while nothing changed (`VersionedCache`)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fakecri.engine.records import ContainerState, SandboxState
from fakecri.engine.runtime import Runtime
from fakecri.server.codec import encode
from fakecri.server.codec.encode import FragmentCache, VersionedCache, batches

STREAM_BATCH = 5000  # items per Stream* message, as containerd batches them
_SANDBOX_STATES = frozenset(s.value for s in SandboxState)
_CONTAINER_STATES = frozenset(s.value for s in ContainerState)


def selector(msg: Any) -> dict[str, str] | None:
    """A filter's label selector, None when it has none."""
    return dict(msg.label_selector) if msg.label_selector else None


@dataclass(frozen=True)
class Listing:
    """How the List* and Stream* RPCs of one kind of record read the runtime."""

    key: str  # the cache key of the unfiltered answers
    every: Callable[[Runtime], list[Any]]  # all the records, in list order
    matching: Callable[[Runtime, Any], list[Any]]  # the records a filter matches
    fragments: FragmentCache  # each record's list item


def _matching_sandboxes(runtime: Runtime, f: Any) -> list[Any]:
    if f.HasField("state") and f.state.state not in _SANDBOX_STATES:
        return []  # a state no sandbox can be in matches nothing
    state = SandboxState(f.state.state) if f.HasField("state") else None
    return runtime.list_sandboxes(id=f.id, state=state, label_selector=selector(f))


def _matching_containers(runtime: Runtime, f: Any) -> list[Any]:
    if f.HasField("state") and f.state.state not in _CONTAINER_STATES:
        return []  # a state no container can be in matches nothing
    state = ContainerState(f.state.state) if f.HasField("state") else None
    return runtime.list_containers(id=f.id, state=state, sandbox_id=f.pod_sandbox_id, label_selector=selector(f))


class Listings:
    """The sandboxes' and the containers' lists, over one runtime."""

    def __init__(self, runtime: Runtime, max_message_bytes: int) -> None:
        self.runtime = runtime
        self._answers = VersionedCache(max_message_bytes)  # unfiltered answers, reused while nothing changed
        self._max_bytes = max_message_bytes  # Stream* batches stay under the message limit
        self.sandboxes = Listing("sandboxes", lambda rt: rt.list_sandboxes(), _matching_sandboxes,
                                 FragmentCache(encode.sandbox_item))
        self.containers = Listing("containers", lambda rt: rt.list_containers(), _matching_containers,
                                  FragmentCache(encode.container_item))

    def reply(self, request: Any, listing: Listing) -> bytes:
        """A List* reply: the matching records' fragments joined; unfiltered, kept while nothing changes."""
        runtime = self.runtime
        if request.filter.ByteSize():
            return b"".join(map(listing.fragments.of, listing.matching(runtime, request.filter)))
        changes = runtime.changes
        data: bytes | None = self._answers.get(listing.key, changes)
        if data is None:
            data = b"".join(listing.fragments.every(listing.every(runtime)))
            self._answers.put(listing.key, changes, data)
        return data

    def chunks(self, request: Any, listing: Listing) -> Iterable[bytes]:
        """The Stream* replies of the same list, in batches (kept too when unfiltered)."""
        runtime = self.runtime
        if request.filter.ByteSize():
            frags = list(map(listing.fragments.of, listing.matching(runtime, request.filter)))
            return batches(frags, STREAM_BATCH, self._max_bytes)
        changes = runtime.changes
        key = listing.key + "-batches"
        chunks: list[bytes] | None = self._answers.get(key, changes)
        if chunks is None:
            chunks = list(batches(listing.fragments.every(listing.every(runtime)), STREAM_BATCH, self._max_bytes))
            self._answers.put(key, changes, chunks)
        return chunks
