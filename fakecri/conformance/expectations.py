"""What the suite expects: the model of what it did, the events that are owed for it,
and what each event subscriber saw.

The model only records facts that follow from the suite's own calls and their
answers (created, started, stopped by us, removed), never timing-dependent
observations, so Hypothesis sees the same rule choices when it replays an example.
Observed exits are kept apart, for the checks.
"""
from __future__ import annotations

import shlex
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fakecri.api.runtime.v1 import api_pb2 as pb

if TYPE_CHECKING:
    from fakecri.client import EventWatcher

# Every sandbox and container of a run carries this label (value: the run id).
RUN_LABEL = "fakecri.io/conformance-run"
NAMESPACE = "fakecri-conformance"

CREATED, STARTED, STOPPED, DELETED = (
    pb.CONTAINER_CREATED_EVENT,
    pb.CONTAINER_STARTED_EVENT,
    pb.CONTAINER_STOPPED_EVENT,
    pb.CONTAINER_DELETED_EVENT,
)
TYPE_NAMES = {CREATED: "CREATED", STARTED: "STARTED", STOPPED: "STOPPED", DELETED: "DELETED"}

# What a container runs, by kind. "instant" exits at once with code 3, "short" after a
# second with 0, "long" runs until stopped.
COMMANDS: dict[str, list[str]] = {
    "long": ["sleep", "3600"],
    "instant": ["sh", "-c", "exit 3"],
    "short": ["sleep", "1"],
}
EXPECTED_EXIT: dict[str, int | None] = {"long": None, "instant": 3, "short": 0}


def shell_words(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


def type_name(t: int) -> str:
    return str(TYPE_NAMES.get(t, f"type {t}"))  # type: ignore[call-overload]  # protobuf enum keys


@dataclass(eq=False)
class PodModel:
    label: str  # "pod-1": how the pod is written in call sequences
    name: str
    uid: str
    config: pb.PodSandboxConfig
    sid: str = ""
    created: bool = False
    stopped: bool = False  # StopPodSandbox (or RemovePodSandbox) answered OK
    removed: bool = False
    containers: list[ContainerModel] = field(default_factory=list)

    def __repr__(self) -> str:
        return self.label

    @property
    def ready(self) -> bool:
        return self.created and not self.stopped and not self.removed


@dataclass(eq=False)
class ContainerModel:
    pod: PodModel
    name: str
    attempt: int
    kind: str
    cid: str = ""
    created: bool = False
    started: bool = False
    stop_called: bool = False
    removed: bool = False
    # RemovePodSandbox removed it (it was not removed before); `killed_by_removal`: it
    # was running then (started, never stopped by the suite, no exit seen).
    removed_with_sandbox: bool = False
    killed_by_removal: bool = False
    # Observations (timing-dependent; never used to choose rules).
    exit_code: int | None = None
    seen_exited: bool = False

    def __repr__(self) -> str:
        return f"{self.pod.label}/{self.name}#{self.attempt}"

    @property
    def live(self) -> bool:
        """Created and not removed: the name is taken in its sandbox."""
        return self.created and not self.removed

    @property
    def command(self) -> list[str]:
        return COMMANDS[self.kind]

    @property
    def command_text(self) -> str:
        """The command as a shell would read it (for call sequences and messages)."""
        return shell_words(self.command)

    def must_have_stopped(self) -> bool:
        """A STOPPED event is owed: it ran and then certainly ended."""
        return self.started and (self.removed or self.seen_exited or self.pod.stopped)


@dataclass
class Received:
    """One event as a subscriber got it, with the local time it arrived."""

    event: pb.ContainerEventResponse
    at_ns: int


class Subscriber:
    """One GetContainerEvents stream (own connection), recording every message.

    `baseline` is the set of (type, id) pairs any subscriber of this run had received
    before this one was opened: receiving one of those again is a stale replay.
    """

    def __init__(self, name: str, baseline: frozenset[tuple[int, str]]) -> None:
        self.name = name
        self.baseline = baseline
        self.received: list[Received] = []
        self.lock = threading.Lock()
        self.ended: Exception | None = None
        self.ended_at: int | None = None
        self.last_at = time.monotonic()  # when the last event arrived
        self.watcher: EventWatcher | None = None
        self.synced = False
        self.processed = 0  # how many received events the checks have looked at
        # Check state, per container or sandbox id: the event types seen, in order.
        self.history: dict[str, list[int]] = {}
        self.last_created_at: dict[str, int] = {}  # per pod uid

    def on_event(self, event: pb.ContainerEventResponse) -> None:
        with self.lock:
            self.received.append(Received(event, time.time_ns()))
            self.last_at = time.monotonic()

    def on_error(self, exc: Exception) -> None:
        self.ended = exc
        self.ended_at = time.time_ns()

    def snapshot(self) -> list[Received]:
        with self.lock:
            return list(self.received)

    def pairs(self) -> set[tuple[int, str]]:
        return {(r.event.container_event_type, r.event.container_id) for r in self.snapshot()}

    def types_for(self, ident: str) -> list[int]:
        return [r.event.container_event_type for r in self.snapshot() if r.event.container_id == ident]

    def __repr__(self) -> str:
        return f"subscriber {self.name}"


def owed_events(pods: Iterable[PodModel],
                judged: Callable[[PodModel], bool]) -> list[tuple[PodModel | ContainerModel, int]]:
    """The (object, event type) pairs a subscriber is owed for `pods`, where `judged(pod)`
    says whether that subscriber is held to the pod's events. The events of containers
    RemovePodSandbox removed are not owed (see `unneeded_events`)."""
    return [(o, t) for o, t, needed in _events(pods, judged) if needed]


def unneeded_events(pods: Iterable[PodModel],
                    judged: Callable[[PodModel], bool]) -> list[tuple[ContainerModel, int]]:
    """The events a RemovePodSandbox cascade causes that no kubelet waits for: the
    DELETED of each container it removed, and the STOPPED of each it killed. The kubelet
    removes a sandbox only once its containers are stopped and removed (kuberuntime_gc.go
    evictSandboxes skips a sandbox that still has containers; killPodWithSyncResult stops
    the containers before StopPodSandbox), so it never relies on them."""
    return [(o, t) for o, t, needed in _events(pods, judged) if not needed and isinstance(o, ContainerModel)]


def _events(pods: Iterable[PodModel],
            judged: Callable[[PodModel], bool]) -> list[tuple[PodModel | ContainerModel, int, bool]]:
    out: list[tuple[PodModel | ContainerModel, int, bool]] = []
    for pod in pods:
        if not judged(pod):
            continue
        out += [(pod, CREATED, True), (pod, STARTED, True)]
        if pod.stopped:
            out.append((pod, STOPPED, True))
        if pod.removed:
            out.append((pod, DELETED, True))
        for c in pod.containers:
            out.append((c, CREATED, True))
            if c.started and EXPECTED_EXIT[c.kind] is None:
                out.append((c, STARTED, True))  # an instant exit may legitimately skip STARTED
            if c.must_have_stopped():
                out.append((c, STOPPED, not c.killed_by_removal))
            if c.removed:
                out.append((c, DELETED, not c.removed_with_sandbox))
    return out


def ident(owner: PodModel | ContainerModel) -> str:
    """The id events carry for a pod (its sandbox id) or a container."""
    return owner.cid if isinstance(owner, ContainerModel) else owner.sid
