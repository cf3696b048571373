"""A runtime's whole state as JSON-able data, and back: for the state file.

`store_to_dict` writes; `read` checks a whole document and returns what it holds without
touching any runtime (InvalidArgument naming the first bad value), and `fill` puts what
`read` returned into an empty store. So a damaged file is refused whole.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fakecri.engine.codec import MAX_INT, from_data, to_data
from fakecri.engine.errors import InvalidArgument
from fakecri.engine.images import ImageStore
from fakecri.engine.ipam import parse_cidr
from fakecri.engine.records import STOP, WAKE, Container, ContainerState, RuntimeStore, Sandbox, SandboxState

VERSION = 2


@dataclass(frozen=True, slots=True)
class Loaded:
    pod_cidr: str
    last_event_ns: int
    sandboxes: tuple[Sandbox, ...]
    containers: tuple[Container, ...]
    timers: tuple[tuple[int, str, int, int], ...]  # (due_ns, container id, kind, offset)
    stopping: dict[str, tuple[int, int, str]]
    removed_cpu: dict[str, int]
    images: Mapping[str, Any]


def store_to_dict(store: RuntimeStore, images: ImageStore, runtime_handlers: Sequence[str],
                  now_ns: int) -> dict[str, Any]:
    timers = []
    for entry in store.timers.entries():
        if not store.is_stale(entry):
            due, _, cid, kind, offset = entry
            timers.append([cid, "stop" if kind == STOP else "wake", offset, due])
    return {
        "version": VERSION,
        "saved_at_ns": now_ns,
        "pod_cidr": store.ips.cidr,
        "runtime_handlers": list(runtime_handlers),
        "last_event_ns": store.last_event_ns,
        "sandboxes": [to_data(sb) for sb in store.sandboxes.values()],
        "containers": [to_data(c) for c in store.containers.values()],
        "timers": timers,  # deadlines on the runtime clock
        "stopping": {cid: [due, code, reason] for cid, (due, code, reason) in store.stopping.items()},
        "removed_cpu_ns": dict(store.removed_cpu),
        "images": images.to_dict(),
    }


def _int(value: Any, where: str, low: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= MAX_INT:
        raise InvalidArgument(f"{where}: expected an integer from {low}, got {value!r}")
    return value


def read(data: Any, now_ns: int) -> Loaded:
    """Everything a snapshot holds, checked: every record well-formed, ids unique, every
    container in a sandbox that lists it, every timer and stop for a running container,
    every time (and the time it was saved at) an integer from 0."""
    if not isinstance(data, Mapping):
        raise InvalidArgument("runtime snapshot: expected an object")
    if data.get("version") != VERSION:
        raise InvalidArgument(f"runtime snapshot: version {data.get('version')!r}, this fakecri reads {VERSION}")
    cidr = data.get("pod_cidr")
    if not isinstance(cidr, str):
        raise InvalidArgument("runtime snapshot: pod_cidr must be a string")
    parse_cidr(cidr)
    for key in ("sandboxes", "containers", "timers"):
        if not isinstance(data.get(key, []), list):
            raise InvalidArgument(f"runtime snapshot: {key} must be a list")
    sandboxes = tuple(from_data(Sandbox, d, f"sandboxes[{i}]") for i, d in enumerate(data.get("sandboxes", [])))
    containers = tuple(from_data(Container, d, f"containers[{i}]")
                       for i, d in enumerate(data.get("containers", [])))
    for i, rec in enumerate((*sandboxes, *containers)):
        kind, n = ("sandboxes", i) if i < len(sandboxes) else ("containers", i - len(sandboxes))
        for field in ("created_at", "started_at", "finished_at"):
            _int(getattr(rec, field, 0), f"{kind}[{n}].{field}")  # times are from the epoch on
    by_sandbox = {sb.id: sb for sb in sandboxes}
    by_container = {c.id: c for c in containers}
    if len(by_sandbox) != len(sandboxes) or len(by_container) != len(containers) or set(by_sandbox) & set(by_container):
        raise InvalidArgument("runtime snapshot: an id is used twice")
    keys: set[tuple[str, str, str, int]] = set()
    ips: set[str] = set()
    for sb in sandboxes:
        sandbox_key = (sb.name, sb.namespace, sb.uid, sb.attempt)
        if sandbox_key in keys:
            raise InvalidArgument(f"runtime snapshot: two sandboxes are {sb.namespace}/{sb.name} attempt {sb.attempt}")
        keys.add(sandbox_key)
        if sb.ip and sb.ip in ips:
            raise InvalidArgument(f"runtime snapshot: two sandboxes have the address {sb.ip}")
        ips.add(sb.ip)
        missing = [cid for cid in sb.container_ids if cid not in by_container]
        if missing:
            raise InvalidArgument(f"runtime snapshot: sandbox {sb.id} lists container {missing[0]}, which is absent")
        if len(set(sb.container_ids)) != len(sb.container_ids):
            raise InvalidArgument(f"runtime snapshot: sandbox {sb.id} lists a container twice")
    container_keys: set[tuple[str, str, int]] = set()
    for c in containers:
        owner = by_sandbox.get(c.sandbox_id)
        if owner is None or c.id not in owner.container_ids:
            raise InvalidArgument(f"runtime snapshot: container {c.id} is in no sandbox that lists it")
        if (c.sandbox_id, c.name, c.attempt) in container_keys:
            raise InvalidArgument(f"runtime snapshot: two containers are {c.name} attempt {c.attempt} in {owner.id}")
        container_keys.add((c.sandbox_id, c.name, c.attempt))
        if c.state == ContainerState.RUNNING and owner.state != SandboxState.READY:
            raise InvalidArgument(f"runtime snapshot: container {c.id} runs in sandbox {owner.id}, which is not ready")

    def running(cid: Any, where: str) -> str:
        c = by_container.get(cid) if isinstance(cid, str) else None
        if c is None or c.state != ContainerState.RUNNING:
            raise InvalidArgument(f"runtime snapshot: {where} is for {cid!r}, which is not a running container")
        return c.id

    timers = []
    for i, t in enumerate(data.get("timers", [])):
        if not isinstance(t, list) or len(t) != 4 or t[1] not in ("stop", "wake"):
            raise InvalidArgument(f"runtime snapshot: timers[{i}] must be [container, stop|wake, offset, due]")
        timers.append((_int(t[3], f"timers[{i}] due"), running(t[0], f"timers[{i}]"),
                       STOP if t[1] == "stop" else WAKE, _int(t[2], f"timers[{i}] offset")))
    stopping = {}
    raw_stopping = data.get("stopping", {})
    if not isinstance(raw_stopping, Mapping):
        raise InvalidArgument("runtime snapshot: stopping must be an object")
    for cid, value in raw_stopping.items():
        if not isinstance(value, list) or len(value) != 3 or not isinstance(value[2], str):
            raise InvalidArgument(f"runtime snapshot: stopping[{cid!r}] must be [due, exit code, reason]")
        stopping[running(cid, f"stopping[{cid!r}]")] = (_int(value[0], "stopping due"),
                                                        _int(value[1], "stopping exit code"), value[2])
    removed = data.get("removed_cpu_ns", {})
    if not isinstance(removed, Mapping):
        raise InvalidArgument("runtime snapshot: removed_cpu_ns must be an object")
    removed_cpu = {str(k): _int(v, f"removed_cpu_ns[{k!r}]") for k, v in removed.items()}
    _int(data.get("saved_at_ns", 0), "saved_at_ns")
    return Loaded(pod_cidr=cidr, last_event_ns=_int(data.get("last_event_ns", 0), "last_event_ns"),
                  sandboxes=sandboxes, containers=containers, timers=tuple(timers), stopping=stopping,
                  removed_cpu=removed_cpu, images=data.get("images", {"images": []}))


def fill(store: RuntimeStore, loaded: Loaded) -> None:
    """Put a `read` snapshot into an empty store."""
    store.ips.set_cidr(loaded.pod_cidr)
    store.last_event_ns = loaded.last_event_ns
    for sb in loaded.sandboxes:
        store.sandboxes[sb.id] = sb
        store.sandbox_keys[(sb.name, sb.namespace, sb.uid, sb.attempt)] = sb.id
        store.ips.claim(sb.ip)
    for c in loaded.containers:
        store.containers[c.id] = c
        store.container_keys[(c.sandbox_id, c.name, c.attempt)] = c.id
        if c.state == ContainerState.RUNNING:
            store.running += 1
    store.stopping.update(loaded.stopping)
    store.removed_cpu.update(loaded.removed_cpu)
    for due, cid, kind, offset in loaded.timers:
        store.timers.push(due, cid, kind, offset)
