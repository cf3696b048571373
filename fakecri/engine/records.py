"""The objects a runtime holds: sandboxes, containers, images.

Records are plain mutable dataclasses owned by `Runtime` (or `ImageStore`). Only the
core mutates them, and every mutation bumps `rev` and clears `wire`, the server's
cache of the record's serialized list item. That cache is what keeps the list
calls near the transport floor (see docs/architecture.md).

Fields the core never interprets (security contexts, DNS, mounts...) travel as
`spec`: the serialized CRI config message, opaque here, decoded by the server when
it builds a status.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field


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


@dataclass(slots=True)
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
    unified: dict[str, str] = field(default_factory=dict)
    memory_swap_limit_in_bytes: int = 0


@dataclass(slots=True, eq=False)
class Sandbox:
    id: str
    name: str
    namespace: str
    uid: str
    attempt: int
    state: SandboxState
    created_at: int  # ns
    labels: dict[str, str]
    annotations: dict[str, str]
    hostname: str = ""
    log_directory: str = ""
    runtime_handler: str = ""
    ip: str = ""
    additional_ips: tuple[str, ...] = ()
    spec: bytes = b""  # serialized runtime.v1.PodSandboxConfig
    overhead: Resources | None = None
    resources: Resources | None = None
    container_ids: list[str] = field(default_factory=list)  # in creation order
    rev: int = 0
    wire: bytes | None = None


@dataclass(slots=True, eq=False)
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
    labels: dict[str, str]
    annotations: dict[str, str]
    command: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    log_path: str = ""  # absolute: sandbox log_directory joined with the config's log_path
    resources: Resources = field(default_factory=Resources)
    spec: bytes = b""  # serialized runtime.v1.ContainerConfig
    started_at: int = 0
    finished_at: int = 0
    exit_code: int = 0
    reason: str = ""
    message: str = ""
    rev: int = 0
    wire: bytes | None = None


@dataclass(slots=True, eq=False)
class Image:
    id: str  # "sha256:<64 hex>"
    repo_tags: list[str]
    repo_digests: list[str]
    size: int
    pinned: bool = False
    username: str = ""
    uid: int | None = None
    rev: int = 0
    wire: bytes | None = None
