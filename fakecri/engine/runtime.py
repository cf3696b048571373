"""The runtime's state machine: sandboxes, containers, their events and timed behaviour.

Single owner, no lock (the server's event loop calls it). Legal moves come from
`transitions.py`; every record change goes through `_touch`, and every event comes from
`_entered`, which emits what the transition table lists for the state entered. Time comes from the injected clock, ids from the injected id source.
"""
from __future__ import annotations

import posixpath
import sys
from collections import deque
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from fakecri.engine import checkpoints, snapshot
from fakecri.engine import resources as res_mod
from fakecri.sim.behaviour import (
    EXIT_KILLED, EXIT_START_ERROR, ExecResult, Plan, PlanCache, behaviour_annotations, build_plan, reason_for,
    run_exec,
)
from fakecri.engine.clock import Clock
from fakecri.engine.errors import AlreadyExists, InvalidArgument, NotFound, Other
from fakecri.engine.events import Event
from fakecri.engine.ids import IdSource
from fakecri.sim.catalog import Catalog
from fakecri.sim.image_content import ImageContent
from fakecri.engine.ipam import IpPool
from fakecri.engine.labels import matches
from fakecri.engine.limits import Limits
from fakecri.sim.logsink import LogSink
from fakecri.engine.records import Container, ContainerState, Image, Resources, Sandbox, SandboxState
from fakecri.sim.shell import READ, Context, Process, Sleep, Write, spawn
from fakecri.engine.store import RuntimeStore
from fakecri.sim.userland import (USERLAND_COMMANDS, HostMounts, Userland, has_private_host_mount, looks_inside,
                                   read_spec)
from fakecri.sim.userland.spec import CONTAINER, POD, pid_mode
from fakecri.engine.timers import INPUT, STOP, WAKE
from fakecri.engine.transitions import GONE, MISSING, events_on_entering, path_for

ID_LEN = 64
REAL_CLOCK_SLACK_NS = 2_000_000  # a loop timer may fire this early on a real clock
MAX_CATCH_UP_LINES = 1000  # periodic lines written at most when time jumps far ahead
OutputListener = Callable[[str, str, str, int], None]  # (container_id, stream, text, ts_ns)
DEFAULT_POD_CIDR = "10.88.0.0/16"  # until UpdateRuntimeConfig sets one
DEFAULT_RUNTIME_HANDLERS = ("", "runc")

_RUNNING = ContainerState.RUNNING
_EXITED = ContainerState.EXITED


def host_pid(cid: str) -> int:
    """The pid a container's main process has on the node (stable: from its id)."""
    head = cid[:8]
    return 1000 + int(head, 16) % 4_000_000 if head and all(ch in "0123456789abcdef" for ch in head) else 1000


class LiveInput:
    """A container's command taken on live from where it waits for input (see `Runtime.feed_input`)."""

    __slots__ = ("proc", "pending", "eof", "waiting", "due_ns")

    def __init__(self, proc: Process) -> None:
        self.proc = proc
        self.pending = bytearray()  # input given, not yet read
        self.eof = False  # the input has ended
        self.waiting = False  # the process is at a READ step
        self.due_ns: int | None = None  # when its next step is due (an INPUT timer), None: not armed


def _probe_process(code: int, err: bytes) -> Process:
    if err:
        yield Write("stderr", err.decode())
    return code


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
        image_content: Callable[[str], ImageContent] | None = None,
    ) -> None:
        self.clock = clock
        self.ids = ids
        self.on_event = on_event
        self.log_sink = log_sink
        self.runtime_handlers = tuple(runtime_handlers)
        self.limits = limits if limits is not None else Limits()
        self.output_listeners: list[OutputListener] = []
        self.store = store = RuntimeStore(IpPool(pod_cidr))
        # The store's tables under short names (the same objects; the store is never replaced).
        self._ips = store.ips
        self._sandboxes = store.sandboxes
        self._containers = store.containers
        self._sandbox_keys = store.sandbox_keys
        self._container_keys = store.container_keys
        self._timers = store.timers
        self._stopping = store.stopping
        self._removed_cpu = store.removed_cpu
        self._live: dict[str, LiveInput] = store.live
        self._userlands: dict[str, Userland] = store.userlands
        self._own_plans: dict[str, Plan] = store.own_plans
        self._mounts_at_start = store.mounts_at_start
        self.host_mounts = HostMounts()  # the host's mount table, for mount propagation
        self._is_stale = store.is_stale
        self._outbox: deque[Event] = deque(maxlen=outbox_limit)
        self._plans = PlanCache()
        self._cpu_meter = cpu_meter
        # What is inside the image a reference names (the server hands in its catalog's view).
        self.image_content = image_content or Catalog().content_of_reference
        self._contents: dict[str, ImageContent] = {}  # by reference, shared by the containers of an image

    # ------------------------------------------------------------ plumbing

    @staticmethod
    def _touch(rec: Sandbox | Container) -> None:
        rec.rev += 1
        rec.wire = None

    def _entered(self, rec: Sandbox | Container, state: object) -> None:
        """Announce that `rec` entered `state`: the events the transition table lists for it."""
        is_sandbox = isinstance(rec, Sandbox)
        sandbox_id = rec.id if is_sandbox else rec.sandbox_id
        for type_ in events_on_entering("sandbox" if is_sandbox else "container", state):
            now = self.clock.now_ns()
            if now < self.store.last_event_ns:
                now = self.store.last_event_ns
            self.store.last_event_ns = now
            ev = Event(type_, rec.id, sandbox_id, now, is_sandbox)
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
            from fakecri.sim.stats import cpu_total_ns  # the one CPU model; imported late to keep startup light

            meter = self._cpu_meter = cpu_total_ns
        used = meter(c, self.clock.now_ns())
        if used:
            self._removed_cpu[c.sandbox_id] = self._removed_cpu.get(c.sandbox_id, 0) + used

    def counts(self) -> dict[str, int]:
        return {"sandboxes": len(self._sandboxes), "containers": len(self._containers), "running": self.store.running,
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
        for step in path_for("sandbox", sb.id, "run", MISSING):
            self._entered(sb, step)
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
            self._entered(sb, step)
        elif step == GONE:
            for cid in list(sb.container_ids):
                self.remove_container(cid)
            self._touch(sb)
            self._entered(sb, step)  # while still listed, so the event carries its status
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
        for step in path_for("container", c.id, "create", MISSING):
            self._entered(c, step)
        return c

    def content_of(self, c: Container) -> ImageContent:
        """What is inside the container's image."""
        content = self._contents.get(c.image)
        if content is None:
            if len(self._contents) >= 1024:
                self._contents.clear()
            content = self._contents[c.image] = self.image_content(c.image)
        return content

    def argv_of(self, c: Container) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(command, args) the container runs: its config's, completed by its image's default."""
        return self.content_of(c).argv(c.command, c.args)

    def processes_seen_from(self, cid: str) -> list[tuple[int, str]]:
        """(pid, command line) of the processes a container's PID namespace shows, pid 1 first:
        its own command (NamespaceMode CONTAINER), the pod's pause and containers (POD), or
        the node's init and every running container's command (NODE)."""
        c = self.get_container(cid)
        sb = self._sandboxes.get(c.sandbox_id)
        mode = pid_mode(sb.spec) if sb is not None else CONTAINER
        if mode == CONTAINER:
            return [(1, self._title(c))]
        if mode == POD and sb is not None:
            return [(1, "/pause")] + [(n + 2, self._title(self._containers[other]))
                                      for n, other in enumerate(sb.container_ids)
                                      if self._containers[other].state == _RUNNING]
        return [(1, "/sbin/init")] + sorted((host_pid(other.id), self._title(other))
                                            for other in self._containers.values() if other.state == _RUNNING)

    def _title(self, c: Container) -> str:
        """A container's main process as `ps` shows it (nginx names its master process)."""
        argv = sum(self.argv_of(c), ())
        line = " ".join(argv) or "sh"
        return "nginx: master process " + line if argv and argv[0].rsplit("/", 1)[-1] == "nginx" else line

    def web_ports(self, c: Container) -> tuple[int, ...]:
        """The ports the container's own web server listens on (none unless it is running)."""
        if c.state != _RUNNING:
            return ()
        return self.content_of(c).serves_on(c.command, c.args)

    def _plan(self, c: Container) -> Plan:
        sb = self._sandboxes.get(c.sandbox_id)
        settings = behaviour_annotations(c.annotations, sb.annotations if sb is not None else None, c.name)
        command, args = self.argv_of(c)
        if not looks_inside(command + args):
            return self._plans.get(command, args, settings)
        plan = self._own_plans.get(c.id)  # a command that reads its userland has a plan of its own
        if plan is None:
            plan = self._own_plans[c.id] = build_plan(command, args, settings,
                                                      self._context(c, Context(main=True)))
        return plan

    def start_container(self, cid: str) -> None:
        c = self.get_container(cid)
        path_for("container", c.id, "start", c.state)
        sb = self._sandboxes[c.sandbox_id]
        path_for("sandbox", sb.id, "start_container", sb.state)
        if c.spec and has_private_host_mount(c.spec):  # what the host mounts after now stays unseen
            self._mounts_at_start[c.id] = self.host_mounts.current()
        plan = self._plan(c)
        now = self.clock.now_ns()
        if plan.fail_start is not None:
            message = f"failed to start container {c.id} ({c.name}): {plan.fail_start}"
            self._finish(c, "fail_start", EXIT_START_ERROR, "StartError", message, now)
            raise Other("UNKNOWN", message)
        c.state = _RUNNING
        c.started_at = now
        self.store.running += 1
        self._touch(c)
        self._entered(c, _RUNNING)
        if self.log_sink is not None and c.log_path:
            self.log_sink.create(c.log_path)
        wrote = False
        for offset, stream, text in plan.outputs:
            if offset == 0:
                self._write(c, stream, text, now)
                wrote = True
        if not wrote and not plan.quiet:
            argv = " ".join(sum(self.argv_of(c), ())) or "(image default command)"
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
            self.store.running -= 1
        c.state = _EXITED
        c.finished_at = max(at_ns, c.started_at)
        c.exit_code = exit_code
        c.reason = reason
        c.message = message
        self._stopping.pop(c.id, None)
        live = self._live.pop(c.id, None)
        if live is not None:
            live.proc.close()
        self._touch(c)
        self._entered(c, _EXITED)

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
                self._userlands.pop(c.id, None)
                self._own_plans.pop(c.id, None)
                self._mounts_at_start.pop(c.id, None)
                sb = self._sandboxes.get(c.sandbox_id)
                if sb is not None:
                    sb.container_ids.remove(c.id)
                    self._touch(sb)
                    self._account_removed(c)
                self._touch(c)
                self._entered(c, step)

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

    def _exec_target(self, cid: str, argv: Sequence[str]) -> tuple[Container, tuple[int, bytes] | None]:
        """The container an exec of `argv` runs in (checked), and what a scripted probe
        answers instead (exit code, stderr) when one covers `argv`."""
        c = self.get_container(cid)
        path_for("container", c.id, "exec", c.state)
        if not argv:
            raise InvalidArgument(f"exec in container {c.id}: the command is empty")
        rule = self._plan(c).probe_for(argv)
        if rule is None:
            return c, None
        code = rule.exit_code(self.clock.now_ns() - c.started_at)
        err = b"" if code == 0 else f"fakecri: scripted probe failure for {' '.join(argv)}\n".encode()
        return c, (code, err)

    def exec_sync(self, cid: str, argv: Sequence[str], timeout_s: float = 0.0, stdin: bytes = b"") -> ExecResult:
        c, probe = self._exec_target(cid, argv)
        if probe is not None:
            code, err = probe
            return ExecResult(b"", err, code, 0.0, False)
        return run_exec(argv, timeout_s, stdin, self._context(c))

    def exec_process(self, cid: str, argv: Sequence[str], ctx: Context | None = None) -> Process:
        """The exec command as a live process (the streaming server drives it step by step).

        Same checks and scripted probes as `exec_sync`.
        """
        c, probe = self._exec_target(cid, argv)
        if probe is not None:
            return _probe_process(*probe)
        return spawn(argv, self._context(c, ctx))

    def _context(self, c: Container, ctx: Context | None = None) -> Context:
        """Where a command in `c` runs: its userland (built on first use) and the commands that read it."""
        return replace(ctx or Context(), userland=lambda: self.userland_of(c.id), commands=USERLAND_COMMANDS)

    def userland_of(self, cid: str) -> Userland:
        """The container's simulated userland, built from its config the first time it is asked for."""
        world = self._userlands.get(cid)
        if world is None:
            c = self.get_container(cid)
            sb = self._sandboxes.get(c.sandbox_id)
            spec = read_spec(c.spec, sb.spec if sb else b"", hostname=sb.hostname if sb else "")
            cid = c.id
            world = self._userlands[c.id] = Userland(spec, ip=sb.ip if sb else "", content=self.content_of(c),
                                                     processes=lambda: self.processes_seen_from(cid),
                                                     mounts_at_start=self._mounts_at_start.get(c.id),
                                                     host_mounts=self.host_mounts.current)
        return world

    # ------------------------------------------------------------ input to a container's own command

    def reads_input(self, cid: str) -> bool:
        """Whether the container's own command waits for input (attach can feed it)."""
        return self._plan(self.get_container(cid)).input_at_ns is not None

    def feed_input(self, cid: str, data: bytes | None) -> None:
        """Give the container's command input (None: its input ends). Input to a command that
        does not read is dropped, as a process that never reads its stdin leaves it unread.

        The command is taken on live from where its plan left it waiting; what it then
        writes goes to the log and to attached clients, and its exit ends the container.
        """
        c = self.get_container(cid)
        path_for("container", c.id, "exec", c.state)  # only a running container takes input
        plan = self._plan(c)
        if plan.input_at_ns is None:
            return
        live = self._live.get(c.id)
        if live is None:
            live = self._live[c.id] = self._take_on(c)
            if live is None:
                return
        if data is None:
            live.eof = True
        else:
            live.pending += data
        due = c.started_at + plan.input_at_ns
        now = self.clock.now_ns()
        if live.waiting and due <= now:
            self._step_live(c, live, now)
        elif live.waiting and live.due_ns is None:
            live.due_ns = due  # it has not reached its read yet: take the input when it does
            self._timers.push(due, c.id, INPUT)

    def _take_on(self, c: Container) -> LiveInput | None:
        """A fresh process of the container's command, run up to its first read (the plan
        already wrote what comes before)."""
        live = LiveInput(spawn(c.command + c.args, self._context(c, Context(main=True))))
        try:
            step = live.proc.send(None)
            for _ in range(10_000):
                if step is READ:
                    live.waiting = True
                    return live
                step = live.proc.send(None)
        except StopIteration:
            pass
        live.proc.close()
        return None

    def _step_live(self, c: Container, live: LiveInput, now: int) -> None:
        """Run the live process until it waits again (for input or time), or ends."""
        live.due_ns = None
        try:
            while True:
                if live.waiting:
                    if live.pending:
                        reply: bytes | None = bytes(live.pending)
                        live.pending.clear()
                    elif live.eof:
                        reply = None
                    else:
                        return
                    live.waiting = False
                    step = live.proc.send(reply)
                else:
                    step = live.proc.send(None)
                if isinstance(step, Write):
                    self._write(c, step.stream, step.text, now)
                elif isinstance(step, Sleep):
                    if step.ns is not None:
                        live.due_ns = now + step.ns
                        self._timers.push(live.due_ns, c.id, INPUT)
                    return  # asleep until the timer, or for good
                else:
                    live.waiting = True
        except StopIteration as done:
            self._live.pop(c.id, None)
            code = int(done.value or 0) & 0xFF
            self._finish(c, "exit", code, reason_for(code), "", now)

    def reopen_container_log(self, cid: str) -> None:
        c = self.get_container(cid)
        path_for("container", c.id, "reopen_log", c.state)
        if self.log_sink is not None and c.log_path:
            self.log_sink.reopen(c.log_path)

    # ------------------------------------------------------------ time

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
            elif kind == INPUT:
                self._step_live(c, self._live[cid], due)
            else:
                self._wake(c, offset, due)
        if len(self._timers) > 2 * self.store.running + 1024:
            self._timers.compact(lambda e: not self._is_stale(e))

    # ------------------------------------------------------------ whole-state operations

    def wipe(self) -> None:
        """Forget every sandbox and container (a runtime restart that lost its state). No events."""
        self.store.clear()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able snapshot (for --state-file). Pending timers are kept as time left from now."""
        return snapshot.store_to_dict(self.store, self.runtime_handlers, self.clock.now_ns())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], clock: Clock, ids: IdSource, **kw: Any) -> Runtime:
        """Rebuild a runtime from `to_dict` output; running containers keep running, and timers keep their
        deadlines on the clock (time passed since the snapshot counts; overdue ones fire at the next tick)."""
        kw.setdefault("runtime_handlers", tuple(data.get("runtime_handlers", DEFAULT_RUNTIME_HANDLERS)))
        rt = cls(clock, ids, **kw)
        snapshot.load_store(rt.store, data, clock.now_ns())
        return rt

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
