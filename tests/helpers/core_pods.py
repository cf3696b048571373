"""Helpers shared by the core tests (imported by conftest and the test modules)."""
from __future__ import annotations

from fakecri.engine.events import EventType
from fakecri.engine.records import Image
from fakecri.engine.runtime import Runtime

IMAGE = Image(
    id="sha256:" + "ab" * 32,
    repo_tags=["docker.io/library/busybox:latest"],
    repo_digests=["docker.io/library/busybox@sha256:" + "cd" * 32],
    size=4_000_000,
)


class Pod:
    """Small helper: make sandboxes and containers with sensible defaults."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self.n = 0

    def sandbox(self, name: str | None = None, **kw):
        self.n += 1
        kw.setdefault("namespace", "default")
        kw.setdefault("uid", f"uid-{self.n}")
        kw.setdefault("log_directory", f"/var/log/pods/{self.n}")
        return self.rt.run_pod_sandbox(name=name or f"pod-{self.n}", **kw)

    def container(self, sandbox, name: str = "app", command=(), args=(), annotations=None, **kw):
        kw.setdefault("log_path", f"{name}/0.log")
        return self.rt.create_container(
            sandbox.id, name=name, image=IMAGE, image_ref_requested="busybox", command=tuple(command),
            args=tuple(args), annotations=annotations or {}, **kw,
        )

    def running(self, sandbox, name: str = "app", command=("sleep", "infinity"), **kw):
        c = self.container(sandbox, name, command=command, **kw)
        self.rt.start_container(c.id)
        return c


def kinds(events):
    """Events as (type name, is_sandbox, last 2 id chars) for readable order assertions."""
    return [(e.type.name, "sb" if e.is_sandbox else "c", e.container_id[-2:]) for e in events]


def check_order(events):
    """Assert the per-container and sandbox bracketing rules over a whole event list."""
    order = {EventType.CREATED: 0, EventType.STARTED: 1, EventType.STOPPED: 2, EventType.DELETED: 3}
    seen: dict[str, list[EventType]] = {}
    sandbox_pos: dict[str, dict[EventType, int]] = {}
    last_ts = 0
    for i, e in enumerate(events):
        assert e.created_at >= last_ts
        last_ts = e.created_at
        types = seen.setdefault(e.container_id, [])
        assert e.type not in types, f"duplicate {e.type.name} for {e.container_id}"
        assert not types or order[types[-1]] < order[e.type]
        types.append(e.type)
        if e.is_sandbox:
            assert e.container_id == e.sandbox_id
            sandbox_pos.setdefault(e.sandbox_id, {})[e.type] = i
    for i, e in enumerate(events):
        if e.is_sandbox:
            continue
        pos = sandbox_pos[e.sandbox_id]
        assert pos[EventType.STARTED] < i
        if EventType.STOPPED in pos and e.type == EventType.STOPPED:
            assert i < pos[EventType.STOPPED]
        if EventType.DELETED in pos:
            assert i < pos[EventType.DELETED]
