"""Checkpoints of containers and pods as JSON-able documents, and reading them back.

The server writes the document into the archive at the location CRI names and reads it
back; the runtime (`Runtime.checkpoint_*`, `Runtime.restore_pod`) makes and replays them.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fakecri.engine.codec import from_data, to_data
from fakecri.engine.errors import InvalidArgument
from fakecri.engine.records import Container, Sandbox

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
