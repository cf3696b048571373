"""Refusals a real runtime makes on sandbox and container configs, before anything is created.

Each raises InvalidArgument naming the object and the field, as containerd refuses:
- a group (run_as_group) without a user (run_as_user or run_as_username);
- user-namespace options it cannot honour: modes CONTAINER and TARGET, mappings with
  mode NODE, and for mode POD anything but one uid and one gid mapping that map
  container id 0;
- recursive read-only mounts that are not read-only or do not use private propagation.
"""
from __future__ import annotations

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.errors import InvalidArgument


def _group_needs_user(ctx, what: str) -> None:
    if ctx.HasField("run_as_group") and not (ctx.HasField("run_as_user") or getattr(ctx, "run_as_username", "")):
        raise InvalidArgument(f"{what}: run_as_group is set without run_as_user or run_as_username")


def _mappings(kind: str, mappings, what: str) -> None:
    if len(mappings) != 1:
        raise InvalidArgument(
            f"{what}: user namespace mode POD needs exactly one {kind} mapping, got {len(mappings)}"
        )
    m = mappings[0]
    if m.container_id != 0:
        raise InvalidArgument(f"{what}: the {kind} mapping must map container id 0 (it starts at {m.container_id})")
    if m.length == 0:
        raise InvalidArgument(f"{what}: the {kind} mapping has length 0")


def _userns(ns: pb.NamespaceOption, what: str) -> None:
    if not ns.HasField("userns_options"):
        return
    opts = ns.userns_options
    mode = pb.NamespaceMode.Name(opts.mode)
    if opts.mode == pb.NODE:
        if opts.uids or opts.gids:
            raise InvalidArgument(f"{what}: user namespace mode NODE takes no uid or gid mappings")
        return
    if opts.mode != pb.POD:
        raise InvalidArgument(f"{what}: user namespace mode {mode} is not supported (only POD and NODE)")
    _mappings("uid", opts.uids, what)
    _mappings("gid", opts.gids, what)


def check_sandbox_config(cfg: pb.PodSandboxConfig) -> None:
    what = f"RunPodSandbox {cfg.metadata.name!r}"
    ctx = cfg.linux.security_context
    _group_needs_user(ctx, what)
    _userns(ctx.namespace_options, what)


def check_container_config(cfg: pb.ContainerConfig) -> None:
    what = f"CreateContainer {cfg.metadata.name!r}"
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
