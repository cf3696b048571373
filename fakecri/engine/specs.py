"""The parts of a sandbox's and a container's CRI config that outlive the create call, typed.

The server decodes each runtime.v1 config message once, when it arrives (server/codec/decode.py),
into these frozen values; the records carry them, the container simulation reads them, and
the statuses are built back from them. Nothing here knows protobuf. Enum fields hold the
runtime.v1 numbers (the server refuses numbers outside each enum before they get here).
Specs are hashable, so equal specs of pods made from one template can share one object.
"""
from __future__ import annotations

from dataclasses import dataclass

IdMap = tuple[tuple[int, int, int], ...]  # (container id, host id, length) lines of a user namespace

# NamespaceMode
POD, CONTAINER, NODE, TARGET = 0, 1, 2, 3
# MountPropagation
PRIVATE, HOST_TO_CONTAINER, BIDIRECTIONAL = 0, 1, 2
# Protocol
TCP, UDP, SCTP = 0, 1, 2
# SecurityProfile.ProfileType
RUNTIME_DEFAULT, UNCONFINED, LOCALHOST = 0, 1, 2
# SupplementalGroupsPolicy
MERGE, STRICT = 0, 1


@dataclass(frozen=True, slots=True)
class UserNamespace:
    mode: int = POD  # NamespaceMode: POD (the pod's own, with the maps) or NODE (the host's)
    uids: IdMap = ()
    gids: IdMap = ()


@dataclass(frozen=True, slots=True)
class Namespaces:
    """runtime.v1.NamespaceOption."""

    network: int = POD
    pid: int = POD
    ipc: int = POD
    target_id: str = ""
    userns: UserNamespace | None = None


@dataclass(frozen=True, slots=True)
class PortMapping:
    protocol: int = TCP
    container_port: int = 0
    host_port: int = 0  # 0: none asked for
    host_ip: str = ""  # "": the runtime's default


@dataclass(frozen=True, slots=True)
class Mount:
    """runtime.v1.Mount."""

    container_path: str = ""
    host_path: str = ""
    readonly: bool = False
    selinux_relabel: bool = False
    propagation: int = PRIVATE
    uid_mappings: IdMap = ()
    gid_mappings: IdMap = ()
    recursive_read_only: bool = False
    image: str = ""  # an image mounted as a volume (ImageSpec.image)
    image_sub_path: str = ""


@dataclass(frozen=True, slots=True)
class Seccomp:
    kind: int = RUNTIME_DEFAULT  # SecurityProfile.ProfileType
    localhost_ref: str = ""


@dataclass(frozen=True, slots=True)
class SandboxSpec:
    """What of a PodSandboxConfig the runtime keeps, besides what the record holds."""

    dns_servers: tuple[str, ...] = ()
    dns_searches: tuple[str, ...] = ()
    dns_options: tuple[str, ...] = ()
    port_mappings: tuple[PortMapping, ...] = ()
    cgroup_parent: str = ""
    sysctls: tuple[tuple[str, str], ...] = ()
    namespaces: Namespaces = Namespaces()
    privileged: bool = False
    run_as_user: int | None = None
    run_as_group: int | None = None
    supplemental_groups: tuple[int, ...] = ()
    readonly_rootfs: bool = False
    seccomp: Seccomp | None = None


@dataclass(frozen=True, slots=True)
class ContainerSpec:
    """What of a ContainerConfig the runtime keeps, besides what the record holds."""

    working_dir: str = ""
    envs: tuple[tuple[str, str], ...] = ()
    mounts: tuple[Mount, ...] = ()
    stdin: bool = False
    stdin_once: bool = False
    tty: bool = False
    stop_signal: int = 0  # runtime.v1.Signal; 0: the image's, else SIGTERM
    # linux.security_context
    privileged: bool = False
    add_capabilities: tuple[str, ...] = ()
    drop_capabilities: tuple[str, ...] = ()
    add_ambient_capabilities: tuple[str, ...] = ()
    run_as_user: int | None = None
    run_as_group: int | None = None
    run_as_username: str = ""
    supplemental_groups: tuple[int, ...] = ()
    supplemental_groups_policy: int = MERGE
    readonly_rootfs: bool = False
    no_new_privs: bool = False
    masked_paths: tuple[str, ...] = ()
    readonly_paths: tuple[str, ...] = ()
    seccomp: Seccomp | None = None  # None: no profile was given
    namespaces: Namespaces | None = None  # the container's own namespace options; None: not given


EMPTY_SANDBOX_SPEC = SandboxSpec()
EMPTY_CONTAINER_SPEC = ContainerSpec()
