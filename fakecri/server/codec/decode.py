"""Protobuf in: the one decoder of each CRI config message and of the resources, and the
refusals a real runtime makes on them.

`sandbox_spec` and `container_spec` turn a PodSandboxConfig or ContainerConfig into the
engine's typed specs (fakecri.engine.specs), once, when the config arrives, and
`resources_from_pb` a LinuxContainerResources into the engine's `Resources`; the messages
are built back from the records by encode.py. Before decoding, a config is checked, each
refusal an InvalidArgument naming the object and the field:

- an enum field holding a number its enum does not define (the wire admits any int32);
- a group (run_as_group) without a user (run_as_user or run_as_username), as containerd;
- user-namespace options containerd cannot honour: modes CONTAINER and TARGET, mappings
  with mode NODE, and for mode POD anything but one uid and one gid mapping from id 0;
- recursive read-only mounts that are not read-only or not privately propagated;
- port mappings whose ports are outside 0..65535 or whose host_ip is not an address.
"""
from __future__ import annotations

import functools
import ipaddress
from typing import Any, Generic, TypeVar

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.errors import InvalidArgument
from fakecri.engine.records import Resources
from fakecri.engine.specs import (
    ContainerSpec,
    IdMap,
    Mount,
    Namespaces,
    PortMapping,
    SandboxSpec,
    Seccomp,
    UserNamespace,
)

T = TypeVar("T")
MAX_PORT = 65535
_INTERN_MAX = 4096  # equal specs share one object (pods of one template); at most this many kept

# ---------------------------------------------------------------- enum values


@functools.cache
def _may_hold_enums(desc: Descriptor) -> bool:
    """Whether a message of this type can hold an enum value anywhere inside it."""
    return any(f.type == FieldDescriptor.TYPE_ENUM
               or (f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type is not desc
                   and _may_hold_enums(f.message_type))
               for f in desc.fields)


def check_enums(msg: Message, path: str) -> None:
    """InvalidArgument naming the field when an enum field holds a number its enum does not define."""
    if not _may_hold_enums(msg.DESCRIPTOR):
        return
    for field, value in msg.ListFields():
        where = f"{path}.{field.name}"
        if field.type == FieldDescriptor.TYPE_ENUM:
            for i, number in enumerate(value if _repeated(field) else [value]):
                if number not in field.enum_type.values_by_number:
                    shown = f"{where}[{i}]" if _repeated(field) else where
                    raise InvalidArgument(f"{shown}: {number} is not a {field.enum_type.name} "
                                          f"(known: {', '.join(v.name for v in field.enum_type.values)})")
        elif field.type == FieldDescriptor.TYPE_MESSAGE and _may_hold_enums(field.message_type):
            if field.message_type.GetOptions().map_entry:
                continue
            for i, item in enumerate(value if _repeated(field) else [value]):
                check_enums(item, f"{where}[{i}]" if _repeated(field) else where)


def _repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


# ---------------------------------------------------------------- refusals


def _group_needs_user(ctx: Any, what: str) -> None:
    if ctx.HasField("run_as_group") and not (ctx.HasField("run_as_user") or getattr(ctx, "run_as_username", "")):
        raise InvalidArgument(f"{what}: run_as_group is set without run_as_user or run_as_username")


def _mappings(kind: str, mappings: Any, what: str) -> None:
    if len(mappings) != 1:
        raise InvalidArgument(f"{what}: user namespace mode POD needs exactly one {kind} mapping, got {len(mappings)}")
    m = mappings[0]
    if m.container_id != 0:
        raise InvalidArgument(f"{what}: the {kind} mapping must map container id 0 (it starts at {m.container_id})")
    if m.length == 0:
        raise InvalidArgument(f"{what}: the {kind} mapping has length 0")


def _userns(ns: pb.NamespaceOption, what: str) -> None:
    if not ns.HasField("userns_options"):
        return
    opts = ns.userns_options
    if opts.mode == pb.NODE:
        if opts.uids or opts.gids:
            raise InvalidArgument(f"{what}: user namespace mode NODE takes no uid or gid mappings")
        return
    if opts.mode != pb.POD:
        raise InvalidArgument(f"{what}: user namespace mode {pb.NamespaceMode.Name(opts.mode)} is not supported "
                              "(only POD and NODE)")
    _mappings("uid", opts.uids, what)
    _mappings("gid", opts.gids, what)


def _port_mappings(cfg: pb.PodSandboxConfig, what: str) -> None:
    for i, m in enumerate(cfg.port_mappings):
        for name in ("container_port", "host_port"):
            value = getattr(m, name)
            if not 0 <= value <= MAX_PORT:
                raise InvalidArgument(f"{what}: port_mappings[{i}].{name} {value} is outside 0..{MAX_PORT}")
        if m.host_ip:
            try:
                ipaddress.ip_address(m.host_ip)
            except ValueError:
                raise InvalidArgument(f"{what}: port_mappings[{i}].host_ip {m.host_ip!r} is not an IP address") \
                    from None


def check_sandbox_config(cfg: pb.PodSandboxConfig) -> None:
    what = f"RunPodSandbox {cfg.metadata.name!r}"
    check_enums(cfg, f"{what}: config")
    ctx = cfg.linux.security_context
    _group_needs_user(ctx, what)
    _userns(ctx.namespace_options, what)
    _port_mappings(cfg, what)


def check_container_config(cfg: pb.ContainerConfig) -> None:
    what = f"CreateContainer {cfg.metadata.name!r}"
    check_enums(cfg, f"{what}: config")
    ctx = cfg.linux.security_context
    _group_needs_user(ctx, what)
    _userns(ctx.namespace_options, what)
    for mount in cfg.mounts:
        if not mount.recursive_read_only:
            continue
        if not mount.readonly:
            raise InvalidArgument(f"{what}: mount {mount.container_path!r} is recursive read-only but not read-only")
        if mount.propagation != pb.PROPAGATION_PRIVATE:
            raise InvalidArgument(
                f"{what}: mount {mount.container_path!r} is recursive read-only with propagation "
                f"{pb.MountPropagation.Name(mount.propagation)}; it needs PROPAGATION_PRIVATE"
            )


# ---------------------------------------------------------------- decoding


def _id_map(mappings: Any) -> IdMap:
    return tuple((m.container_id, m.host_id, m.length) for m in mappings)


def _namespaces(ns: pb.NamespaceOption) -> Namespaces:
    userns = None
    if ns.HasField("userns_options"):
        o = ns.userns_options
        userns = UserNamespace(mode=o.mode, uids=_id_map(o.uids), gids=_id_map(o.gids))
    return Namespaces(network=ns.network, pid=ns.pid, ipc=ns.ipc, target_id=ns.target_id, userns=userns)


def _seccomp(ctx: Any) -> Seccomp | None:
    if ctx.HasField("seccomp"):
        return Seccomp(ctx.seccomp.profile_type, ctx.seccomp.localhost_ref)
    old = getattr(ctx, "seccomp_profile_path", "")
    if not old:
        return None
    if old.startswith("localhost/"):
        return Seccomp(pb.SecurityProfile.Localhost, old.removeprefix("localhost/"))
    return Seccomp(pb.SecurityProfile.Unconfined if old == "unconfined" else pb.SecurityProfile.RuntimeDefault)


class _Interned(Generic[T]):
    """Equal specs as one object: the pods of one template carry the same spec."""

    def __init__(self) -> None:
        self._seen: dict[T, T] = {}

    def __call__(self, spec: T) -> T:
        found = self._seen.get(spec)
        if found is not None:
            return found
        if len(self._seen) >= _INTERN_MAX:
            self._seen.clear()
        self._seen[spec] = spec
        return spec


_intern_sandbox = _Interned[SandboxSpec]()
_intern_container = _Interned[ContainerSpec]()


def sandbox_spec(cfg: pb.PodSandboxConfig) -> SandboxSpec:
    """The typed spec of a PodSandboxConfig (checked by check_sandbox_config first)."""
    linux = cfg.linux
    ctx = linux.security_context
    return _intern_sandbox(SandboxSpec(
        dns_servers=tuple(cfg.dns_config.servers), dns_searches=tuple(cfg.dns_config.searches),
        dns_options=tuple(cfg.dns_config.options),
        port_mappings=tuple(PortMapping(m.protocol, m.container_port, m.host_port, m.host_ip)
                            for m in cfg.port_mappings),
        cgroup_parent=linux.cgroup_parent, sysctls=tuple(sorted(linux.sysctls.items())),
        namespaces=_namespaces(ctx.namespace_options), privileged=ctx.privileged,
        run_as_user=ctx.run_as_user.value if ctx.HasField("run_as_user") else None,
        run_as_group=ctx.run_as_group.value if ctx.HasField("run_as_group") else None,
        supplemental_groups=tuple(ctx.supplemental_groups), readonly_rootfs=ctx.readonly_rootfs,
        seccomp=_seccomp(ctx),
    ))


def _mount(m: pb.Mount) -> Mount:
    return Mount(container_path=m.container_path, host_path=m.host_path, readonly=m.readonly,
                 selinux_relabel=m.selinux_relabel, propagation=m.propagation, uid_mappings=_id_map(m.uidMappings),
                 gid_mappings=_id_map(m.gidMappings), recursive_read_only=m.recursive_read_only,
                 image=m.image.image if m.HasField("image") else "", image_sub_path=m.image_sub_path)


def container_spec(cfg: pb.ContainerConfig) -> ContainerSpec:
    """The typed spec of a ContainerConfig (checked by check_container_config first). Env values
    that are not UTF-8 keep their bytes as surrogate escapes."""
    ctx = cfg.linux.security_context
    return _intern_container(ContainerSpec(
        working_dir=cfg.working_dir,
        envs=tuple((kv.key, _text(kv.value)) for kv in cfg.envs),
        mounts=tuple(_mount(m) for m in cfg.mounts),
        stdin=cfg.stdin, stdin_once=cfg.stdin_once, tty=cfg.tty, stop_signal=cfg.stop_signal,
        privileged=ctx.privileged,
        add_capabilities=tuple(ctx.capabilities.add_capabilities),
        drop_capabilities=tuple(ctx.capabilities.drop_capabilities),
        add_ambient_capabilities=tuple(ctx.capabilities.add_ambient_capabilities),
        run_as_user=ctx.run_as_user.value if ctx.HasField("run_as_user") else None,
        run_as_group=ctx.run_as_group.value if ctx.HasField("run_as_group") else None,
        run_as_username=ctx.run_as_username,
        supplemental_groups=tuple(ctx.supplemental_groups),
        supplemental_groups_policy=ctx.supplemental_groups_policy,
        readonly_rootfs=ctx.readonly_rootfs, no_new_privs=ctx.no_new_privs,
        masked_paths=tuple(ctx.masked_paths), readonly_paths=tuple(ctx.readonly_paths),
        seccomp=_seccomp(ctx),
        namespaces=_namespaces(ctx.namespace_options) if ctx.HasField("namespace_options") else None,
    ))


# ---------------------------------------------------------------- resources


_RESOURCES_KEPT = 4096  # decoded resources kept by their wire bytes (the pods of one template share them)
_resources_seen: dict[bytes, Resources] = {}


def resources_from_pb(msg: pb.LinuxContainerResources) -> Resources:
    """The resources a message sets; decoded once per distinct message (Resources is frozen)."""
    key = msg.SerializeToString()
    res = _resources_seen.get(key)
    if res is None:
        if len(_resources_seen) >= _RESOURCES_KEPT:
            _resources_seen.clear()
        res = _resources_seen[key] = _decode_resources(msg)
    return res


def _decode_resources(msg: pb.LinuxContainerResources) -> Resources:
    return Resources(
        cpu_period=msg.cpu_period,
        cpu_quota=msg.cpu_quota,
        cpu_shares=msg.cpu_shares,
        memory_limit_in_bytes=msg.memory_limit_in_bytes,
        oom_score_adj=msg.oom_score_adj,
        cpuset_cpus=msg.cpuset_cpus,
        cpuset_mems=msg.cpuset_mems,
        hugepage_limits=tuple((h.page_size, h.limit) for h in msg.hugepage_limits),
        unified=tuple(sorted(msg.unified.items())),
        memory_swap_limit_in_bytes=msg.memory_swap_limit_in_bytes,
    )


# ---------------------------------------------------------------- checked and decoded, once per distinct config


def _holds_enums(field: FieldDescriptor) -> bool:
    return field.type == FieldDescriptor.TYPE_ENUM or (
        field.type == FieldDescriptor.TYPE_MESSAGE and _may_hold_enums(field.message_type))


def _keyed_parts_hold_every_enum() -> bool:
    """Whether every enum a ContainerConfig can hold is in the parts `_spec_key` is made of
    (mounts, linux.security_context, stop_signal): then a config whose key was checked once
    needs no enum check again."""
    for field in pb.ContainerConfig.DESCRIPTOR.fields:
        if field.name in ("mounts", "stop_signal"):
            continue
        if field.name == "linux":
            if any(_holds_enums(f) for f in field.message_type.fields if f.name != "security_context"):
                return False
        elif _holds_enums(field):
            return False
    return True


_SPEC_CACHE_SAFE = _keyed_parts_hold_every_enum()
_checked_specs: dict[tuple[Any, ...], ContainerSpec] = {}


def _spec_key(cfg: pb.ContainerConfig) -> tuple[Any, ...]:
    """Everything check_container_config and container_spec read of a config but the
    container's name (which only refusals show)."""
    return (cfg.linux.security_context.SerializeToString(), tuple(m.SerializeToString() for m in cfg.mounts),
            tuple((kv.key, kv.value) for kv in cfg.envs), cfg.working_dir, cfg.stop_signal,
            cfg.stdin, cfg.stdin_once, cfg.tty)


def checked_container_spec(cfg: pb.ContainerConfig) -> ContainerSpec:
    """check_container_config, then container_spec, done once per distinct key (`_spec_key`):
    a config equal in all but its name and the parts neither reads takes the spec decoded
    before. Only accepted configs are kept, so a refusal always names its own container."""
    if not _SPEC_CACHE_SAFE:
        check_container_config(cfg)
        return container_spec(cfg)
    key = _spec_key(cfg)
    spec = _checked_specs.get(key)
    if spec is None:
        check_container_config(cfg)
        spec = container_spec(cfg)
        if len(_checked_specs) >= _INTERN_MAX:
            _checked_specs.clear()
        _checked_specs[key] = spec
    return spec


def container_parts(cfg: pb.ContainerConfig) -> tuple[ContainerSpec, Resources]:
    """What CreateContainer decodes of its config, in one visit: the checked spec
    (`checked_container_spec`) and the resources (`resources_from_pb`)."""
    return checked_container_spec(cfg), resources_from_pb(cfg.linux.resources)


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value
