"""What a container's userland is made of: its config and its sandbox's, flattened.

`userland_spec` reads the typed specs the records carry (fakecri.engine.specs) and picks
what a command inside the container can observe: who it runs as, its environment, its
mounts, its namespaces, its privileges.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from fakecri.engine.records import Container, Sandbox
from fakecri.engine.specs import POD, STRICT, IdMap, Mount, PortMapping, Seccomp, UserNamespace


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
    mounts: tuple[Mount, ...] = ()
    working_dir: str = ""
    hostname: str = ""
    dns_servers: tuple[str, ...] = ()
    dns_searches: tuple[str, ...] = ()
    dns_options: tuple[str, ...] = ()
    sysctls: tuple[tuple[str, str], ...] = ()  # (path under /proc/sys, value)
    privileged: bool = False
    add_capabilities: tuple[str, ...] = ()
    drop_capabilities: tuple[str, ...] = ()
    no_new_privs: bool = False
    seccomp: Seccomp | None = None  # None: no profile given
    memory_limit: int = 0  # bytes; 0: no limit
    network_mode: int = POD  # the sandbox's network namespace: POD, or NODE for the host's
    pid_mode: int = POD
    ipc_mode: int = POD
    port_mappings: tuple[PortMapping, ...] = ()  # the sandbox's
    uid_map: IdMap | None = None  # a user namespace of the pod's own; None: the host's (mode NODE or unset)
    gid_map: IdMap | None = None

    def sysctl(self, path: str) -> str | None:
        """The value of the sysctl at `path` under /proc/sys (`kernel/shm_rmid_forced`), or None."""
        for k, v in self.sysctls:
            if k == path:
                return v
        return None


def userland_spec(c: Container, sb: Sandbox | None) -> UserlandSpec:
    """The userland settings of container `c` in sandbox `sb`."""
    cs = c.spec
    ss = sb.spec if sb is not None else None
    ns = ss.namespaces if ss is not None else None
    userns = (cs.namespaces.userns if cs.namespaces is not None and cs.namespaces.userns is not None
              else ns.userns if ns is not None else None)
    own_userns = userns is not None and userns.mode == POD
    return UserlandSpec(
        run_as_user=cs.run_as_user,
        run_as_group=cs.run_as_group,
        run_as_username=cs.run_as_username,
        supplemental_groups=cs.supplemental_groups,
        strict_groups=cs.supplemental_groups_policy == STRICT,
        readonly_rootfs=cs.readonly_rootfs,
        masked_paths=cs.masked_paths,
        readonly_paths=cs.readonly_paths,
        envs=cs.envs,
        mounts=_idmapped(cs.mounts, userns) if own_userns and userns is not None else cs.mounts,
        working_dir=cs.working_dir,
        hostname=sb.hostname if sb is not None else "",
        dns_servers=ss.dns_servers if ss is not None else (),
        dns_searches=ss.dns_searches if ss is not None else (),
        dns_options=ss.dns_options if ss is not None else (),
        sysctls=tuple((sysctl_path(k), v) for k, v in ss.sysctls) if ss is not None else (),
        privileged=cs.privileged,
        add_capabilities=cs.add_capabilities,
        drop_capabilities=cs.drop_capabilities,
        no_new_privs=cs.no_new_privs,
        seccomp=cs.seccomp,
        memory_limit=max(0, c.resources.memory_limit_in_bytes),
        network_mode=ns.network if ns is not None else POD,
        pid_mode=ns.pid if ns is not None else POD,
        ipc_mode=ns.ipc if ns is not None else POD,
        port_mappings=ss.port_mappings if ss is not None else (),
        uid_map=userns.uids if own_userns and userns is not None else None,
        gid_map=userns.gids if own_userns and userns is not None else None,
    )


def _idmapped(mounts: tuple[Mount, ...], userns: UserNamespace) -> tuple[Mount, ...]:
    """A pod with a user namespace of its own has its volumes idmapped with the pod's maps, as
    containerd 2.x mounts them (a mount that names its own maps keeps them)."""
    return tuple(replace(m, uid_mappings=userns.uids, gid_mappings=userns.gids)
                 if m.host_path and not m.uid_mappings and not m.gid_mappings else m for m in mounts)


def sysctl_path(name: str) -> str:
    """Where a sysctl lives under /proc/sys: a name with slashes is that path already (its dots
    belong to the components, as in an interface name); dots separate a name without slashes."""
    return name if "/" in name else name.replace(".", "/")


def sysctl_name(path: str) -> str:
    """The name the kernel's sysctl tool prints for a /proc/sys path: dots between components."""
    return path.replace("/", ".")


def has_private_host_mount(c: Container) -> bool:
    """Whether the container mounts a host path with private propagation (the default)."""
    return any(m.host_path and not m.propagation for m in c.spec.mounts)
