"""The CRI state machine: sandboxes, containers and images, their events and their timers.

Single owner, no lock (the server's event loop calls it). Legal moves come from
`transitions.py`. Records are frozen: every change replaces a record through `_put_*`,
and every event comes from `_entered`, which lists what the transition table says the
state entered emits. Nothing leaves the engine but through its outbox: the owner calls
`drain_events()` after each operation and gets the events and container output since.
What a container's program does is asked of the injected `Programs`; time comes from the
injected clock, ids from the injected id source.
"""
from __future__ import annotations

import posixpath
import sys
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fakecri.engine import checkpoints, snapshot
from fakecri.engine.clock import Clock, IdSource
from fakecri.engine.errors import AlreadyExists, InvalidArgument, NotFound, Other
from fakecri.engine.exits import ERROR, EXIT_KILLED, EXIT_START_ERROR, START_ERROR, reason_for
from fakecri.engine.images import ImageStore, NoRegistry, Registry
from fakecri.engine.ipam import IpPool
from fakecri.engine.labels import matches
from fakecri.engine.ports import NoPrograms, Programs
from fakecri.engine.program_plan import Plan, Taken
from fakecri.engine.records import (
    STOP,
    WAKE,
    Container,
    ContainerState,
    Event,
    Limits,
    Output,
    Resources,
    RuntimeStore,
    Said,
    Sandbox,
    SandboxState,
    evolve,
    interned,
    validate_resources,
)
from fakecri.engine.specs import EMPTY_CONTAINER_SPEC, EMPTY_SANDBOX_SPEC, NODE, ContainerSpec, SandboxSpec
from fakecri.engine.transitions import GONE, MISSING, events_on_entering, path_for

ID_LEN = 64
REAL_CLOCK_SLACK_NS = 2_000_000  # a loop timer may fire this early on a real clock
MAX_CATCH_UP_LINES = 1000  # periodic lines written at most when time jumps far ahead
DEFAULT_POD_CIDR = "10.88.0.0/16"  # until UpdateRuntimeConfig sets one
DEFAULT_RUNTIME_HANDLERS = ("", "runc")

_RUNNING = ContainerState.RUNNING
_EXITED = ContainerState.EXITED
Record = Sandbox | Container


class Runtime:
    def __init__(
        self,
        clock: Clock,
        ids: IdSource,
        *,
        programs: Programs | None = None,
        registry: Registry | None = None,
        pod_cidr: str = DEFAULT_POD_CIDR,
        runtime_handlers: Iterable[str] = DEFAULT_RUNTIME_HANDLERS,
        limits: Limits | None = None,
        max_images: int | None = None,
        outbox_limit: int = 100_000,
    ) -> None:
        self.clock = clock
        self.ids = ids
        self.programs: Programs = programs if programs is not None else NoPrograms()
        self.images = ImageStore(registry if registry is not None else NoRegistry(), max_images)
        self.runtime_handlers = tuple(runtime_handlers)
        self.limits = limits if limits is not None else Limits()
        self.store = store = RuntimeStore(IpPool(pod_cidr))
        self._default_cidr = store.ips.cidr
        # The store's tables under short names (the same objects; the store is never replaced).
        self._sandboxes = store.sandboxes
        self._containers = store.containers
        self._outbox: deque[Said] = deque(maxlen=outbox_limit)
        self._changes = 0

    # ------------------------------------------------------------ plumbing

    @property
    def changes(self) -> int:
        """A number that grows whenever anything the engine holds changes (records, images, the CIDR)."""
        return self._changes + self.images.changes

    def _put_sandbox(self, sb: Sandbox) -> Sandbox:
        self._sandboxes[sb.id] = sb
        self._changes += 1
        return sb

    def _put_container(self, c: Container) -> Container:
        self._containers[c.id] = c
        self._changes += 1
        return c

    def _entered(self, rec: Record, state: object) -> None:
        """Announce that `rec` entered `state`: the events the transition table lists for it,
        each carrying its pod's records as they are now, and its containers' images."""
        is_sandbox = isinstance(rec, Sandbox)
        sandbox_id = rec.id if isinstance(rec, Sandbox) else rec.sandbox_id
        sb = self._sandboxes.get(sandbox_id)
        containers = tuple(map(self._containers.__getitem__, sb.container_ids)) if sb is not None else ()
        by_id = self.images.by_id
        images = {c.image_id: by_id.get(c.image_id) for c in containers}
        store = self.store
        for type_ in events_on_entering("sandbox" if is_sandbox else "container", state):
            now = self.clock.now_ns()
            if now < store.last_event_ns:
                now = store.last_event_ns
            store.last_event_ns = now
            self._outbox.append(Event(type_, rec.id, sandbox_id, now, is_sandbox, sb, containers, rec, images))

    def _write(self, c: Container, stream: str, text: str, ts_ns: int) -> None:
        self._outbox.append(Output(c.id, c.log_path, stream, text, ts_ns))

    def drain_events(self) -> list[Said]:
        """Everything said since the last drain, in order: `Event`s and container `Output`."""
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

    def _new_id(self) -> str:
        """A fresh id: never one a record holds now (a restored state's ids stay taken)."""
        while True:
            new = self.ids.new_id()
            if new not in self._sandboxes and new not in self._containers:
                return new

    def get_sandbox(self, sid: str) -> Sandbox:
        sb: Sandbox | None = self._find(self._sandboxes, sid, "sandbox")
        if sb is None:
            raise NotFound(f"sandbox {sid!r} not found")
        return sb

    def get_container(self, cid: str) -> Container:
        c: Container | None = self._find(self._containers, cid, "container")
        if c is None:
            raise NotFound(f"container {cid!r} not found")
        return c

    @property
    def pod_cidr(self) -> str:
        return self.store.ips.cidr

    def set_pod_cidr(self, cidr: str) -> None:
        self.store.ips.set_cidr(cidr)
        self._changes += 1

    def removed_cpu_ns(self, sid: str) -> int:
        """CPU nanoseconds used by containers already removed from sandbox `sid` (so pod counters only grow)."""
        return self.store.removed_cpu.get(sid, 0)

    def is_stopping(self, cid: str) -> bool:
        """A slow stop of `cid` has begun and not finished."""
        return cid in self.store.stopping

    def containers_of(self, sb: Sandbox) -> list[Container]:
        """The sandbox's containers, as they are now."""
        return [self._containers[cid] for cid in sb.container_ids]

    def counts(self) -> dict[str, int]:
        return {"sandboxes": len(self._sandboxes), "containers": len(self._containers),
                "running": self.store.running, "timers": len(self.store.timers)}

    # ------------------------------------------------------------ sandboxes

    def run_pod_sandbox(
        self, *, name: str, namespace: str, uid: str, attempt: int = 0, labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None, hostname: str = "", log_directory: str = "",
        runtime_handler: str = "", spec: SandboxSpec = EMPTY_SANDBOX_SPEC, resources: Resources | None = None,
        overhead: Resources | None = None,
    ) -> Sandbox:
        for field, value in (("name", name), ("namespace", namespace), ("uid", uid)):
            if not value:
                raise InvalidArgument(
                    f"sandbox config metadata.{field} is required (name={name!r}, namespace={namespace!r}, uid={uid!r})"
                )
        if runtime_handler not in self.runtime_handlers:
            known = ", ".join(repr(h) for h in self.runtime_handlers)
            raise NotFound(
                f"runtime handler {runtime_handler!r} for sandbox {name!r} is not configured (known: {known})")
        key = (name, namespace, uid, attempt)
        if key in self.store.sandbox_keys:
            raise AlreadyExists(
                f"sandbox {namespace}/{name} (uid {uid}, attempt {attempt}) already exists as "
                f"{self.store.sandbox_keys[key]}"
            )
        self.limits.check_sandboxes(len(self._sandboxes), name)
        validate_resources(resources, f"sandbox {namespace}/{name}")
        validate_resources(overhead, f"sandbox {namespace}/{name} (overhead)")
        sb = Sandbox(
            id=self._new_id(), name=name, namespace=namespace, uid=uid, attempt=attempt,
            state=SandboxState.READY, created_at=self.clock.now_ns(), labels=interned(labels or {}),
            annotations=interned(annotations or {}), hostname=hostname, log_directory=log_directory,
            runtime_handler=runtime_handler, spec=spec, overhead=overhead, resources=resources,
        )
        self.programs.check_sandbox(sb)  # InvalidArgument on a bad fakecri.io/ annotation
        # On the host's network a pod has no address of its own: the kubelet reports the node's.
        if spec.namespaces.network != NODE:
            sb = evolve(sb, ip=self.store.ips.allocate())
        self._put_sandbox(sb)
        self.store.sandbox_keys[key] = sb.id
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
            for cid in sb.container_ids:
                self._kill(self._containers[cid])
            sb = self._put_sandbox(evolve(self._sandboxes[sb.id], state=SandboxState.NOTREADY))
            self._entered(sb, step)
        elif step == GONE:
            for cid in self._sandboxes[sb.id].container_ids:
                self.remove_container(cid)
            sb = self._sandboxes[sb.id]
            self._entered(sb, step)  # while still listed, so the event carries its status
            del self._sandboxes[sb.id]
            self._changes += 1
            self.store.removed_cpu.pop(sb.id, None)
            self.store.sandbox_keys.pop((sb.name, sb.namespace, sb.uid, sb.attempt), None)
            self.store.ips.release(sb.ip)

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
        validate_resources(overhead, f"sandbox {sb.id} (overhead)")
        validate_resources(resources, f"sandbox {sb.id}")
        self._put_sandbox(evolve(sb, overhead=overhead if overhead is not None else sb.overhead,
                                  resources=resources if resources is not None else sb.resources))

    # ------------------------------------------------------------ containers

    def create_container(
        self, sid: str, *, name: str, attempt: int = 0, image: str,
        labels: Mapping[str, str] | None = None, annotations: Mapping[str, str] | None = None,
        command: Sequence[str] = (), args: Sequence[str] = (), log_path: str = "",
        resources: Resources | None = None, spec: ContainerSpec = EMPTY_CONTAINER_SPEC,
    ) -> Container:
        """`image`: the reference the caller gave (a tag, digest or id), resolved in the image
        store; `log_path`: relative to the sandbox's log directory, as in ContainerConfig."""
        sb = self._find(self._sandboxes, sid, "sandbox")
        path_for("sandbox", sid, "create_container", MISSING if sb is None else sb.state)
        img = self.images.resolve(image)
        # What the container reports as its image: the image's repo digest when it has one, else its id.
        image_ref = img.repo_digests[0] if img.repo_digests else img.id
        return self._add_container(
            sb, name=name, attempt=attempt, image=image, image_ref=image_ref, image_id=img.id,
            labels=labels or {}, annotations=annotations or {}, command=command, args=args, log_path=log_path,
            resources=resources, spec=spec,
        )

    def restore_container(self, sid: str, old: Container, log_path: str) -> Container:
        """A new container (fresh id, state CREATED) in sandbox `sid` made from a checkpointed record."""
        sb = self.get_sandbox(sid)
        path_for("sandbox", sid, "create_container", sb.state)
        return self._add_container(
            sb, name=old.name, attempt=old.attempt, image=old.image, image_ref=old.image_ref, image_id=old.image_id,
            labels=old.labels, annotations=old.annotations, command=old.command, args=old.args, log_path=log_path,
            resources=old.resources, spec=old.spec,
        )

    def _add_container(
        self, sb: Sandbox, *, name: str, attempt: int, image: str, image_ref: str, image_id: str,
        labels: Mapping[str, str], annotations: Mapping[str, str], command: Sequence[str], args: Sequence[str],
        log_path: str, resources: Resources | None, spec: ContainerSpec,
    ) -> Container:
        if not name:
            raise InvalidArgument(f"container config metadata.name is required (sandbox {sb.id})")
        key = (sb.id, name, attempt)
        if key in self.store.container_keys:
            raise AlreadyExists(
                f"container {name!r} (attempt {attempt}) already exists in sandbox {sb.id} "
                f"as {self.store.container_keys[key]}"
            )
        self.limits.check_containers(len(self._containers), name)
        validate_resources(resources, f"container {name!r} in sandbox {sb.id}")
        c = Container(
            id=self._new_id(), sandbox_id=sb.id, name=name, attempt=attempt, state=ContainerState.CREATED,
            created_at=self.clock.now_ns(), image=sys.intern(image), image_ref=image_ref, image_id=image_id,
            labels=interned(labels), annotations=interned(annotations), command=tuple(command), args=tuple(args),
            log_path=posixpath.join(sb.log_directory, log_path) if log_path else "",
            resources=resources if resources is not None else Resources(), spec=spec,
        )
        c = evolve(c, user=self.programs.check(c, sb, self.images.by_id.get(image_id) if image_id else None))
        self._put_container(c)
        self.store.container_keys[key] = c.id
        self._put_sandbox(evolve(sb, container_ids=sb.container_ids + (c.id,)))
        for step in path_for("container", c.id, "create", MISSING):
            self._entered(c, step)
        return c

    def start_container(self, cid: str) -> None:
        c = self.get_container(cid)
        path_for("container", c.id, "start", c.state)
        sb = self._sandboxes[c.sandbox_id]
        path_for("sandbox", sb.id, "start_container", sb.state)
        plan = self._plan(c)
        now = self.clock.now_ns()
        if plan.fail_start is not None:
            message = f"failed to start container {c.id} ({c.name}): {plan.fail_start}"
            self._finish(c, "fail_start", EXIT_START_ERROR, START_ERROR, message, now)
            raise Other("UNKNOWN", message)
        c = self._put_container(evolve(c, state=_RUNNING, started_at=now))
        self.store.running += 1
        self._entered(c, _RUNNING)
        for offset, stream, text in plan.outputs:
            if offset == 0:
                self._write(c, stream, text, now)
        self._after_wake(c, plan, 0, now)

    def _plan(self, c: Container) -> Plan:
        """`c`'s plan, asked of the Programs port once (its answer never changes) and kept while it
        runs; the port is handed what it needs (the sandbox, the image record), never reads back."""
        plan = self.store.plans.get(c.id)
        if plan is None:
            image = self.images.by_id.get(c.image_id) if c.image_id else None
            plan = self.store.plans[c.id] = self.programs.plan(c, self._sandboxes[c.sandbox_id], image)
        return plan

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
            self.store.timers.push(due + (nxt - offset), c.id, WAKE, nxt)

    def _wake(self, c: Container, offset: int, due: int) -> None:
        plan = self._plan(c)
        for off, stream, text in plan.outputs:
            if off == offset:
                self._write(c, stream, text, due)
        every = plan.log_every_ns
        if every and offset % every == 0 and (plan.end_ns is None or offset < plan.end_ns):
            line = plan.log_every_line.replace("{n}", str(offset // every))
            self._write(c, plan.log_stream, line + "\n", due)
        if self._containers[c.id].state == _RUNNING:
            self._after_wake(c, plan, offset, due)

    def _finish(self, c: Container, op: str, exit_code: int, reason: str, message: str, at_ns: int) -> None:
        """The one place a container becomes EXITED (stop, kill, timer, control plane, start failure).

        Does nothing when the table says `op` does not lead through EXITED from the current state.
        """
        if _EXITED not in path_for("container", c.id, op, c.state):
            return
        if c.state == _RUNNING:
            self.store.running -= 1
        c = self._put_container(evolve(c, state=_EXITED, finished_at=max(at_ns, c.started_at), exit_code=exit_code,
                                        reason=reason, message=message))
        self.store.stopping.pop(c.id, None)
        self.store.plans.pop(c.id, None)
        self._entered(c, _EXITED)

    def _kill(self, c: Container) -> None:
        self._finish(c, "kill", EXIT_KILLED, ERROR, "", self.clock.now_ns())

    def stop_container(self, cid: str, timeout_s: float = 0.0, lag_ns: int = 0, taken: Taken | None = None) -> float:
        """Stop; returns the seconds the stop takes (0: done). A slow stop finishes in `tick`.
        `lag_ns` makes the exit come that much later than the stop itself would (a runtime that
        answers the stop before it has handled the exit). `taken`: see Plan.stop_outcome."""
        c = self._find(self._containers, cid, "container")
        if not path_for("container", cid, "stop", MISSING if c is None else c.state):
            return 0.0
        now = self.clock.now_ns()
        plan = self._plan(c)
        self.store.diverted.update((c.id,) if taken is not None else ())  # its plan's timers stop
        delay, code, reason = plan.stop_outcome(max(0, round(timeout_s * 1e9)), taken)
        delay += lag_ns
        pending = self.store.stopping.get(c.id)
        if pending is not None and pending[0] <= now + delay:
            due = pending[0]
        elif delay == 0:
            self._finish(c, "stop", code, reason, "", now)
            return 0.0
        else:
            due = now + delay
            self.store.stopping[c.id] = (due, code, reason)
            self.store.timers.push(due, c.id, STOP)
        if plan.end_ns is not None and now < c.started_at + plan.end_ns < due and c.id not in self.store.diverted:
            due = c.started_at + plan.end_ns  # it exits on its own before the stop completes
        return (due - now) / 1e9

    def complete_stop(self, cid: str) -> None:
        """Finish a pending slow stop now (the server calls it after waiting the stop's delay)."""
        c = self._containers.get(cid)
        pending = self.store.stopping.get(cid)
        if c is not None and pending is not None:
            self._finish(c, "stop", pending[1], pending[2], "", pending[0])

    def exit_container(self, cid: str, exit_code: int, reason: str = "", message: str = "",
                       at_ns: int | None = None) -> None:
        """An exit that happens on its own: the control plane, or a program the simulation runs live."""
        c = self.get_container(cid)
        self._finish(c, "exit", exit_code, reason or reason_for(exit_code), message,
                     self.clock.now_ns() if at_ns is None else at_ns)

    def write_output(self, cid: str, stream: str, text: str, ts_ns: int) -> None:
        """What a program the simulation runs live wrote (see RuntimeStore.takes_output)."""
        if self.store.takes_output(c := self.get_container(cid), ts_ns):
            self._write(c, stream, text, ts_ns)

    def remove_container(self, cid: str) -> None:
        c = self._find(self._containers, cid, "container")
        for step in path_for("container", cid, "remove", MISSING if c is None else c.state):
            if step == _EXITED:
                self._finish(c, "remove", EXIT_KILLED, ERROR, "", self.clock.now_ns())
            elif step == GONE:
                c = self._containers.pop(c.id)
                self._changes += 1
                self.store.container_keys.pop((c.sandbox_id, c.name, c.attempt), None)
                self.store.forget_stop(c.id)
                sb = self._sandboxes.get(c.sandbox_id)
                if sb is not None:
                    self._put_sandbox(evolve(sb, container_ids=tuple(x for x in sb.container_ids if x != c.id)))
                    used = self.programs.cpu_used_ns(c, sb, self.clock.now_ns())
                    if used:
                        self.store.removed_cpu[sb.id] = self.store.removed_cpu.get(sb.id, 0) + used
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

    def update_container_resources(self, cid: str, resources: Resources) -> None:
        """Validate, then store."""
        c = self.get_container(cid)
        path_for("container", c.id, "update_resources", c.state)
        validate_resources(resources, f"container {c.id} ({c.name})")
        self._put_container(evolve(c, resources=resources))

    def check_exec(self, cid: str, op: str = "exec") -> Container:
        """The container `op` (exec, attach) may be done to now, by the transition table
        (FailedPrecondition unless it runs)."""
        c = self.get_container(cid)
        path_for("container", c.id, op, c.state)
        return c

    def check_reopen_log(self, cid: str) -> Container:
        return self.check_exec(cid, "reopen_log")

    def check_port_forward(self, sid: str) -> Sandbox:
        """The sandbox a port may be forwarded into now (FailedPrecondition unless it is READY)."""
        sb = self.get_sandbox(sid)
        path_for("sandbox", sb.id, "port_forward", sb.state)
        return sb

    # ------------------------------------------------------------ time

    def next_deadline_ns(self) -> int | None:
        self.store.timers.discard_head_while(self.store.is_stale)
        head = self.store.timers.peek()
        return None if head is None else head[0]

    def tick(self) -> None:
        """Run every timer due now, in due order."""
        now = self.clock.now_ns()
        if not self.clock.is_fake:
            now += REAL_CLOCK_SLACK_NS
        timers, stale = self.store.timers, self.store.is_stale
        while True:
            entry = timers.pop_due(now)
            if entry is None:
                break
            if stale(entry):
                continue
            due, _, cid, kind, offset = entry
            c = self._containers[cid]
            if kind == STOP:
                _, code, reason = self.store.stopping[cid]
                self._finish(c, "stop", code, reason, "", due)
            else:
                self._wake(c, offset, due)
        if len(timers) > 2 * self.store.running + 1024:
            timers.compact(lambda e: not stale(e))

    # ------------------------------------------------------------ whole-state operations

    def wipe(self) -> None:
        """Forget every sandbox and container (a runtime restart that lost its state). No events."""
        self.store.clear()
        self._outbox.clear()
        self._changes += 1

    def reset(self) -> None:
        """Back to how it was made: no records, no images, the configured pod CIDR."""
        self.wipe()
        self.store.last_event_ns = 0
        self.store.ips.set_cidr(self._default_cidr)
        self.images.clear()

    def snapshot(self) -> dict[str, Any]:
        """A JSON-able snapshot of the records, timers and images (for --state-file). Timers
        are kept as deadlines on the runtime clock."""
        return snapshot.store_to_dict(self.store, self.images, self.runtime_handlers, self.clock.now_ns())

    def restore(self, data: Mapping[str, Any]) -> None:
        """Replace everything with a `snapshot()`; the whole snapshot is checked first, so a
        malformed one (InvalidArgument naming the bad value) changes nothing. Running
        containers keep running and timers keep their deadlines (overdue ones fire at the next tick)."""
        loaded = snapshot.read(data, self.clock.now_ns())
        self.images.load(loaded.images)
        self.store.clear()
        snapshot.fill(self.store, loaded)
        self._changes += 1

    # ------------------------------------------------------------ checkpoints

    def checkpoint_container(self, cid: str) -> dict[str, Any]:
        """A JSON-able description of a running container (the server writes the archive)."""
        return checkpoints.checkpoint_container(self, cid)

    def checkpoint_pod(self, sid: str, container_ids: Sequence[str] = ()) -> dict[str, Any]:
        """A JSON-able description of a READY sandbox and its containers (all, or the ones named)."""
        return checkpoints.checkpoint_pod(self, sid, container_ids)

    def restore_pod(self, data: Any, **overrides: Any) -> tuple[Sandbox, list[Container]]:
        """Recreate a checkpointed pod with fresh ids; the containers that ran are started. Either
        all of it is restored or nothing is left (see checkpoints.OVERRIDABLE for the overrides)."""
        return checkpoints.restore_pod(self, data, overrides)
