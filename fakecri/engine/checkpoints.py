"""Checkpoint and restore of containers and pods, as JSON-able dicts.

The server writes the dict into the archive at the location CRI names and reads it
back; the core only produces and consumes the description.
"""
from __future__ import annotations

import posixpath
from typing import Any, Mapping, Protocol, Sequence

from fakecri.engine import snapshot
from fakecri.engine.clock import Clock
from fakecri.engine.errors import CoreError, InvalidArgument
from fakecri.engine.records import Container, ContainerState, Sandbox
from fakecri.engine.transitions import path_for


class Runtime(Protocol):
    """The runtime operations a checkpoint reads and a restore replays (core.runtime.Runtime has them)."""

    clock: Clock

    def get_sandbox(self, sid: str) -> Sandbox: ...

    def get_container(self, cid: str) -> Container: ...

    def run_pod_sandbox(self, **kw: Any) -> Sandbox: ...

    def _new_container(self, sb: Sandbox, **kw: Any) -> Container: ...

    def start_container(self, cid: str) -> None: ...

    def remove_pod_sandbox(self, sid: str) -> None: ...


def checkpoint_container(rt: Runtime, cid: str) -> dict[str, Any]:
    c = rt.get_container(cid)
    path_for("container", c.id, "checkpoint", c.state)
    return {"kind": "container", "checkpointed_at": rt.clock.now_ns(),
            "sandbox": snapshot.sandbox_to_dict(rt.get_sandbox(c.sandbox_id)),
            "container": snapshot.container_to_dict(c)}


def checkpoint_pod(rt: Runtime, sid: str, container_ids: Sequence[str] = ()) -> dict[str, Any]:
    sb = rt.get_sandbox(sid)
    path_for("sandbox", sb.id, "checkpoint", sb.state)
    chosen = []
    for cid in container_ids or sb.container_ids:
        c = rt.get_container(cid)
        if c.sandbox_id != sb.id:
            raise InvalidArgument(f"container {c.id} is not in sandbox {sb.id}")
        chosen.append(c)
    return {"kind": "pod", "checkpointed_at": rt.clock.now_ns(),
            "sandbox": snapshot.sandbox_to_dict(sb),
            "containers": [snapshot.container_to_dict(c) for c in chosen]}


def restore_pod(
    rt: Runtime, data: Mapping[str, Any], *, name: str | None = None, namespace: str | None = None,
    uid: str | None = None, attempt: int | None = None, labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None, log_directory: str | None = None,
    runtime_handler: str | None = None, spec: bytes | None = None,
) -> tuple[Sandbox, list[Container]]:
    """A new sandbox and containers (fresh ids) from a checkpoint; the ones that ran are started.

    Keyword arguments override the checkpoint's sandbox settings (None keeps them).
    Either everything is restored or nothing is left behind.
    """
    if data.get("kind") not in ("pod", "container") or "sandbox" not in data:
        raise InvalidArgument("restore: the data is not a fakecri pod or container checkpoint")
    old = snapshot.sandbox_from_dict(data["sandbox"])
    sb = rt.run_pod_sandbox(
        name=old.name if name is None else name, namespace=old.namespace if namespace is None else namespace,
        uid=old.uid if uid is None else uid, attempt=old.attempt if attempt is None else attempt,
        labels=old.labels if labels is None else labels,
        annotations=old.annotations if annotations is None else annotations, hostname=old.hostname,
        log_directory=old.log_directory if log_directory is None else log_directory,
        runtime_handler=old.runtime_handler if runtime_handler is None else runtime_handler,
        spec=old.spec if spec is None else spec, resources=old.resources, overhead=old.overhead,
    )
    items = data["containers"] if data["kind"] == "pod" else [data["container"]]
    restored = []
    try:
        for d in items:
            oc = snapshot.container_from_dict(d)
            rel = oc.log_path
            if oc.log_path and old.log_directory:
                rel = posixpath.relpath(oc.log_path, old.log_directory)
            c = rt._new_container(
                sb, name=oc.name, attempt=oc.attempt, image=oc.image, image_ref=oc.image_ref,
                image_id=oc.image_id, labels=oc.labels, annotations=oc.annotations, command=oc.command,
                args=oc.args, log_path=rel, resources=oc.resources, spec=oc.spec,
            )
            restored.append(c)
        for oc_data, c in zip(items, restored):
            if oc_data["state"] == ContainerState.RUNNING.name:
                rt.start_container(c.id)
    except (CoreError, KeyError) as exc:
        rt.remove_pod_sandbox(sb.id)
        if isinstance(exc, KeyError):
            raise InvalidArgument(f"restore: a container in the checkpoint lacks {exc}") from None
        raise
    return sb, restored
