"""Engine records (and the specs they carry) to protobuf messages, and resources both ways. Pure functions.

The servicers call these (and server/codec/configs.py for the configs); nothing else touches
both protobuf and the engine's records.
"""
from __future__ import annotations

import base64
import json

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.codec import to_data
from fakecri.engine.records import Container, ContainerState, Image, Resources, RunAs, Sandbox
from fakecri.engine.specs import STRICT, IdMap, Mount, Namespaces
from fakecri.sim.image_content import BUSYBOX, ImageContent
from fakecri.sim.userland.identity import identity

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


def resources_to_pb(res: Resources) -> pb.LinuxContainerResources:
    return pb.LinuxContainerResources(
        cpu_period=res.cpu_period,
        cpu_quota=res.cpu_quota,
        cpu_shares=res.cpu_shares,
        memory_limit_in_bytes=res.memory_limit_in_bytes,
        oom_score_adj=res.oom_score_adj,
        cpuset_cpus=res.cpuset_cpus,
        cpuset_mems=res.cpuset_mems,
        hugepage_limits=[pb.HugepageLimit(page_size=p, limit=n) for p, n in res.hugepage_limits],
        unified=dict(res.unified),
        memory_swap_limit_in_bytes=res.memory_swap_limit_in_bytes,
    )


# ---------------------------------------------------------------- sandboxes


def sandbox_item(sb: Sandbox) -> pb.PodSandbox:
    return pb.PodSandbox(
        id=sb.id,
        metadata=pb.PodSandboxMetadata(name=sb.name, namespace=sb.namespace, uid=sb.uid, attempt=sb.attempt),
        state=int(sb.state),  # type: ignore[arg-type]
        created_at=sb.created_at,
        labels=sb.labels,
        annotations=sb.annotations,
        runtime_handler=sb.runtime_handler,
    )


def sandbox_status(sb: Sandbox) -> pb.PodSandboxStatus:
    return pb.PodSandboxStatus(
        id=sb.id,
        metadata=pb.PodSandboxMetadata(name=sb.name, namespace=sb.namespace, uid=sb.uid, attempt=sb.attempt),
        state=int(sb.state),  # type: ignore[arg-type]
        created_at=sb.created_at,
        network=pb.PodSandboxNetworkStatus(
            ip=sb.ip, additional_ips=[pb.PodIP(ip=ip) for ip in sb.additional_ips]
        ),
        linux=pb.LinuxPodSandboxStatus(namespaces=pb.Namespace(options=namespaces_to_pb(sb.spec.namespaces))),
        labels=sb.labels,
        annotations=sb.annotations,
        runtime_handler=sb.runtime_handler,
    )


def sandbox_info(sb: Sandbox) -> dict[str, str]:
    """The `verbose` info map: one JSON document, as containerd returns under "info"."""
    doc = {
        "id": sb.id,
        "state": sb.state.name,
        "hostname": sb.hostname,
        "logDirectory": sb.log_directory,
        "runtimeHandler": sb.runtime_handler,
        "ip": sb.ip,
        "containers": list(sb.container_ids),
        "runtime": "fakecri",
        # PodSandboxStatus has no field for what UpdatePodSandboxResources set: report it here.
        "resources": to_data(sb.resources) if sb.resources else None,
        "overhead": to_data(sb.overhead) if sb.overhead else None,
    }
    return {"info": json.dumps(doc, sort_keys=True)}


# ---------------------------------------------------------------- containers


def _image_spec(c: Container) -> pb.ImageSpec:
    return pb.ImageSpec(image=c.image, user_specified_image=c.image)


def container_item(c: Container) -> pb.Container:
    return pb.Container(
        id=c.id,
        pod_sandbox_id=c.sandbox_id,
        metadata=pb.ContainerMetadata(name=c.name, attempt=c.attempt),
        image=_image_spec(c),
        image_ref=c.image_ref,
        state=int(c.state),  # type: ignore[arg-type]
        created_at=c.created_at,
        labels=c.labels,
        annotations=c.annotations,
        image_id=c.image_id,
    )


def container_status(c: Container, content: ImageContent | None = None, image_tag: str = "") -> pb.ContainerStatus:
    """The user is the one settled at the container's creation (`c.user`); only a record of an
    older fakecri, which has none, takes it from `content`, what is inside its image (its user
    and account files). `image_tag`: the image's first repo tag now, which containerd reports
    as the status's image (the kubelet creates containers by image id, and shows this in
    `containerStatuses[].image`); without one, the image as the config named it."""
    spec = c.spec
    runs_as = c.user
    if runs_as is None:
        who = identity(content or BUSYBOX, run_as_user=spec.run_as_user, run_as_group=spec.run_as_group,
                       run_as_username=spec.run_as_username, supplemental_groups=spec.supplemental_groups,
                       strict=spec.supplemental_groups_policy == STRICT)
        runs_as = RunAs(who.uid, who.gid, who.supplemental)
    user = pb.ContainerUser(linux=pb.LinuxContainerUser(uid=runs_as.uid, gid=runs_as.gid,
                                                        supplemental_groups=list(runs_as.supplemental_groups)))
    return pb.ContainerStatus(
        id=c.id,
        metadata=pb.ContainerMetadata(name=c.name, attempt=c.attempt),
        state=int(c.state),  # type: ignore[arg-type]
        created_at=c.created_at,
        started_at=c.started_at,
        finished_at=c.finished_at,
        exit_code=c.exit_code,
        image=pb.ImageSpec(image=image_tag) if image_tag else _image_spec(c),
        image_ref=c.image_ref,
        reason=c.reason,
        message=c.message,
        labels=c.labels,
        annotations=c.annotations,
        mounts=[mount_to_pb(m) for m in spec.mounts],
        log_path=c.log_path,
        resources=pb.ContainerResources(linux=resources_to_pb(c.resources)),
        image_id=c.image_id,
        user=user,
        stop_signal=spec.stop_signal,  # type: ignore[arg-type]
    )


def container_info(c: Container) -> dict[str, str]:
    doc = {
        "id": c.id,
        "sandboxID": c.sandbox_id,
        "state": ContainerState(c.state).name,
        "command": list(c.command),
        "args": list(c.args),
        "logPath": c.log_path,
        "image": c.image,
        "imageID": c.image_id,
        "runtime": "fakecri",
        "envs": [_env_item(k, v) for k, v in c.spec.envs],
    }
    return {"info": json.dumps(doc, sort_keys=True)}


def _env_item(key: str, value: str) -> dict[str, str]:
    """One env variable for the verbose info. KeyValue.value is bytes; a value that is not
    UTF-8 cannot be a JSON string, so it goes as `valueBase64` (its exact bytes)."""
    raw = value.encode("utf-8", "surrogateescape")
    try:
        return {"name": key, "value": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"name": key, "valueBase64": base64.b64encode(raw).decode("ascii")}


# ---------------------------------------------------------------- images


def image_item(img: Image) -> pb.Image:
    msg = pb.Image(
        id=img.id,
        repo_tags=img.repo_tags,
        repo_digests=img.repo_digests,
        size=img.size,
        username=img.username,
        pinned=img.pinned,
        spec=pb.ImageSpec(image=img.id),
    )
    if img.uid is not None:
        msg.uid.value = img.uid
    return msg


def image_info(img: Image) -> dict[str, str]:
    doc = {"id": img.id, "repoTags": img.repo_tags, "repoDigests": img.repo_digests, "size": img.size}
    return {"info": json.dumps(doc, sort_keys=True)}


# ---------------------------------------------------------------- the specs back as messages


def _id_mappings(m: IdMap) -> list[pb.IDMapping]:
    return [pb.IDMapping(container_id=c, host_id=h, length=n) for c, h, n in m]


def mount_to_pb(m: Mount) -> pb.Mount:
    msg = pb.Mount(container_path=m.container_path, host_path=m.host_path, readonly=m.readonly,
                   selinux_relabel=m.selinux_relabel, propagation=m.propagation,  # type: ignore[arg-type]
                   uidMappings=_id_mappings(m.uid_mappings), gidMappings=_id_mappings(m.gid_mappings),
                   recursive_read_only=m.recursive_read_only, image_sub_path=m.image_sub_path)
    if m.image:
        msg.image.image = m.image
    return msg


def namespaces_to_pb(ns: Namespaces) -> pb.NamespaceOption:
    msg = pb.NamespaceOption(network=ns.network, pid=ns.pid, ipc=ns.ipc,  # type: ignore[arg-type]
                             target_id=ns.target_id)
    if ns.userns is not None:
        msg.userns_options.CopyFrom(pb.UserNamespace(mode=ns.userns.mode,  # type: ignore[arg-type]
                                                     uids=_id_mappings(ns.userns.uids),
                                                     gids=_id_mappings(ns.userns.gids)))
    return msg
