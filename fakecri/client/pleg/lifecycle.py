"""Pod records, the relist event table, and the bounded PLEG event channel.

Pure data and functions: nothing here talks to a runtime. `build_pods` groups a
ListPodSandbox + ListContainers answer into pods (sandboxes count as containers),
`compute_events` is the kubelet's old-vs-new table.
"""
from __future__ import annotations

import enum
import queue
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from fakecri.api.runtime.v1 import api_pb2 as pb

POD_UID_LABEL = "io.kubernetes.pod.uid"


class State(str, enum.Enum):
    """The PLEG's view of a container's state."""

    RUNNING = "running"
    EXITED = "exited"
    UNKNOWN = "unknown"  # includes CREATED: the kubelet does not act on it
    NON_EXISTENT = "non-existent"


class EventType(str, enum.Enum):
    STARTED = "ContainerStarted"
    DIED = "ContainerDied"
    REMOVED = "ContainerRemoved"
    CHANGED = "ContainerChanged"  # computed to trigger an inspection, never sent


@dataclass(frozen=True, slots=True)
class PodLifecycleEvent:
    pod_uid: str
    type: EventType
    container_id: str  # for sandbox transitions, the sandbox id
    source: str = "relist"  # "relist" or "event"


@dataclass(frozen=True, slots=True)
class ContainerRecord:
    id: str
    name: str
    state: State
    is_sandbox: bool = False
    sandbox_id: str = ""
    attempt: int = 0


@dataclass(slots=True)
class PodRecord:
    uid: str
    name: str = ""
    namespace: str = ""
    containers: dict[str, ContainerRecord] = field(default_factory=dict)

    def sandbox_ids(self) -> list[str]:
        return [c.id for c in self.containers.values() if c.is_sandbox]

    def container_ids(self) -> list[str]:
        return [c.id for c in self.containers.values() if not c.is_sandbox]


def container_state(state: int) -> State:
    if state == pb.CONTAINER_RUNNING:
        return State.RUNNING
    if state == pb.CONTAINER_EXITED:
        return State.EXITED
    return State.UNKNOWN


def sandbox_state(state: int) -> State:
    return State.RUNNING if state == pb.SANDBOX_READY else State.EXITED


def build_pods(sandboxes: Iterable[pb.PodSandbox], containers: Iterable[pb.Container]) -> dict[str, PodRecord]:
    """Group sandboxes and containers by pod UID.

    A container belongs to the pod of its sandbox; if the sandbox is not listed, to the
    pod named by its `io.kubernetes.pod.uid` label; failing both, to a pseudo pod keyed
    by its sandbox id.
    """
    pods: dict[str, PodRecord] = {}
    uid_of_sandbox: dict[str, str] = {}
    for sb in sandboxes:
        uid = sb.metadata.uid or sb.labels.get(POD_UID_LABEL, "") or f"sandbox:{sb.id}"
        uid_of_sandbox[sb.id] = uid
        pod = pods.get(uid)
        if pod is None:
            pod = pods[uid] = PodRecord(uid, sb.metadata.name, sb.metadata.namespace)
        pod.containers[sb.id] = ContainerRecord(
            sb.id, sb.metadata.name, sandbox_state(sb.state), True, sb.id, sb.metadata.attempt
        )
    for c in containers:
        uid = uid_of_sandbox.get(c.pod_sandbox_id) or c.labels.get(POD_UID_LABEL, "") or f"sandbox:{c.pod_sandbox_id}"
        pod = pods.get(uid)
        if pod is None:
            pod = pods[uid] = PodRecord(uid)
        pod.containers[c.id] = ContainerRecord(
            c.id, c.metadata.name, container_state(c.state), False, c.pod_sandbox_id, c.metadata.attempt
        )
    return pods


def generate_events(pod_uid: str, container_id: str, old: State, new: State) -> list[PodLifecycleEvent]:
    """The kubelet's table for one container whose state went from `old` to `new`."""
    if old == new:
        return []
    if new is State.RUNNING:
        kinds = [EventType.STARTED]
    elif new is State.EXITED:
        kinds = [EventType.DIED]
    elif new is State.UNKNOWN:
        kinds = [EventType.CHANGED]
    elif old is State.EXITED:
        kinds = [EventType.REMOVED]
    else:
        kinds = [EventType.DIED, EventType.REMOVED]
    return [PodLifecycleEvent(pod_uid, kind, container_id) for kind in kinds]


def compute_pod_events(uid: str, old: PodRecord | None, new: PodRecord | None) -> list[PodLifecycleEvent]:
    """Events for every container (and sandbox) seen in either record of one pod."""
    old_c: Mapping[str, ContainerRecord] = old.containers if old else {}
    new_c: Mapping[str, ContainerRecord] = new.containers if new else {}
    events: list[PodLifecycleEvent] = []
    for cid in list(old_c) + [c for c in new_c if c not in old_c]:
        before = old_c[cid].state if cid in old_c else State.NON_EXISTENT
        after = new_c[cid].state if cid in new_c else State.NON_EXISTENT
        events.extend(generate_events(uid, cid, before, after))
    return events


class EventChannel:
    """A bounded, thread-safe FIFO of PodLifecycleEvents. A send on a full channel is
    discarded and counted, never blocks."""

    def __init__(self, capacity: int = 1000) -> None:
        self.capacity = capacity
        self._q: queue.Queue[PodLifecycleEvent] = queue.Queue(maxsize=capacity)
        self._lock = threading.Lock()
        self.discarded = 0

    def send(self, event: PodLifecycleEvent) -> bool:
        try:
            self._q.put_nowait(event)
            return True
        except queue.Full:
            with self._lock:
                self.discarded += 1
            return False

    def get(self, timeout: float | None = None) -> PodLifecycleEvent | None:
        """The next event, or None after `timeout` seconds (None: wait forever)."""
        try:
            return self._q.get(timeout=timeout) if timeout != 0 else self._q.get_nowait()
        except queue.Empty:
            return None

    def drain(self) -> list[PodLifecycleEvent]:
        out: list[PodLifecycleEvent] = []
        while True:
            try:
                out.append(self._q.get_nowait())
            except queue.Empty:
                return out

    def __len__(self) -> int:
        return self._q.qsize()

    def full(self) -> bool:
        return self._q.qsize() >= self.capacity
