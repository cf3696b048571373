"""The properties, one class each, grouped by subject. Each docstring says what is
checked and which real bug or CRI rule it comes from.

- event_content: what one event carries (order, sandbox status, snapshot, timestamps);
- delivery: how events reach subscribers (complete, same for all, no replay, open);
- kubelet_cache: the kubelet-like PLEG's cache and relist;
- call_answers: the answers to CRI calls (idempotence, cascades, resources, lists).
"""
from __future__ import annotations

from fakecri.conformance.properties.base import (
    MIN_NS,
    MUST,
    NS_SLACK,
    RANK,
    SHOULD,
    ExampleView,
    Property,
    feed_event,
    own_status,
)
from fakecri.conformance.properties.call_answers import (
    IdempotentStopRemove,
    NoDuplicateLiveContainers,
    ResourcesStickAllOrNothing,
    SandboxStopRemoveCascades,
    StreamListsEqualUnary,
    ValidCallsSucceed,
    duplicate_live,
)
from fakecri.conformance.properties.delivery import (
    EventsComplete,
    EventStreamStaysOpen,
    NoStaleReplay,
    SlowSubscriberPolicy,
    StreamEndIsFailure,
    SubscribersSeeSameSequence,
)
from fakecri.conformance.properties.event_content import (
    CreatedAtNanosecondsMonotonic,
    EventOrderPerContainer,
    NoPartialPodView,
    SandboxBracketing,
    SandboxStatusOnEveryEvent,
    SnapshotAgreesWithType,
    StatusTimestampWithStatuses,
)
from fakecri.conformance.properties.kubelet_cache import (
    CacheMonotonic,
    NoLostExits,
    NoMissedEvents,
    RelistConvergence,
    RelistTable,
    cache_regressions,
    relist_sequence_problem,
)

ALL: list[type[Property]] = [
    EventOrderPerContainer,
    SandboxBracketing,
    SandboxStatusOnEveryEvent,
    SnapshotAgreesWithType,
    CreatedAtNanosecondsMonotonic,
    StatusTimestampWithStatuses,
    SubscribersSeeSameSequence,
    SlowSubscriberPolicy,
    EventsComplete,
    StreamEndIsFailure,
    EventStreamStaysOpen,
    NoStaleReplay,
    CacheMonotonic,
    RelistConvergence,
    NoMissedEvents,
    RelistTable,
    NoDuplicateLiveContainers,
    NoLostExits,
    NoPartialPodView,
    IdempotentStopRemove,
    SandboxStopRemoveCascades,
    ResourcesStickAllOrNothing,
    StreamListsEqualUnary,
    ValidCallsSucceed,
]
BY_NAME: dict[str, type[Property]] = {p.name: p for p in ALL}
NAMES = [p.name for p in ALL]
# Properties judged on the events a runtime delivers: without any, they have nothing to judge.
EVENT_PROPERTIES = {p.name for p in (EventOrderPerContainer, SandboxBracketing, SandboxStatusOnEveryEvent,
                                      SnapshotAgreesWithType, CreatedAtNanosecondsMonotonic,
                                      SubscribersSeeSameSequence, SlowSubscriberPolicy, EventsComplete,
                                      EventStreamStaysOpen, NoStaleReplay, NoMissedEvents, NoPartialPodView)}
# Properties that need the kubelet-like PLEG running.
PLEG_PROPERTIES = {RelistConvergence.name, NoLostExits.name, RelistTable.name, NoMissedEvents.name,
                   CacheMonotonic.name, StreamEndIsFailure.name}

__all__ = [
    "ALL", "BY_NAME", "EVENT_PROPERTIES", "MIN_NS", "MUST", "NAMES", "NS_SLACK", "PLEG_PROPERTIES", "RANK", "SHOULD",
    "CacheMonotonic", "CreatedAtNanosecondsMonotonic", "EventOrderPerContainer", "EventStreamStaysOpen",
    "EventsComplete", "ExampleView", "IdempotentStopRemove", "NoDuplicateLiveContainers", "NoLostExits",
    "NoMissedEvents", "NoPartialPodView", "NoStaleReplay", "Property", "RelistConvergence", "RelistTable",
    "ResourcesStickAllOrNothing", "SandboxBracketing", "SandboxStatusOnEveryEvent", "SandboxStopRemoveCascades",
    "SlowSubscriberPolicy", "SnapshotAgreesWithType", "StatusTimestampWithStatuses", "StreamEndIsFailure",
    "StreamListsEqualUnary", "SubscribersSeeSameSequence", "ValidCallsSucceed", "cache_regressions",
    "duplicate_live", "feed_event", "own_status", "relist_sequence_problem",
]
