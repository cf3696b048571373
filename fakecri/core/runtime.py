"""The runtime's state machine: sandboxes, containers, their events and timed behaviour.

Single owner, no lock (the server's event loop calls it). Legal moves come from
`transitions.py`; every record change goes through `_touch`, every event through
`_emit`. Time comes from the injected clock, ids from the injected id source.
"""
from __future__ import annotations

import posixpath
import sys
from collections import deque
from typing import Any, Callable, Iterable, Mapping, Sequence

from fakecri.core import checkpoints, snapshot
from fakecri.core import resources as res_mod
from fakecri.core.behaviour import (
    EXIT_KILLED, EXIT_START_ERROR, ExecResult, Plan, PlanCache, behaviour_annotations, reason_for, run_exec,
)
from fakecri.core.clock import Clock
from fakecri.core.errors import AlreadyExists, InvalidArgument, NotFound, Other
from fakecri.core.events import Event, EventType
from fakecri.core.ids import IdSource
from fakecri.core.ipam import IpPool
from fakecri.core.labels import matches
from fakecri.core.limits import Limits
from fakecri.core.logsink import LogSink
from fakecri.core.records import Container, ContainerState, Image, Resources, Sandbox, SandboxState
from fakecri.core.timers import STOP, WAKE, TimerHeap
from fakecri.core.transitions import GONE, MISSING, path_for

ID_LEN = 64
REAL_CLOCK_SLACK_NS = 2_000_000  # a loop timer may fire this early on a real clock
MAX_CATCH_UP_LINES = 1000  # periodic lines written at most when time jumps far ahead
OutputListener = Callable[[str, str, str, int], None]  # (container_id, stream, text, ts_ns)
DEFAULT_POD_CIDR = "10.88.0.0/16"  # until UpdateRuntimeConfig sets one
DEFAULT_RUNTIME_HANDLERS = ("", "runc")

_RUNNING = ContainerState.RUNNING
_EXITED = ContainerState.EXITED


def _intern(d: Mapping[str, str]) -> dict[str, str]:
    """A copy of `d` with shared key strings (labels repeat across thousands of containers)."""
    return {sys.intern(k): (sys.intern(v) if len(v) <= 64 else v) for k, v in d.items()}


class Runtime:
    def __init__(
        self,
        clock: Clock,
        ids: IdSource,
        *,
        on_event: Callable[[Event], None] | None = None,
        log_sink: LogSink | None = None,
        pod_cidr: str = DEFAULT_POD_CIDR,
        runtime_handlers: Iterable[str] = DEFAULT_RUNTIME_HANDLERS,
        limits: Limits | None = None,
        outbox_limit: int = 100_000,
        cpu_meter: Callable[[Container, int], int] | None = None,
    ) -> None:
        self.clock = clock
        self.ids = ids
        self.on_event = on_event
        self.log_sink = log_sink
        self.runtime_handlers = tuple(runtime_handlers)
        self.limits = limits if limits is not None else Limits()
        self.output_listeners: list[OutputListener] = []
        self._ips = IpPool(pod_cidr)
        self._sandboxes: dict[str, Sandbox] = {}
        self._containers: dict[str, Container] = {}
        self._sandbox_keys: dict[tuple[str, str, str, int], str] = {}
        self._container_keys: dict[tuple[str, str, int], str] = {}
        self._outbox: deque[Event] = deque(maxlen=outbox_limit)
        self._last_event_ns = 0
        self._timers = TimerHeap()
        self._stopping: dict[str, tuple[int, int, str]] = {}  # cid -> (due_ns, exit_code, reason)
        self._running = 0
        self._plans = PlanCache()
        self._cpu_meter = cpu_meter
        self._removed_cpu: dict[str, int] = {}  # sandbox id -> CPU ns used by its removed containers

    # ------------------------------------------------------------ plumbing

    @staticmethod
    def _touch(rec: Sandbox | Container) -> None:
        rec.rev += 1
        rec.wire = None

    def _emit(self, type_: EventType, rec: Sandbox | Container) -> None:
        now = self.clock.now_ns()
        if now < self._last_event_ns:
            now = self._last_event_ns
        self._last_event_ns = now
        if isinstance(rec, Sandbox):
            ev = Event(type_, rec.id, rec.id, now, True)
        else:
            ev = Event(type_, rec.id, rec.sandbox_id, now, False)
        self._outbox.append(ev)
        if self.on_event is not None:
            self.on_event(ev)

    def drain_events(self) -> list[Event]:
        out = list(self._outbox)
        self._outbox.clear()
        return out

    def _find(self, table: Mapping[str, Any], key: str, kind: str) -> Any:
        """The record for an id or unique id prefix; None when there is none."""
        if not key:
            raise InvalidArgument(f"{kind} id is empty")
        rec = table.get(key)
        if rec is not None or len(key) >= ID_LEN:
            return rec
        found = None
        for k, v in table.items():
            if k.startswith(key):
                if found is not None:
                    raise InvalidArgument(f"{kind} id prefix {key!r} is ambiguous")
                found = v
        return found

    def _find_quietly(self, table: Mapping[str, Any], key: str) -> Any:
        try:
            return self._find(table, key, "")
        except InvalidArgument:
            return None

    def get_sandbox(self, sid: str) -> Sandbox:
        sb = self._find(self._sandboxes, sid, "sandbox")
        if sb is None:
            raise NotFound(f"sandbox {sid!r} not found")
        return sb

    def get_container(self, cid: str) -> Container:
        c = self._find(self._containers, cid, "container")
        if c is None:
            raise NotFound(f"container {cid!r} not found")
        return c

    @property
    def pod_cidr(self) -> str:
        return self._ips.cidr

    def set_pod_cidr(self, cidr: str) -> None:
        self._ips.set_cidr(cidr)

    def removed_cpu_ns(self, sid: str) -> int:
        """CPU nanoseconds used by containers already removed from sandbox `sid` (so pod counters only grow)."""
        return self._removed_cpu.get(sid, 0)

    def _account_removed(self, c: Container) -> None:
        meter = self._cpu_meter
        if meter is None:
            from fakecri.core.stats import cpu_total_ns  # the one CPU model; imported late to keep startup light

            meter = self._cpu_meter = cpu_total_ns
        used = meter(c, self.clock.now_ns())
        if used:
            self._removed_cpu[c.sandbox_id] = self._removed_cpu.get(c.sandbox_id, 0) + used

    def counts(self) -> dict[str, int]:
        return {"sandboxes": len(self._sandboxes), "containers": len(self._containers), "running": self._running,
                "timers": len(self._timers)}

    # ------------------------------------------------------------ sandboxes

    def run_pod_sandbox(
        self, *, name: str, namespace: str, uid: str, attempt: int = 0, labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None, hostname: str = "", log_directory: str = "",
        runtime_handler: str = "", spec: bytes = b"", resources: Resources | None = None,
        overhead: Resources | None = None,
    ) -> Sandbox:
        for field, value in (("name", name), ("namespace", namespace), ("uid", uid)):
            if not value:
                raise InvalidArgument(
                    f"sandbox config metadata.{field} is required (name={name!r}, namespace={namespace!r}, uid={uid!r})"
                )
        if runtime_handler not in self.runtime_handlers:
            known = ", ".join(repr(h) for h in self.runtime_handlers)
            raise NotFound(f"runtime handler {runtime_handler!r} for sandbox {name!r} is not configured (known: {known})")
        key = (name, namespace, uid, attempt)
        if key in self._sandbox_keys:
            raise AlreadyExists(
                f"sandbox {namespace}/{name} (uid {uid}, attempt {attempt}) already exists as {self._sandbox_keys[key]}"
            )
        self.limits.check_sandboxes(len(self._sandboxes), name)
        res_mod.validate(resources, f"sandbox {namespace}/{name}")
        res_mod.validate(overhead, f"sandbox {namespace}/{name} (overhead)")
        ip = self._ips.allocate()
        sb = Sandbox(
            id=self.ids.new_id(), name=name, namespace=namespace, uid=uid, attempt=attempt,
            state=SandboxState.READY, created_at=self.clock.now_ns(), labels=_intern(labels or {}),
            annotations=_intern(annotations or {}), hostname=hostname, log_directory=log_directory,
            runtime_handler=runtime_handler, ip=ip, spec=spec,
            overhead=res_mod.copy(overhead) if overhead is not None else None,
            resources=res_mod.copy(resources) if resources is not None else None,
        )
        self._sandboxes[sb.id] = sb
        self._sandbox_keys[key] = sb.id
        self._emit(EventType.CREATED, sb)
        self._emit(EventType.STARTED, sb)
        return sb

    def stop_pod_sandbox(self, sid: str) -> None:
        sb = self._find(self._sandboxes, sid, "sandbox")
        for step in path_for("sandbox", sid, "stop", MISSING if sb is None else sb.state):
            self._enter_sandbox_state(sb, step)

    def remove_pod_sandbox(self, sid: str) -> None:
        sb = self._find(self._sandboxes, sid, "sandbox")
        for step in path_for("sandbox", sid, "remove", MISSING if sb is None else sb.state):
            self._enter_sandbox_state(sb, step)

    def _enter_sandbox_state(self, sb: Sandbox, step: object) -> None:
        if step == SandboxState.NOTREADY:
            for cid in list(sb.container_ids):
                self._kill(self._containers[cid])
            sb.state = SandboxState.NOTREADY
            self._touch(sb)
            self._emit(EventType.STOPPED, sb)
        elif step == GONE:
            for cid in list(sb.container_ids):
                self.remove_container(cid)
            self._touch(sb)
            self._emit(EventType.DELETED, sb)  # while still listed, so the event carries its status
            del self._sandboxes[sb.id]
            self._removed_cpu.pop(sb.id, None)
            self._sandbox_keys.pop((sb.name, sb.namespace, sb.uid, sb.attempt), None)
            self._ips.release(sb.ip)

    def list_sandboxes(
        self, *, id: str = "", state: SandboxState | None = None, label_selector: Mapping[str, str] | None = None
    ) -> list[Sandbox]:
        if id:
            sb = self._find_quietly(self._sandboxes, id)
            candidates: Iterable[Sandbox] = [sb] if sb is not None else []
        else:
            candidates = self._sandboxes.values()
        if state is None and not label_selector:
            return list(candidates)  # no per-record test: the kubelet's relist at 100k records
        return [sb for sb in candidates
                if (state is None or sb.state == state) and matches(sb.labels, label_selector)]

    def update_pod_sandbox_resources(
        self, sid: str, *, overhead: Resources | None = None, resources: Resources | None = None
    ) -> None:
        sb = self.get_sandbox(sid)
        path_for("sandbox", sb.id, "update_resources", sb.state)
        res_mod.validate(overhead, f"sandbox {sb.id} (overhead)")
        res_mod.validate(resources, f"sandbox {sb.id}")
        if overhead is not None:
            sb.overhead = res_mod.copy(overhead)
        if resources is not None:
            sb.resources = res_mod.copy(resources)
        self._touch(sb)

    # ------------------------------------------------------------ containers

    def create_container(
        self, sid: str, *, name: str, attempt: int = 0, image: Image, image_ref_requested: str = "",
        labels: Mapping[str, str] | None = None, annotations: Mapping[str, str] | None = None,
        command: Sequence[str] = (), args: Sequence[str] = (), log_path: str = "",
        resources: Resources | None = None, spec: bytes = b"",
    ) -> Container:
        sb = self._find(self._sandboxes, sid, "sandbox")
        path_for("sandbox", sid, "create_container", MISSING if sb is None else sb.state)
        image_ref = image.repo_digests[0] if image.repo_digests else image.id
        return self._new_container(
            sb, name=name, attempt=attempt, image=image_ref_requested or (image.repo_tags[:1] or [image_ref])[0],
            image_ref=image_ref, image_id=image.id, labels=labels or {}, annotations=annotations or {},
            command=command, args=args, log_path=log_path, resources=resources, spec=spec,
        )

    def _new_container(
        self, sb: Sandbox, *, name: str, attempt: int, image: str, image_ref: str, image_id: str,
        labels: Mapping[str, str], annotations: Mapping[str, str], command: Sequence[str], args: Sequence[str],
        log_path: str, resources: Resources | None, spec: bytes,
    ) -> Container:
        if not name:
            raise InvalidArgument(f"container config metadata.name is required (sandbox {sb.id})")
        key = (sb.id, name, attempt)
        if key in self._container_keys:
            raise AlreadyExists(
                f"container {name!r} (attempt {attempt}) already exists in sandbox {sb.id} "
                f"as {self._container_keys[key]}"
            )
        self.limits.check_containers(len(self._containers), name)
        res_mod.validate(resources, f"container {name!r} in sandbox {sb.id}")
        settings = behaviour_annotations(annotations, sb.annotations, name)
        self._plans.get(command, args, settings)  # InvalidArgument on a bad fakecri.io/ annotation
        c = Container(
            id=self.ids.new_id(), sandbox_id=sb.id, name=name, attempt=attempt, state=ContainerState.CREATED,
            created_at=self.clock.now_ns(), image=sys.intern(image), image_ref=image_ref, image_id=image_id,
            labels=_intern(labels), annotations=_intern(annotations), command=tuple(command), args=tuple(args),
            log_path=posixpath.join(sb.log_directory, log_path) if log_path else "",
            resources=res_mod.copy(resources) if resources is not None else Resources(), spec=spec,
        )
        self._containers[c.id] = c
        self._container_keys[key] = c.id
        sb.container_ids.append(c.id)
        self._touch(sb)
        self._emit(EventType.CREATED, c)
        return c

    def _plan(self, c: Container) -> Plan:
        sb = self._sandboxes.get(c.sandbox_id)
        settings = behaviour_annotations(c.annotations, sb.annotations if sb is not None else None, c.name)
        return self._plans.get(c.command, c.args, settings)

    def start_container(self, cid: str) -> None:
        c = self.get_container(cid)
        path_for("container", c.id, "start", c.state)
        sb = self._sandboxes[c.sandbox_id]
        path_for("sandbox", sb.id, "start_container", sb.state)
        plan = self._plan(c)
        now = self.clock.now_ns()
        if plan.fail_start is not None:
            message = f"failed to start container {c.id} ({c.name}): {plan.fail_start}"
            self._finish(c, "fail_start", EXIT_START_ERROR, "StartError", message, now)
            raise Other("UNKNOWN", message)
        c.state = _RUNNING
        c.started_at = now
        self._running += 1
        self._touch(c)
        self._emit(EventType.STARTED, c)
        if self.log_sink is not None and c.log_path:
            self.log_sink.create(c.log_path)
        wrote = False
        for offset, stream, text in plan.outputs:
            if offset == 0:
                self._write(c, stream, text, now)
                wrote = True
        if not wrote and not plan.quiet:
            argv = " ".join(c.command + c.args) or "(image default command)"
            self._write(c, "stdout", f"fakecri: started container {c.name}: {argv}\n", now)
        self._after_wake(c, plan, 0, now)

    def _after_wake(self, c: Container, plan: Plan, offset: int, due: int) -> None:
        """Exit at `offset` if the plan ends there, else arm the next scripted moment."""
        if plan.end_ns is not None and plan.end_ns <= offset:
            self._finish(c, "exit", plan.exit_code, plan.reason, "", due)
            return
        candidates = [off for off, _, _ in plan.outputs if off > offset][:1]
        if plan.end_ns is not None:
            candidates.append(plan.end_ns)
        every = plan.log_every_ns
        if every:
            behind = self.clock.now_ns() - due
            base = max(offset, offset + behind - MAX_CATCH_UP_LINES * every)
            candidates.append((base // every + 1) * every)
        if candidates:
            nxt = min(candidates)
            self._timers.push(due + (nxt - offset), c.id, WAKE, nxt)

    def _wake(self, c: Container, offset: int, due: int) -> None:
        plan = self._plan(c)
        for off, stream, text in plan.outputs:
            if off == offset:
                self._write(c, stream, text, due)
        every = plan.log_every_ns
        if every and offset % every == 0 and (plan.end_ns is None or offset < plan.end_ns):
            line = plan.log_every_line.replace("{n}", str(offset // every))
            self._write(c, plan.log_stream, line + "\n", due)
        if c.state == _RUNNING:
            self._after_wake(c, plan, offset, due)

    def _write(self, c: Container, stream: str, text: str, ts_ns: int) -> None:
        if self.log_sink is not None:
            self.log_sink.write(c.log_path, stream, text, ts_ns)
        for fn in self.output_listeners:
            fn(c.id, stream, text, ts_ns)

    def _finish(self, c: Container, op: str, exit_code: int, reason: str, message: str, at_ns: int) -> None:
        """The one place a container becomes EXITED (stop, kill, timer, control plane, start failure).

        Does nothing when the table says `op` does not lead through EXITED from the current state.
        """
        if _EXITED not in path_for("container", c.id, op, c.state):
            return
        if c.state == _RUNNING:
            self._running -= 1
        c.state = _EXITED
        c.finished_at = max(at_ns, c.started_at)
        c.exit_code = exit_code
        c.reason = reason
        c.message = message
        self._stopping.pop(c.id, None)
        self._touch(c)
        self._emit(EventType.STOPPED, c)

    def _kill(self, c: Container) -> None:
        self._finish(c, "kill", EXIT_KILLED, "Error", "", self.clock.now_ns())

    def stop_container(self, cid: str, timeout_s: float = 0.0) -> float:
        """Stop; returns the seconds the stop takes (0: done). A slow stop finishes in `tick`."""
        c = self._find(self._containers, cid, "container")
        if not path_for("container", cid, "stop", MISSING if c is None else c.state):
            return 0.0
        now = self.clock.now_ns()
        plan = self._plan(c)
        delay, code, reason = plan.stop_outcome(max(0, round(timeout_s * 1e9)))
        pending = self._stopping.get(c.id)
        if pending is not None and pending[0] <= now + delay:
            due = pending[0]
        elif delay == 0:
            self._finish(c, "stop", code, reason, "", now)
            return 0.0
        else:
            due = now + delay
            self._stopping[c.id] = (due, code, reason)
            self._timers.push(due, c.id, STOP)
        if plan.end_ns is not None and now < c.started_at + plan.end_ns < due:
            due = c.started_at + plan.end_ns  # it exits on its own before the stop completes
        return (due - now) / 1e9

    def complete_stop(self, cid: str) -> None:
        """Finish a pending slow stop now (the server calls it after waiting the stop's delay)."""
        c = self._containers.get(cid)
        pending = self._stopping.get(cid)
        if c is not None and pending is not None:
            self._finish(c, "stop", pending[1], pending[2], "", pending[0])

    def exit_container(self, cid: str, exit_code: int, reason: str = "", message: str = "") -> None:
        """An exit that happens on its own (control plane); same path as timers."""
        c = self.get_container(cid)
        self._finish(c, "exit", exit_code, reason or reason_for(exit_code), message, self.clock.now_ns())

    def remove_container(self, cid: str) -> None:
        c = self._find(self._containers, cid, "container")
        for step in path_for("container", cid, "remove", MISSING if c is None else c.state):
            if step == _EXITED:
                self._finish(c, "remove", EXIT_KILLED, "Error", "", self.clock.now_ns())
            elif step == GONE:
                del self._containers[c.id]
                self._container_keys.pop((c.sandbox_id, c.name, c.attempt), None)
                self._stopping.pop(c.id, None)
                sb = self._sandboxes.get(c.sandbox_id)
                if sb is not None:
                    sb.container_ids.remove(c.id)
                    self._touch(sb)
                    self._account_removed(c)
                self._touch(c)
                self._emit(EventType.DELETED, c)

    def list_containers(
        self, *, id: str = "", state: ContainerState | None = None, sandbox_id: str = "",
        label_selector: Mapping[str, str] | None = None,
    ) -> list[Container]:
        sb = None
        if sandbox_id:
            sb = self._find_quietly(self._sandboxes, sandbox_id)
            if sb is None:
                return []
        if id:
            c = self._find_quietly(self._containers, id)
            candidates: Iterable[Container] = [c] if c is not None and (sb is None or c.sandbox_id == sb.id) else []
        elif sb is not None:
            candidates = [self._containers[cid] for cid in sb.container_ids]
        else:
            candidates = self._containers.values()
        if state is None and not label_selector:
            return list(candidates)  # no per-record test: the kubelet's relist at 100k records
        return [c for c in candidates if (state is None or c.state == state) and matches(c.labels, label_selector)]

    def update_container_resources(
        self, cid: str, resources: Resources, annotations: Mapping[str, str] | None = None
    ) -> None:
        """Validate, then store. `annotations` are hints for the runtime and are not stored."""
        c = self.get_container(cid)
        path_for("container", c.id, "update_resources", c.state)
        res_mod.validate(resources, f"container {c.id} ({c.name})")
        c.resources = res_mod.copy(resources)
        self._touch(c)

    def exec_sync(self, cid: str, argv: Sequence[str], timeout_s: float = 0.0, stdin: bytes = b"") -> ExecResult:
        c = self.get_container(cid)
        path_for("container", c.id, "exec", c.state)
        if not argv:
            raise InvalidArgument(f"exec in container {c.id}: the command is empty")
        rule = self._plan(c).probe_for(argv)
        if rule is not None:
            code = rule.exit_code(self.clock.now_ns() - c.started_at)
            err = b"" if code == 0 else f"fakecri: scripted probe failure for {' '.join(argv)}\n".encode()
            return ExecResult(b"", err, code, 0.0, False)
        return run_exec(argv, timeout_s, stdin)

    def reopen_container_log(self, cid: str) -> None:
        c = self.get_container(cid)
        path_for("container", c.id, "reopen_log", c.state)
        if self.log_sink is not None and c.log_path:
            self.log_sink.reopen(c.log_path)

    # ------------------------------------------------------------ time

    def _is_stale(self, entry: tuple[int, int, str, int, int]) -> bool:
        due, _, cid, kind, _ = entry
        c = self._containers.get(cid)
        if c is None or c.state != _RUNNING:
            return True
        if kind == STOP:
            pending = self._stopping.get(cid)
            return pending is None or pending[0] != due
        return False

    def next_deadline_ns(self) -> int | None:
        self._timers.discard_head_while(self._is_stale)
        head = self._timers.peek()
        return None if head is None else head[0]

    def tick(self) -> None:
        """Run every timer due now, in due order."""
        now = self.clock.now_ns()
        if not getattr(self.clock, "is_fake", False):
            now += REAL_CLOCK_SLACK_NS
        while True:
            entry = self._timers.pop_due(now)
            if entry is None:
                break
            if self._is_stale(entry):
                continue
            due, _, cid, kind, offset = entry
            c = self._containers[cid]
            if kind == STOP:
                _, code, reason = self._stopping[cid]
                self._finish(c, "stop", code, reason, "", due)
            else:
                self._wake(c, offset, due)
        if len(self._timers) > 2 * self._running + 1024:
            self._timers.compact(lambda e: not self._is_stale(e))

    # ------------------------------------------------------------ whole-state operations

    def wipe(self) -> None:
        """Forget every sandbox and container (a runtime restart that lost its state). No events."""
        self._sandboxes.clear()
        self._containers.clear()
        self._sandbox_keys.clear()
        self._container_keys.clear()
        self._timers.clear()
        self._stopping.clear()
        self._removed_cpu.clear()
        self._ips.used.clear()
        self._running = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able snapshot (for --state-file). Pending timers are kept as time left from now."""
        return snapshot.runtime_to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], clock: Clock, ids: IdSource, **kw: Any) -> Runtime:
        """Rebuild a runtime from `to_dict` output; running containers keep running, and timers keep their
        deadlines on the clock (time passed since the snapshot counts; overdue ones fire at the next tick)."""
        return snapshot.runtime_from_dict(cls, data, clock, ids, **kw)

    # ------------------------------------------------------------ checkpoints

    def checkpoint_container(self, cid: str) -> dict[str, Any]:
        """A JSON-able description of a running container (the server writes the archive)."""
        return checkpoints.checkpoint_container(self, cid)

    def checkpoint_pod(self, sid: str, container_ids: Sequence[str] = ()) -> dict[str, Any]:
        """A JSON-able description of a READY sandbox and its containers (all, or the ones named)."""
        return checkpoints.checkpoint_pod(self, sid, container_ids)

    def restore_pod(self, data: Mapping[str, Any], **overrides: Any) -> tuple[Sandbox, list[Container]]:
        """Recreate a checkpointed pod with fresh ids (see checkpoints.restore_pod for the overrides)."""
        return checkpoints.restore_pod(self, data, **overrides)
