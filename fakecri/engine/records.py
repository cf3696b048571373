"""The objects a runtime holds (sandboxes, containers, images) and what it says about them
(lifecycle events and the lines containers write).

Records are frozen: the engine never changes one, it replaces it with a changed copy
(`dataclasses.replace`). So a record handed out (in a list answer, in an event) stays
as it was at that moment, and "has this record changed?" is "is it the same object?".
Records compare by identity (eq=False), which also makes them cheap dictionary keys for
the server's caches of serialized items.

Events and output wait in the engine's outbox until its owner drains them
(`Runtime.drain_events`), in the order they happened. An `Event` carries the records of
its pod as they were at the transition, so whoever encodes it later needs nothing else
from the engine.
"""
from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

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


@dataclass(frozen=True, slots=True)
class Output:
    """Text a container's program wrote (a log line, or several) at `ts_ns`."""

    container_id: str
    log_path: str
    stream: str  # "stdout" or "stderr"
    text: str  # bytes that are not UTF-8 travel as surrogate escapes
    ts_ns: int


Said = Event | Output
