"""What every property shares: the Property class and its hooks, the view of an
example the checks may use (`ExampleView`), and how one received event is fed to them.

Hooks, all optional:
- `on_event(ex, sub, event, owner)`: an event about one of this example's objects,
  before the subscriber's history records it (so `sub.history` is what came before);
- `on_any_event(ex, sub, event)`: every event, ours or not;
- `at_end(ex)`: after the example's pods were removed and the streams settled.
Properties judged on the answers to calls also offer methods the operations call with
what they saw (see call_answers).

Each property counts its exercises (events checked, answers judged, relists compared):
a property that was never exercised has not passed.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Protocol

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.conformance.expectations import (
    CREATED,
    DELETED,
    STARTED,
    STOPPED,
    ContainerModel,
    PodModel,
    Subscriber,
)

MUST, SHOULD = "MUST", "SHOULD"
RANK: dict[int, int] = {CREATED: 0, STARTED: 1, STOPPED: 2, DELETED: 3}
# A plausible nanosecond wall-clock time is above this (1973 in ns; 3e9 years in s).
MIN_NS = 10**17
# created_at within a year of the suite's clock: a wrong unit (seconds, microseconds) is
# already below MIN_NS; a tighter bound fails on a wall-clock step of the machine between
# the runtime's stamp and the check (seen once here: both runtimes judged at the time failed).
NS_SLACK = 366 * 24 * 3600 * 10**9


class ExampleView(Protocol):
    """The parts of one running example the checks read or report to."""

    pods: list[PodModel]
    subs: list[Subscriber]
    late: list[Subscriber]
    sentinel: PodModel | None
    by_id: dict[str, PodModel | ContainerModel]
    cache_samples: dict[str, list[int | None]]
    relist_events: dict[str, list[Any]]
    profile: str  # the kubelet generation judging the relist path (fakecri.conformance.profiles)

    def violate(self, prop: type[Property] | Property, message: str) -> None: ...

    def exercised(self, prop: type[Property] | Property, n: int = 1) -> None: ...

    def note(self, prop: type[Property] | Property, text: str) -> None: ...

    def owner(self, ident: str) -> PodModel | ContainerModel | None: ...

    def describe(self, ident: str) -> str: ...

    def describe_uid(self, uid: str) -> str: ...

    def judged(self, sub: Subscriber, pod: PodModel) -> bool: ...

    def judged_for_all(self, owner: PodModel | ContainerModel) -> bool: ...

    def now(self) -> int: ...


class Property:
    name: ClassVar[str]
    level: ClassVar[str]
    item: ClassVar[str]  # the number(s) the property has in the property table
    proof: ClassVar[str]  # which injected defect shows the suite catches a violation
    # What the run must have seen for a verdict (RunState.seen_counts: "pods",
    # "containers", "events", "container_events", "exits"): a property that checked only
    # around an empty world (no container created, no event about one) is skipped.
    needs: ClassVar[tuple[str, ...]] = ()
    # What the property rests on: MUST ones on the CRI's own words (api.proto comments),
    # SHOULD ones on what a kubelet does with the runtime's answers (its code).
    basis: ClassVar[str]

    @classmethod
    def summary(cls) -> str:
        return " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())

    def on_event(self, ex: ExampleView, sub: Subscriber, ev: pb.ContainerEventResponse,
                 owner: PodModel | ContainerModel) -> None:
        return None

    def on_any_event(self, ex: ExampleView, sub: Subscriber, ev: pb.ContainerEventResponse) -> None:
        return None

    def judges_any_event(self, sub: Subscriber) -> bool:
        """Whether `on_any_event` judges events of `sub` (and so counts as exercised)."""
        return type(self).on_any_event is not Property.on_any_event

    def at_end(self, ex: ExampleView) -> None:
        return None


def own_status(ev: pb.ContainerEventResponse) -> pb.ContainerStatus | None:
    statuses: Iterable[pb.ContainerStatus] = ev.containers_statuses  # protobuf's containers carry no types
    for st in statuses:
        if st.id == ev.container_id:
            return st
    return None


def feed_event(ex: ExampleView, props: Iterable[Property], sub: Subscriber,
               ev: pb.ContainerEventResponse) -> PodModel | ContainerModel | None:
    """Run every property's event hooks on one received event, then record it in the
    subscriber's history. Returns the example's object the event is about, if any."""
    props = list(props)
    for prop in props:
        if prop.judges_any_event(sub):
            prop.on_any_event(ex, sub, ev)
            ex.exercised(prop)
    owner = ex.owner(ev.container_id)
    if owner is None:
        return None
    for prop in props:
        if type(prop).on_event is not Property.on_event:
            prop.on_event(ex, sub, ev, owner)
            ex.exercised(prop)
    pod = owner if isinstance(owner, PodModel) else owner.pod
    sub.history.setdefault(ev.container_id, []).append(ev.container_event_type)
    if ev.created_at >= MIN_NS:
        sub.last_created_at[pod.uid] = max(sub.last_created_at.get(pod.uid, 0), ev.created_at)
    return owner
