"""What a container's userland is made of, read from its config and its sandbox's.

`read_spec` takes the serialized runtime.v1.ContainerConfig and PodSandboxConfig
(`Container.spec`, `Sandbox.spec`) and returns plain data. Field numbers are those of
runtime.v1; tests check them against the generated messages.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from fakecri.sim.userland import wire

STRICT = 1  # SupplementalGroupsPolicy.Strict (Merge is 0)
POD, CONTAINER, NODE = 0, 1, 2  # NamespaceMode


@dataclass(frozen=True, slots=True)
class PortSpec:
    container_port: int
    host_port: int  # 0: none asked for
    host_ip: str  # "": the runtime's default
    protocol: int  # Protocol: TCP 0, UDP 1, SCTP 2
POD_MODE = 0  # NamespaceMode.POD (CONTAINER 1, NODE 2, TARGET 3)
IdMap = tuple[tuple[int, int, int], ...]  # (container id, host id, length) lines


@dataclass(frozen=True, slots=True)
class MountSpec:
    container_path: str
    host_path: str
    readonly: bool
    recursive_read_only: bool = False  # read-only reaches the host's submounts under it too
    propagation: int = 0  # MountPropagation: 0 private, 1 host to container, 2 bidirectional


@dataclass(frozen=True, slots=True)
class UserlandSpec:
    run_as_user: int | None = None
    run_as_group: int | None = None
    run_as_username: str = ""
    supplemental_groups: tuple[int, ...] = ()
    strict_groups: bool = False  # SupplementalGroupsPolicy Strict: no groups from the image's /etc/group
    readonly_rootfs: bool = False
    masked_paths: tuple[str, ...] = ()
    readonly_paths: tuple[str, ...] = ()
    envs: tuple[tuple[str, str], ...] = ()
    mounts: tuple[MountSpec, ...] = ()
    working_dir: str = ""
    hostname: str = ""
    dns_servers: tuple[str, ...] = ()
    dns_searches: tuple[str, ...] = ()
    dns_options: tuple[str, ...] = ()
    sysctls: dict[str, str] = field(default_factory=dict)
    privileged: bool = False
    add_capabilities: tuple[str, ...] = ()
    drop_capabilities: tuple[str, ...] = ()
    no_new_privs: bool = False
    seccomp: tuple[int, str] | None = None  # (profile type, localhost path); None: no profile given
    memory_limit: int = 0  # bytes; 0: no limit
    network_mode: int = POD  # the sandbox's network namespace: POD, or NODE for the host's
    pid_mode: int = POD
    ipc_mode: int = POD
    port_mappings: tuple[PortSpec, ...] = ()  # the sandbox's
    uid_map: IdMap | None = None  # a user namespace of the pod's own; None: the host's (mode NODE or unset)
    gid_map: IdMap | None = None


def read_spec(container_spec: bytes, sandbox_spec: bytes, *, hostname: str = "") -> UserlandSpec:
    """The userland settings of one container. Never raises: unreadable bytes read as defaults."""
    c = wire.message(container_spec)
    sc = wire.sub(wire.sub(c, 15), 2)  # linux.security_context
    user = wire.sub(sc, 5)  # run_as_user (Int64Value)
    group = wire.sub(sc, 12)  # run_as_group (Int64Value)
    envs = []
    for raw in c.get(6, ()):  # envs: KeyValue
        if isinstance(raw, bytes):
            kv = wire.message(raw)
            envs.append((wire.text(kv, 1), wire.text(kv, 2)))
    mounts = []
    for raw in c.get(7, ()):  # mounts: Mount
        if isinstance(raw, bytes):
            m = wire.message(raw)
            propagation = [v for v in m.get(5, ()) if isinstance(v, int)]
            mounts.append(MountSpec(wire.text(m, 1), wire.text(m, 2), wire.flag(m, 3), wire.flag(m, 8),
                                    propagation[-1] if propagation else 0))
    s = wire.message(sandbox_spec)
    dns = wire.sub(s, 4)
    sysctls: dict[str, str] = {}
    for raw in wire.sub(s, 8).get(3, ()):  # linux.sysctls (map entries: key 1, value 2)
        if isinstance(raw, bytes):
            entry = wire.message(raw)
            sysctls[wire.text(entry, 1)] = wire.text(entry, 2)
    policy = [v for v in sc.get(17, ()) if isinstance(v, int)]
    caps = wire.sub(sc, 1)
    seccomp: tuple[int, str] | None = None
    if 15 in sc:  # seccomp (SecurityProfile)
        profile = wire.sub(sc, 15)
        kinds = [v for v in profile.get(1, ()) if isinstance(v, int)]
        seccomp = (kinds[-1] if kinds else 0, wire.text(profile, 2))
    elif wire.text(sc, 10):  # the older seccomp_profile_path
        old = wire.text(sc, 10)
        seccomp = ((2, old.removeprefix("localhost/")) if old.startswith("localhost/")
                   else (1, "") if old == "unconfined" else (0, ""))
    ns = wire.sub(wire.sub(wire.sub(s, 8), 2), 1)  # linux.security_context.namespace_options

    def mode(number: int, default: int) -> int:
        values = [v for v in ns.get(number, ()) if isinstance(v, int)]
        return values[-1] if values else default

    limits = [v for v in wire.sub(wire.sub(c, 15), 1).get(4, ()) if isinstance(v, int)]  # memory_limit_in_bytes
    userns = wire.sub(wire.sub(sc, 3), 5)  # namespace_options.userns_options, the container's own
    if not userns:  # else the pod's: linux.security_context.namespace_options.userns_options
        userns = wire.sub(wire.sub(wire.sub(wire.sub(s, 8), 2), 1), 5)
    modes = [v for v in userns.get(1, ()) if isinstance(v, int)]
    pod_userns = bool(userns) and (modes[-1] if modes else POD_MODE) == POD_MODE
    return UserlandSpec(
        memory_limit=wire.signed(limits[-1]) if limits else 0,
        network_mode=mode(1, POD),
        pid_mode=mode(2, POD),
        ipc_mode=mode(3, POD),
        port_mappings=port_mappings(sandbox_spec),
        run_as_user=wire.signed(user[1][-1]) if 1 in user else (0 if 5 in sc else None),
        run_as_group=wire.signed(group[1][-1]) if 1 in group else (0 if 12 in sc else None),
        run_as_username=wire.text(sc, 6),
        supplemental_groups=tuple(wire.int64s(sc, 8)),
        strict_groups=bool(policy and policy[-1] == STRICT),
        readonly_rootfs=wire.flag(sc, 7),
        masked_paths=tuple(wire.texts(sc, 13)),
        readonly_paths=tuple(wire.texts(sc, 14)),
        envs=tuple(envs),
        mounts=tuple(mounts),
        working_dir=wire.text(c, 5),
        hostname=wire.text(s, 2) or hostname,
        dns_servers=tuple(wire.texts(dns, 1)),
        dns_searches=tuple(wire.texts(dns, 2)),
        dns_options=tuple(wire.texts(dns, 3)),
        sysctls=sysctls,
        privileged=wire.flag(sc, 2),
        add_capabilities=tuple(wire.texts(caps, 1)),
        drop_capabilities=tuple(wire.texts(caps, 2)),
        no_new_privs=wire.flag(sc, 11),
        seccomp=seccomp,
        uid_map=_id_map(userns, 2) if pod_userns else None,
        gid_map=_id_map(userns, 3) if pod_userns else None,
    )


def port_mappings(sandbox_spec: bytes) -> tuple[PortSpec, ...]:
    """The port mappings of a serialized PodSandboxConfig."""
    out = []
    for raw in wire.message(sandbox_spec).get(5, ()):
        if isinstance(raw, bytes):
            m = wire.message(raw)
            number = {k: ([v for v in m.get(k, ()) if isinstance(v, int)] or [0])[-1] for k in (1, 2, 3)}
            out.append(PortSpec(number[2], number[3], wire.text(m, 4), number[1]))
    return tuple(out)


def network_mode(sandbox_spec: bytes) -> int:
    """POD, or NODE for a sandbox on the host's network."""
    ns = wire.sub(wire.sub(wire.sub(wire.message(sandbox_spec), 8), 2), 1)
    values = [v for v in ns.get(1, ()) if isinstance(v, int)]
    return values[-1] if values else POD


def pid_mode(sandbox_spec: bytes) -> int:
    """The sandbox's PID namespace: POD (shared by its containers), CONTAINER or NODE."""
    ns = wire.sub(wire.sub(wire.sub(wire.message(sandbox_spec), 8), 2), 1)
    values = [v for v in ns.get(2, ()) if isinstance(v, int)]
    return values[-1] if values else POD
def _id_map(userns: dict[int, list[int | bytes]], number: int) -> IdMap:
    """The IDMapping list in field `number` of a UserNamespace (host_id 1, container_id 2, length 3)."""
    out = []
    for raw in userns.get(number, ()):
        if isinstance(raw, bytes):
            m = wire.message(raw)
            out.append(tuple(next((v for v in reversed(m.get(k, ())) if isinstance(v, int)), 0) for k in (2, 1, 3)))
    return tuple(out)  # type: ignore[return-value]


def has_private_host_mount(container_spec: bytes) -> bool:
    """Whether the container mounts a host path with private propagation (the default)."""
    for number, raw in wire.fields(container_spec):
        if number == 7 and isinstance(raw, bytes):
            m = wire.message(raw)
            propagation = [v for v in m.get(5, ()) if isinstance(v, int)]
            if wire.text(m, 2) and not (propagation and propagation[-1]):
                return True
    return False
