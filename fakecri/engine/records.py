"""The objects a runtime holds (sandboxes, containers, images), what they may take, what
it says about them (lifecycle events and the lines containers write), and the store that
holds them.

Records are frozen: the engine never changes one, it replaces it with a changed copy
(`evolve`, `dataclasses.replace`). So a record handed out (in a list answer, in an event)
stays as it was at that moment, and "has this record changed?" is "is it the same object?".
Records compare by identity (eq=False), which also makes them cheap dictionary keys for
the server's caches of serialized items.

Resources (CPU, memory, cpusets) are validated before any of them is applied and merged on
an update (`validate_resources`, `merged_resources`); `Limits` are the runtime's capacity
limits on how many records there are (going past one is ResourceExhausted).

Events and output wait in the engine's outbox until its owner drains them
(`Runtime.drain_events`), in the order they happened. An `Event` carries the records of
its pod as they were at the transition, so whoever encodes it later needs nothing else
from the engine.

The Runtime owns one `RuntimeStore` (its records, their keys, its timers and counters) and
is its only writer; `snapshot` saves and loads a store without knowing the Runtime, so the
state file and the state machine stay apart. The timer heap holds (due_ns, seq,
container_id, kind, offset_ns) entries; they are never cancelled: the runtime skips the
ones that no longer apply when they come due, and `compact` drops them in bulk when they
pile up.
"""
from __future__ import annotations

import enum
import heapq
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fakecri.engine.errors import InvalidArgument, ResourceExhausted
from fakecri.engine.ipam import IpPool
from fakecri.engine.program_plan import Plan
from fakecri.engine.specs import EMPTY_CONTAINER_SPEC, EMPTY_SANDBOX_SPEC, ContainerSpec, SandboxSpec


class SandboxState(enum.IntEnum):
    # Numbered as runtime.v1.PodSandboxState.
    READY = 0
    NOTREADY = 1


class ContainerState(enum.IntEnum):
    # Numbered as runtime.v1.ContainerState.
    CREATED = 0
    RUNNING = 1
    EXITED = 2
    UNKNOWN = 3


@dataclass(frozen=True, slots=True)
class Resources:
    """The Linux resources CRI lets a caller set (runtime.v1.LinuxContainerResources)."""

    cpu_period: int = 0
    cpu_quota: int = 0
    cpu_shares: int = 0
    memory_limit_in_bytes: int = 0
    oom_score_adj: int = 0
    cpuset_cpus: str = ""
    cpuset_mems: str = ""
    hugepage_limits: tuple[tuple[str, int], ...] = ()  # (page_size, limit)
    unified: tuple[tuple[str, str], ...] = ()  # cgroup v2 key, value
    memory_swap_limit_in_bytes: int = 0


NO_RESOURCES = Resources()


MIN_MEMORY = 4 * 1024 * 1024  # runc refuses less than 4 MiB
_CPUSET = re.compile(r"\d+(-\d+)?(,\d+(-\d+)?)*")


def _cpuset_ok(text: str) -> bool:
    if not text:
        return True
    if not _CPUSET.fullmatch(text):
        return False
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if hi and int(hi) < int(lo):
            return False
    return True


def resource_problems(res: Resources) -> list[str]:
    """Every reason `res` is invalid; empty when it is fine."""
    out = []
    for name in ("cpu_period", "cpu_shares", "memory_limit_in_bytes"):
        if getattr(res, name) < 0:
            out.append(f"{name} {getattr(res, name)} is negative")
    if res.memory_swap_limit_in_bytes < -1:
        out.append(f"memory_swap_limit_in_bytes {res.memory_swap_limit_in_bytes} is below -1 (-1 = unlimited)")
    if res.cpu_shares == 1 or res.cpu_shares > 262144:
        out.append(f"cpu_shares {res.cpu_shares} is outside 2..262144 (0 = unset)")
    if res.cpu_period and not 1000 <= res.cpu_period <= 1_000_000:
        out.append(f"cpu_period {res.cpu_period} is outside 1000..1000000 (0 = unset)")
    if res.cpu_quota < -1 or 0 < res.cpu_quota < 1000:
        out.append(f"cpu_quota {res.cpu_quota} must be -1, 0 or at least 1000")
    if not -1000 <= res.oom_score_adj <= 1000:
        out.append(f"oom_score_adj {res.oom_score_adj} is outside -1000..1000")
    if 0 < res.memory_limit_in_bytes < MIN_MEMORY:
        out.append(f"memory_limit_in_bytes {res.memory_limit_in_bytes} is below 4 MiB")
    if (res.memory_swap_limit_in_bytes > 0 and res.memory_limit_in_bytes
            and 0 < res.memory_swap_limit_in_bytes < res.memory_limit_in_bytes):
        out.append("memory_swap_limit_in_bytes is below memory_limit_in_bytes")
    for name in ("cpuset_cpus", "cpuset_mems"):
        if not _cpuset_ok(getattr(res, name)):
            out.append(f"{name} {getattr(res, name)!r} is not a list like '0-3,5'")
    for size, limit in res.hugepage_limits:
        if limit < 0:
            out.append(f"hugepage limit for {size} is negative")
    return out


def validate_resources(res: Resources | None, what: str) -> None:
    """Raise InvalidArgument naming `what` (e.g. "container abc") and every problem found."""
    if res is None or res in _fine:
        return
    found = resource_problems(res)
    if found:
        raise InvalidArgument(f"invalid resources for {what}: " + "; ".join(found))
    if len(_fine) >= _FINE_KEPT:
        _fine.clear()
    _fine.add(res)


_FINE_KEPT = 4096  # resources found valid, kept so that equal ones are not checked again
_fine: set[Resources] = set()


def merged_resources(old: Resources, new: Resources) -> Resources:
    """What an update leaves, as containerd applies one to the container's spec: each field the
    update sets (non-zero, non-empty) replaces the old value, the rest stay; `unified` keys are
    added to the old ones."""
    unified = dict(old.unified)
    unified.update(new.unified)
    return Resources(
        cpu_period=new.cpu_period or old.cpu_period, cpu_quota=new.cpu_quota or old.cpu_quota,
        cpu_shares=new.cpu_shares or old.cpu_shares,
        memory_limit_in_bytes=new.memory_limit_in_bytes or old.memory_limit_in_bytes,
        oom_score_adj=new.oom_score_adj or old.oom_score_adj, cpuset_cpus=new.cpuset_cpus or old.cpuset_cpus,
        cpuset_mems=new.cpuset_mems or old.cpuset_mems, hugepage_limits=new.hugepage_limits or old.hugepage_limits,
        unified=tuple(sorted(unified.items())),
        memory_swap_limit_in_bytes=new.memory_swap_limit_in_bytes or old.memory_swap_limit_in_bytes)


@dataclass(frozen=True, slots=True)
class Limits:
    max_sandboxes: int | None = None  # None: unlimited
    max_containers: int | None = None

    def check_sandboxes(self, current: int, name: str) -> None:
        if self.max_sandboxes is not None and current >= self.max_sandboxes:
            raise ResourceExhausted(
                f"cannot run sandbox {name!r}: the runtime already holds {current} sandboxes "
                f"(limit {self.max_sandboxes})"
            )

    def check_containers(self, current: int, name: str) -> None:
        if self.max_containers is not None and current >= self.max_containers:
            raise ResourceExhausted(
                f"cannot create container {name!r}: the runtime already holds {current} containers "
                f"(limit {self.max_containers})"
            )


@dataclass(frozen=True, slots=True)
class RunAs:
    """The user a container's process runs as, settled when the container is created (from its
    image's account files and its spec's run_as_* settings), as containerd settles it into the
    OCI spec at CreateContainer; its status reports it."""

    uid: int = 0
    gid: int = 0
    supplemental_groups: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class Sandbox:
    id: str
    name: str
    namespace: str
    uid: str
    attempt: int
    state: SandboxState
    created_at: int  # ns
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    hostname: str = ""
    log_directory: str = ""
    runtime_handler: str = ""
    ip: str = ""
    additional_ips: tuple[str, ...] = ()
    spec: SandboxSpec = EMPTY_SANDBOX_SPEC
    overhead: Resources | None = None
    resources: Resources | None = None
    container_ids: tuple[str, ...] = ()  # in creation order


@dataclass(frozen=True, slots=True, eq=False)
class Container:
    id: str
    sandbox_id: str
    name: str
    attempt: int
    state: ContainerState
    created_at: int  # ns
    image: str  # the reference the caller asked for, as given
    image_ref: str  # the resolved image reference (repo digest when known)
    image_id: str  # "sha256:<64 hex>"
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    command: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    log_path: str = ""  # the sandbox's log_directory joined with the config's log_path
    resources: Resources = NO_RESOURCES
    spec: ContainerSpec = EMPTY_CONTAINER_SPEC
    started_at: int = 0
    finished_at: int = 0
    exit_code: int = 0
    reason: str = ""
    message: str = ""
    user: RunAs | None = None  # the Programs port's answer at creation (None: a record of an older fakecri)


@dataclass(frozen=True, slots=True, eq=False)
class Image:
    id: str  # "sha256:<64 hex>"
    repo_tags: tuple[str, ...]
    repo_digests: tuple[str, ...]
    size: int
    pinned: bool = False
    username: str = ""
    uid: int | None = None


def interned(d: Mapping[str, str]) -> dict[str, str]:
    """A copy of labels or annotations `d` with shared key strings (they repeat across thousands
    of containers)."""
    return {sys.intern(k): (sys.intern(v) if len(v) <= 64 else v) for k, v in d.items()}


R = TypeVar("R", "Sandbox", "Container")
_set = object.__setattr__


def _copier(cls: type[Sandbox] | type[Container]) -> Callable[[Any], Any]:
    """A function that copies a record of `cls` field by field: one generated line per slot,
    so a copy costs no loop and no getattr by name."""
    lines = [f"    _set(new, {name!r}, rec.{name})" for name in cls.__slots__]
    source = "def copy(rec):\n    new = _new(cls)\n" + "\n".join(lines) + "\n    return new\n"
    namespace: dict[str, Any] = {"_set": _set, "_new": object.__new__, "cls": cls}
    exec(source, namespace)
    copy: Callable[[Any], Any] = namespace["copy"]
    return copy


_COPIERS: dict[type, Callable[[Any], Any]] = {}


def evolve(rec: R, **changes: Any) -> R:
    """A copy of a sandbox or container record with `changes` made.

    dataclasses.replace does the same through the record's __init__, which for a frozen
    dataclass sets each of its twenty-odd fields with object.__setattr__ after gathering them
    by introspection; records are copied on every transition of every RPC, so the copy is a
    function generated once per record type (`_copier`). TypeError for a name that is not a
    field, as replace gives."""
    cls = type(rec)
    copy = _COPIERS.get(cls)
    if copy is None:
        copy = _COPIERS[cls] = _copier(cls)
    new: R = copy(rec)
    slots = cls.__slots__
    for name, value in changes.items():
        if name not in slots:
            raise TypeError(f"{cls.__name__} has no field {name!r}")
        _set(new, name, value)
    return new


class EventType(enum.IntEnum):
    # Numbered as runtime.v1.ContainerEventType.
    CREATED = 0
    STARTED = 1
    STOPPED = 2
    DELETED = 3


@dataclass(frozen=True, slots=True)
class Event:
    type: EventType
    # For sandbox events this equals sandbox_id, as in CRI.
    container_id: str
    sandbox_id: str
    created_at: int  # nanoseconds; never decreases across the events of one Runtime
    is_sandbox: bool
    # The pod as it was at this event: its sandbox (None only once the sandbox is gone)
    # and the records of the containers it holds, in creation order.
    sandbox: Sandbox | None = None
    containers: tuple[Container, ...] = ()
    # The record the event is about, as it was then (for a container DELETED, its last record).
    subject: Sandbox | Container | None = None
    # The images of those containers as they were then, by image id (None: the store no longer
    # holds it), so that their statuses are encoded without asking the image store.
    images: Mapping[str, Image | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Output:
    """Text a container's program wrote (a log line, or several) at `ts_ns`."""

    container_id: str
    log_path: str
    stream: str  # "stdout" or "stderr"
    text: str  # bytes that are not UTF-8 travel as surrogate escapes
    ts_ns: int


Said = Event | Output


# ------------------------------------------------------------ the store

WAKE = 0  # the container's next scripted moment (a log line, its exit); offset = plan offset
STOP = 1  # the end of a slow stop
INPUT = 2  # a container's command that reads input takes its next step (offset unused)

Entry = tuple[int, int, str, int, int]


class TimerHeap:
    def __init__(self) -> None:
        self._heap: list[Entry] = []
        self._seq = 0

    def __len__(self) -> int:
        return len(self._heap)

    def push(self, due_ns: int, container_id: str, kind: int, offset_ns: int = 0) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (due_ns, self._seq, container_id, kind, offset_ns))

    def peek(self) -> Entry | None:
        return self._heap[0] if self._heap else None

    def pop_due(self, now_ns: int) -> Entry | None:
        if self._heap and self._heap[0][0] <= now_ns:
            return heapq.heappop(self._heap)
        return None

    def discard_head_while(self, stale: Callable[[Entry], bool]) -> None:
        while self._heap and stale(self._heap[0]):
            heapq.heappop(self._heap)

    def compact(self, keep: Callable[[Entry], bool]) -> None:
        self._heap = [e for e in self._heap if keep(e)]
        heapq.heapify(self._heap)

    def entries(self) -> Iterator[Entry]:
        return iter(sorted(self._heap))

    def clear(self) -> None:
        self._heap.clear()


@dataclass(slots=True)
class RuntimeStore:
    ips: IpPool
    sandboxes: dict[str, Sandbox] = field(default_factory=dict)
    containers: dict[str, Container] = field(default_factory=dict)
    sandbox_keys: dict[tuple[str, str, str, int], str] = field(default_factory=dict)  # (name, ns, uid, attempt)
    container_keys: dict[tuple[str, str, int], str] = field(default_factory=dict)  # (sandbox id, name, attempt)
    timers: TimerHeap = field(default_factory=TimerHeap)
    stopping: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # cid -> (due_ns, exit_code, reason)
    # containers whose program took the stop signal into itself and ran on from there (the
    # simulation's): their plan's own timers (its lines, its end) no longer apply; kept until removed
    diverted: set[str] = field(default_factory=set)
    removed_cpu: dict[str, int] = field(default_factory=dict)  # sandbox id -> CPU ns of its removed containers
    # cid -> the plan the Programs port answered for a running container (its wakes and stop read it)
    plans: dict[str, Plan] = field(default_factory=dict)
    running: int = 0  # containers RUNNING now
    last_event_ns: int = 0  # the newest event's created_at (events never go back in time)

    def is_stale(self, entry: Entry) -> bool:
        """A timer that no longer applies: its container is gone or not running, or the stop was replaced."""
        due, _, cid, kind, _ = entry
        c = self.containers.get(cid)
        if c is None or c.state != ContainerState.RUNNING:
            return True
        if kind == STOP:
            pending = self.stopping.get(cid)
            return pending is None or pending[0] != due
        return cid in self.diverted

    def takes_output(self, c: Container, ts_ns: int) -> bool:
        """Whether what `c`'s program wrote at `ts_ns` is kept: it writes while it runs; one that
        took the stop signal into itself, also by the moment it exited (the stop's end and its
        last lines can come due together)."""
        return c.state == ContainerState.RUNNING or (
            c.state == ContainerState.EXITED and c.id in self.diverted and ts_ns <= c.finished_at)

    def forget_stop(self, cid: str) -> None:
        """A removed container's stop is forgotten."""
        self.stopping.pop(cid, None)
        self.diverted.discard(cid)

    def clear(self) -> None:
        """Forget every record, timer and counter (the address pool keeps its range)."""
        self.sandboxes.clear()
        self.containers.clear()
        self.sandbox_keys.clear()
        self.container_keys.clear()
        self.timers.clear()
        self.stopping.clear()
        self.diverted.clear()
        self.removed_cpu.clear()
        self.plans.clear()
        self.ips.release_all()
        self.running = 0
