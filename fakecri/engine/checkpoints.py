"""Checkpoints of containers and pods as JSON-able documents, and replaying them.

The server writes the document into the archive at the location CRI names and reads it
back; `Runtime.checkpoint_*` and `Runtime.restore_pod` come here, and this module uses
only the runtime's public operations.
"""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from fakecri.engine.clock import Clock
from fakecri.engine.codec import from_data, to_data
from fakecri.engine.errors import InvalidArgument
from fakecri.engine.records import Container, ContainerState, Sandbox
from fakecri.engine.transitions import path_for


class Runtime(Protocol):
    """The runtime operations a checkpoint reads and a restore replays (all public ones of
    fakecri.engine.runtime.Runtime)."""

    clock: Clock

    def get_sandbox(self, sid: str) -> Sandbox: ...

    def get_container(self, cid: str) -> Container: ...

    @property
    def run_pod_sandbox(self) -> Callable[..., Sandbox]: ...

    def restore_container(self, sid: str, old: Container, log_path: str) -> Container: ...

    def start_container(self, cid: str) -> None: ...

    def remove_pod_sandbox(self, sid: str) -> None: ...

# Sandbox settings a restore may override (RestorePod's config), and their record fields.
OVERRIDABLE = ("name", "namespace", "uid", "attempt", "labels", "annotations", "log_directory", "runtime_handler",
               "spec")


def container_document(sb: Sandbox, c: Container, now_ns: int) -> dict[str, Any]:
    return {"kind": "container", "checkpointed_at": now_ns, "sandbox": to_data(sb), "container": to_data(c)}


def pod_document(sb: Sandbox, containers: Sequence[Container], now_ns: int) -> dict[str, Any]:
    return {"kind": "pod", "checkpointed_at": now_ns, "sandbox": to_data(sb),
            "containers": [to_data(c) for c in containers]}


def read(data: Any) -> tuple[Sandbox, list[Container]]:
    """The sandbox and containers of a document; InvalidArgument naming what is wrong."""
    if not isinstance(data, Mapping) or data.get("kind") not in ("pod", "container") or "sandbox" not in data:
        raise InvalidArgument("restore: the data is not a fakecri pod or container checkpoint")
    sb = from_data(Sandbox, data["sandbox"], "checkpoint sandbox")
    if data["kind"] == "pod":
        items = data.get("containers")
        if not isinstance(items, list):
            raise InvalidArgument("restore: checkpoint containers must be a list")
    else:
        items = [data.get("container")]
    return sb, [from_data(Container, d, f"checkpoint containers[{i}]") for i, d in enumerate(items)]


def sandbox_settings(old: Sandbox, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of `Runtime.run_pod_sandbox` for the restored sandbox: the checkpoint's
    settings, with each override that is not None in their place."""
    unknown = set(overrides) - set(OVERRIDABLE)
    if unknown:
        raise TypeError(f"restore_pod: unknown override {sorted(unknown)[0]!r}")
    out: dict[str, Any] = {
        "name": old.name, "namespace": old.namespace, "uid": old.uid, "attempt": old.attempt,
        "labels": old.labels, "annotations": old.annotations, "hostname": old.hostname,
        "log_directory": old.log_directory, "runtime_handler": old.runtime_handler, "spec": old.spec,
        "resources": old.resources, "overhead": old.overhead,
    }
    out.update({k: v for k, v in overrides.items() if v is not None})
    return out


def checkpoint_container(rt: Runtime, cid: str) -> dict[str, Any]:
    c = rt.get_container(cid)
    path_for("container", c.id, "checkpoint", c.state)
    return container_document(rt.get_sandbox(c.sandbox_id), c, rt.clock.now_ns())


def checkpoint_pod(rt: Runtime, sid: str, container_ids: Sequence[str]) -> dict[str, Any]:
    sb = rt.get_sandbox(sid)
    path_for("sandbox", sb.id, "checkpoint", sb.state)
    chosen = []
    for cid in container_ids or sb.container_ids:
        c = rt.get_container(cid)
        if c.sandbox_id != sb.id:
            raise InvalidArgument(f"container {c.id} is not in sandbox {sb.id}")
        chosen.append(c)
    return pod_document(sb, chosen, rt.clock.now_ns())


def restore_pod(rt: Runtime, data: Any, overrides: Mapping[str, Any]) -> tuple[Sandbox, list[Container]]:
    old_sb, old_containers = read(data)
    sb = rt.run_pod_sandbox(**sandbox_settings(old_sb, overrides))
    restored: list[Container] = []
    try:
        for old in old_containers:
            rel = old.log_path
            if old.log_path and old_sb.log_directory:
                rel = posixpath.relpath(old.log_path, old_sb.log_directory)
            restored.append(rt.restore_container(sb.id, old, rel))
        for old, c in zip(old_containers, restored, strict=False):
            if old.state == ContainerState.RUNNING:
                rt.start_container(c.id)
    except Exception:
        rt.remove_pod_sandbox(sb.id)
        raise
    return rt.get_sandbox(sb.id), [rt.get_container(c.id) for c in restored]
