"""Records and whole runtimes to JSON-able dicts and back (spec bytes as base64).

Used by the state file (`Runtime.to_dict` / `from_dict`, over the runtime's store) and by checkpoints.
"""
from __future__ import annotations

import base64
from typing import Any, Mapping, Sequence

from fakecri.engine import resources as res_mod
from fakecri.engine.records import Container, ContainerState, Sandbox, SandboxState
from fakecri.engine.store import RuntimeStore
from fakecri.engine.timers import STOP, WAKE


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii")) if text else b""


def sandbox_to_dict(sb: Sandbox) -> dict[str, Any]:
    return {
        "id": sb.id, "name": sb.name, "namespace": sb.namespace, "uid": sb.uid, "attempt": sb.attempt,
        "state": sb.state.name, "created_at": sb.created_at, "labels": dict(sb.labels),
        "annotations": dict(sb.annotations), "hostname": sb.hostname, "log_directory": sb.log_directory,
        "runtime_handler": sb.runtime_handler, "ip": sb.ip, "additional_ips": list(sb.additional_ips),
        "spec": _b64(sb.spec),
        "overhead": res_mod.to_dict(sb.overhead) if sb.overhead is not None else None,
        "resources": res_mod.to_dict(sb.resources) if sb.resources is not None else None,
        "container_ids": list(sb.container_ids),
    }


def sandbox_from_dict(d: dict[str, Any]) -> Sandbox:
    return Sandbox(
        id=d["id"], name=d["name"], namespace=d["namespace"], uid=d["uid"], attempt=d["attempt"],
        state=SandboxState[d["state"]], created_at=d["created_at"], labels=dict(d["labels"]),
        annotations=dict(d["annotations"]), hostname=d.get("hostname", ""),
        log_directory=d.get("log_directory", ""), runtime_handler=d.get("runtime_handler", ""),
        ip=d.get("ip", ""), additional_ips=tuple(d.get("additional_ips", ())), spec=_unb64(d.get("spec", "")),
        overhead=res_mod.from_dict(d["overhead"]) if d.get("overhead") is not None else None,
        resources=res_mod.from_dict(d["resources"]) if d.get("resources") is not None else None,
        container_ids=list(d.get("container_ids", ())),
    )


def container_to_dict(c: Container) -> dict[str, Any]:
    return {
        "id": c.id, "sandbox_id": c.sandbox_id, "name": c.name, "attempt": c.attempt, "state": c.state.name,
        "created_at": c.created_at, "image": c.image, "image_ref": c.image_ref, "image_id": c.image_id,
        "labels": dict(c.labels), "annotations": dict(c.annotations), "command": list(c.command),
        "args": list(c.args), "log_path": c.log_path, "resources": res_mod.to_dict(c.resources),
        "spec": _b64(c.spec), "started_at": c.started_at, "finished_at": c.finished_at,
        "exit_code": c.exit_code, "reason": c.reason, "message": c.message,
    }


def container_from_dict(d: dict[str, Any]) -> Container:
    return Container(
        id=d["id"], sandbox_id=d["sandbox_id"], name=d["name"], attempt=d["attempt"],
        state=ContainerState[d["state"]], created_at=d["created_at"], image=d["image"],
        image_ref=d["image_ref"], image_id=d["image_id"], labels=dict(d["labels"]),
        annotations=dict(d["annotations"]), command=tuple(d.get("command", ())), args=tuple(d.get("args", ())),
        log_path=d.get("log_path", ""), resources=res_mod.from_dict(d.get("resources", {})),
        spec=_unb64(d.get("spec", "")), started_at=d.get("started_at", 0), finished_at=d.get("finished_at", 0),
        exit_code=d.get("exit_code", 0), reason=d.get("reason", ""), message=d.get("message", ""),
    )


def store_to_dict(store: RuntimeStore, runtime_handlers: Sequence[str], now_ns: int) -> dict[str, Any]:
    """A runtime's state as JSON-able data; pending timers are kept as time left from `now_ns`."""
    timers = []
    for entry in store.timers.entries():
        if not store.is_stale(entry) and entry[3] in (STOP, WAKE):  # live input is not kept
            due, _, cid, kind, offset = entry
            timers.append([cid, "stop" if kind == STOP else "wake", offset, due - now_ns])
    return {
        "version": 1,
        "saved_at_ns": now_ns,  # timers are kept as time left from this instant of the runtime clock
        "pod_cidr": store.ips.cidr,
        "runtime_handlers": list(runtime_handlers),
        "last_event_ns": store.last_event_ns,
        "sandboxes": [sandbox_to_dict(sb) for sb in store.sandboxes.values()],
        "containers": [container_to_dict(c) for c in store.containers.values()],
        "timers": timers,
        "stopping": {cid: [due - now_ns, code, reason] for cid, (due, code, reason) in store.stopping.items()},
        "removed_cpu_ns": dict(store.removed_cpu),
    }


def load_store(store: RuntimeStore, data: Mapping[str, Any], now_ns: int) -> None:
    """Fill an empty store from `store_to_dict` output. Deadlines stay where they were on the
    runtime clock: the time since the snapshot (a downtime included) counts, and what fell due
    meanwhile fires at the next tick, dated when it fell due, as a process that kept running
    under its shim would have exited then. (Snapshots without `saved_at_ns` count from `now_ns`.)"""
    if data.get("pod_cidr"):
        store.ips.set_cidr(data["pod_cidr"])  # the CIDR in force (UpdateRuntimeConfig) beats the default
    store.last_event_ns = data.get("last_event_ns", 0)
    saved_at = data.get("saved_at_ns", now_ns)
    for d in data.get("sandboxes", ()):
        sb = sandbox_from_dict(d)
        store.sandboxes[sb.id] = sb
        store.sandbox_keys[(sb.name, sb.namespace, sb.uid, sb.attempt)] = sb.id
        store.ips.claim(sb.ip)
    for d in data.get("containers", ()):
        c = container_from_dict(d)
        store.containers[c.id] = c
        store.container_keys[(c.sandbox_id, c.name, c.attempt)] = c.id
        if c.state == ContainerState.RUNNING:
            store.running += 1
    for cid, (remaining, code, reason) in data.get("stopping", {}).items():
        store.stopping[cid] = (saved_at + remaining, code, reason)
    store.removed_cpu.update(data.get("removed_cpu_ns", {}))
    for cid, kind, offset, remaining in data.get("timers", ()):
        store.timers.push(saved_at + remaining, cid, STOP if kind == "stop" else WAKE, offset)
