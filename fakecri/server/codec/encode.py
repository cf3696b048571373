"""Protobuf out: engine records (and the specs they carry) as runtime.v1 messages and wire bytes.

Three parts, each used by the servicers, the event encoder and the state file alike:

- the wire: hand-assembled protobuf bytes for the list calls. A repeated message field on
  the wire is a run of (tag, length, bytes) fragments, so a list response can be the
  concatenation of per-item fragments cached per record (`FragmentCache`, `VersionedCache`).
  That avoids building thousands of messages per call (about 5 us an item) and leaves only
  the join (well under 0.1 us an item);
- the builders: pure functions from a record to its message (items, statuses, the verbose
  info, mounts and namespaces back from the specs, resources);
- the statuses: each ContainerStatus and PodSandboxStatus serialized once per record
  (`StatusCache`), and which containers a sandbox status or an event lists, in what order.

PodSandboxStatus, ContainerStatus and every container event carry the same statuses; they
are built here once per record (records are frozen, so a changed record is a new key) and
reused as wire bytes. Quirks that change what a sandbox status answer holds
(`timestamp-without-statuses`, `pod-wide-container-statuses`,
`oldest-first-container-statuses`) act here too, each through its module of
fakecri.faults.quirk_kinds, and only when a quirk is in force.

PodSandboxStatusResponse.containers_statuses and ContainerEventResponse.containers_statuses
list the containers of a sandbox (or, with the pod-wide quirk, of the whole pod) newest
first, by (created_at, attempt), as CRI-O does. The order matters to a kubelet with the
EventedPLEG gate on: when PodSandboxStatus carries a timestamp it copies that list into
its pod cache without sorting it, then picks the first status with a container's name
as that container's latest attempt (kubernetes/kubernetes#129857 asks runtimes to fill
the list; nothing says in which order). An oldest-first list makes it recreate an
attempt that already exists, forever; the `oldest-first-container-statuses` quirk
restores that order to show it.
"""
from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from google.protobuf.message import Message

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.codec import to_data
from fakecri.engine.records import Container, ContainerState, Event, EventType, Image, Resources, RunAs, Sandbox
from fakecri.engine.runtime import Runtime
from fakecri.engine.specs import STRICT, IdMap, Mount, Namespaces
from fakecri.faults.quirk_kinds import (
    oldest_first_container_statuses,
    pod_wide_container_statuses,
    timestamp_without_statuses,
)
from fakecri.faults.quirks import Quirk
from fakecri.sim.image_content import BUSYBOX, ImageContent
from fakecri.sim.userland.identity import identity

# ---------------------------------------------------------------- the wire


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_fragment(field_number: int, payload: bytes) -> bytes:
    """One length-delimited field: tag, length, payload."""
    return varint((field_number << 3) | 2) + varint(len(payload)) + payload


def batches(fragments: list[bytes], size: int, max_bytes: int | None = None) -> Iterable[bytes]:
    """Group fragments into messages of at most `size` items and `max_bytes` bytes (Stream*)."""
    for i in range(0, len(fragments), size):
        yield from _within(fragments[i : i + size], b"".join(fragments[i : i + size]), max_bytes)


def _within(parts: list[bytes], joined: bytes, max_bytes: int | None) -> Iterable[bytes]:
    """`joined` (the join of `parts`) if it fits in `max_bytes`, else greedy smaller joins.
    A single fragment over the limit still goes alone; gRPC then refuses it."""
    if max_bytes is None or len(joined) <= max_bytes:
        yield joined
        return
    chunk: list[bytes] = []
    used = 0
    for frag in parts:
        if chunk and used + len(frag) > max_bytes:
            yield b"".join(chunk)
            chunk, used = [], 0
        chunk.append(frag)
        used += len(frag)
    if chunk:
        yield b"".join(chunk)


class FragmentCache:
    """Each record's list item as wire bytes (field 1 of a list reply), built once per record.

    Records are frozen and compare by identity, so a record that changed is a new key and
    the old one's fragment is simply never asked for again; `every` drops those whenever it
    finds a change.
    """

    # Fragments `of` may add beyond twice the records `every` last saw: filtered lists alone (a
    # kubelet asking pod by pod) never prune, and each change makes a new record to key on.
    SLACK = 4096

    def __init__(self, build: Callable[[Any], Message]) -> None:
        self._build = build
        self._frags: dict[object, bytes] = {}
        self._seen = 0  # how many records the last `every` listed

    def of(self, record: object) -> bytes:
        frag = self._frags.get(record)
        if frag is None:
            if len(self._frags) >= 2 * self._seen + self.SLACK:
                self._frags.clear()  # start over: the replaced records go with their fragments
            frag = self._frags[record] = field_fragment(1, self._build(record).SerializeToString())
        return frag

    def every(self, records: list[Any]) -> list[bytes]:
        """The fragments of `records`, in order (the relist path: one C pass when all are built)."""
        found = list(map(self._frags.get, records))
        if None not in found:
            return found  # type: ignore[return-value]  # every one was there
        of = self.of
        frags = [f if f is not None else of(r) for f, r in zip(found, records, strict=True)]
        # Something changed: keep only the records of now, so replaced ones are let go.
        self._frags = dict(zip(records, frags, strict=True))
        self._seen = len(records)
        return frags

    def clear(self) -> None:
        self._frags.clear()


class VersionedCache:
    """The last answer per key, reused while the version it was made at is current (the
    engine's change counter): a relist that finds nothing changed costs one comparison."""

    def __init__(self, limit: int) -> None:
        self.limit = limit  # answers larger than this (bytes in all) are not kept
        self._last: dict[str, tuple[int, Any]] = {}

    def get(self, key: str, version: int) -> Any:
        hit = self._last.get(key)
        return hit[1] if hit is not None and hit[0] == version else None

    def put(self, key: str, version: int, value: bytes | list[bytes]) -> None:
        size = len(value) if isinstance(value, bytes) else sum(map(len, value))
        if size <= self.limit:
            self._last[key] = (version, value)
        else:
            self._last.pop(key, None)

    def clear(self) -> None:
        self._last.clear()


# ---------------------------------------------------------------- resources


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


# ---------------------------------------------------------------- the statuses, once per record


# Serialized statuses kept, by record. Bounded: at most this many, then it starts over.
STATUS_CACHE_MAX = 4096
_UNKNOWN = object()  # an image an event's images do not hold (not the same as one the store had lost)


class StatusCache:
    def __init__(self, runtime: Runtime, content_of: Callable[[Container], ImageContent]) -> None:
        """`content_of`: what is inside a container's image (its user, its account files), asked
        only for a container record without the user settled at its creation."""
        self.runtime = runtime
        self.content_of = content_of
        self._entries: dict[object, bytes] = {}

    def _cached(self, rec: Any, build: Callable[[Any], Any]) -> bytes:
        data = self._entries.get(rec)
        if data is None:
            data = build(rec).SerializeToString()
            if len(self._entries) >= STATUS_CACHE_MAX:
                self._entries.clear()
            self._entries[rec] = data
        return data

    def clear(self) -> None:
        self._entries.clear()

    def image_tag(self, c: Container, images: Mapping[str, Image | None] | None = None) -> str:
        """The first repo tag of the container's image ("" when it has none, or is gone): as
        `images` has it (an event's, taken at its moment) when it holds the image, else as
        the image store has it now."""
        img = images.get(c.image_id, _UNKNOWN) if images is not None else _UNKNOWN
        if img is _UNKNOWN:
            img = self.runtime.images.get(c.image_id)
        return img.repo_tags[0] if isinstance(img, Image) and img.repo_tags else ""

    def _status(self, c: Container, tag: str) -> pb.ContainerStatus:
        # The user was settled at creation; a record of an older fakecri has none: its image's content says.
        return container_status(c, self.content_of(c) if c.user is None else None, tag)

    def container_status(self, c: Container) -> pb.ContainerStatus:
        return self._status(c, self.image_tag(c))

    def container_status_bytes(self, c: Container, images: Mapping[str, Image | None] | None = None) -> bytes:
        tag = self.image_tag(c, images)
        key = (c, tag) if tag else c
        return self._cached(key, lambda key: self._status(c, tag))

    def sandbox_status_bytes(self, sb: Sandbox) -> bytes:
        return self._cached(sb, sandbox_status)

    def container_statuses_wire(self, sb: Sandbox, containers: Sequence[Container], quirks: frozenset[Quirk],
                                images: Mapping[str, Image | None] | None = None) -> list[bytes]:
        """The serialized statuses of the sandbox's containers (the pod's, with the pod-wide
        quirk), newest first (see `listed_containers`); `images` as for `image_tag`."""
        return [self.container_status_bytes(c, images)
                for c in listed_containers(self.runtime, sb, containers, quirks)]

    def event_response(self, ev: Event, event_type: EventType, created_at: int, quirks: frozenset[Quirk],
                       with_statuses: bool) -> bytes:
        """ContainerEventResponse bytes for `ev` (its type and time as the encoder gives them): the
        head, then pod_sandbox_status (4) and containers_statuses (5) appended as wire fragments
        of the cached statuses (the same bytes SerializeToString would give, fields in number
        order), unless `with_statuses` is false or the event carries no sandbox."""
        head: bytes = pb.ContainerEventResponse(
            container_id=ev.container_id, container_event_type=int(event_type), created_at=created_at  # type: ignore[arg-type]
        ).SerializeToString()
        if ev.sandbox is None or not with_statuses:
            return head
        statuses = self.container_statuses_wire(ev.sandbox, ev.containers, quirks, ev.images)
        return b"".join([head, field_fragment(4, self.sandbox_status_bytes(ev.sandbox)),
                         *[field_fragment(5, b) for b in statuses]])

    def _own(self, sb: Sandbox) -> list[Container]:
        return self.runtime.list_containers(sandbox_id=sb.id)

    def sandbox_status_wire(self, sb: Sandbox, quirks: frozenset[Quirk], now_ns: int) -> bytes:
        """PodSandboxStatusResponse (non-verbose) as wire bytes: status (1), containers_statuses (3),
        timestamp (4), set together as sandbox_status_response() does."""
        parts = [field_fragment(1, self.sandbox_status_bytes(sb))]
        if not (quirks and timestamp_without_statuses.omits_statuses(quirks)):
            parts += [field_fragment(3, b) for b in self.container_statuses_wire(sb, self._own(sb), quirks)]
        if now_ns > 0:
            parts.append(b"\x20" + varint(now_ns))
        return b"".join(parts)

    def sandbox_status_response(self, sb: Sandbox, quirks: frozenset[Quirk],
                                now_ns: int) -> pb.PodSandboxStatusResponse:
        """The verbose answer as a message: PodSandboxStatus sets `timestamp` and
        `containers_statuses` together."""
        resp = pb.PodSandboxStatusResponse(status=sandbox_status(sb), timestamp=now_ns)
        if not (quirks and timestamp_without_statuses.omits_statuses(quirks)):
            resp.containers_statuses.extend(
                self.container_status(c)
                for c in listed_containers(self.runtime, sb, self._own(sb), quirks))
        return resp


def newest_first(containers: Iterable[Container]) -> list[Container]:
    """Container records newest first: by created_at, then attempt, then id (for ties)."""
    return sorted(containers, key=lambda c: (c.created_at, c.attempt, c.id), reverse=True)


def listed_containers(runtime: Runtime, sb: Sandbox, containers: Sequence[Container],
                      quirks: frozenset[Quirk]) -> list[Container]:
    """The container records a status of sandbox `sb` lists, in order. `containers` are the
    sandbox's own (as of the moment the status describes); the pod-wide quirk adds those of
    the pod's other sandboxes as they are now."""
    if not quirks:  # none in force: the sandbox's own, newest first, no quirk module asked
        return newest_first(list(containers))
    found = pod_wide_container_statuses.listed(sb, containers, quirks, runtime)
    return oldest_first_container_statuses.ordered(found, quirks, newest_first)
