"""The way of every call: the RPC wrapper around each servicer method, the change block the
servicer runs in and the commit at its end, and the call record. The Node (node.py) is a
`CallPath`: what one call needs of it is here, in one module, and what a whole node does
(construction, reset, restart, the event streams' subscriptions, what the host and the
streaming server ask) is in node.py.

The wrapper. Register servicer objects with a grpc.aio server straight from the service
descriptors (`generic_handler`), each method wrapped by `_call_unary` or `_call_stream`,
which do, in order: the fault gate (a restart in progress, injected latency, hangs, errors
and restarts; skipped, and no fault module asked, while no fault acts on RPCs), the request
check, the servicer method inside `node.changing()`, the message-size limit, the "after"
fault gate, the wait for slow event readers under the block policy; then, whatever
happened, the mapping of errors to status codes and the call record. Responses may be
protobuf messages or ready-made wire bytes (the list calls), so the serializer passes
bytes through untouched. The call record's one-line summary of a request (the call log:
`fakecri ctl calls`, `FakeCRI.call_log()`) names the objects the call was about, so a log
reads as a story; the fields to look at are worked out once per request type (`_Plan`).

The commit. `with node.changing():` is the one way to change the node. Every RPC (unary or
streaming), every control call, every timer, every web-server answer and every streaming
input happens inside one; on its way out it commits: it drains the engine's outbox (and
takes the engine's next deadline with it), writes the state file when something changed,
then carries out what the outbox held (events to the encoder and the bus, to the listeners,
the sessions and the simulation as each concerns them; container output to the log files
and attached clients) and re-arms the loop timer for the next deadline. If the write fails,
the change is undone instead and nothing of it goes out (the block raises Unavailable); a
block that raised commits what it changed before the error and the error stands.
Everything here runs on the server's event loop.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import traceback
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from typing import Any, NamedTuple, Protocol

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError

from fakecri.engine import errors
from fakecri.engine.clock import Clock
from fakecri.engine.records import Container, Event, EventType, Output
from fakecri.engine.runtime import Runtime
from fakecri.faults.plan import FaultPlan
from fakecri.faults.quirk_kinds import shared_event_channel
from fakecri.server.codec.status import code_for
from fakecri.server.config import ServerConfig
from fakecri.server.events.bus import EventBus
from fakecri.server.events.encoder import EventEncoder
from fakecri.server.exceptions import DeadlineExceeded, StartupError, StateWriteError, Unavailable
from fakecri.server.host.dialer import exchange, within
from fakecri.server.host.host import HostRoot
from fakecri.server.host.listeners import PortListeners
from fakecri.server.host.log_files import LogFiles
from fakecri.server.node.sessions import Sessions
from fakecri.sim.live import Decision, Exited, Wrote
from fakecri.sim.simulation import Simulation
from fakecri.sim.steps import Connect, NetResult

WRITE_RETRY_S = 1.0  # after a state write failed, timers wait this long before they try again


class CallRecord(NamedTuple):
    """One answered call, as the call log keeps it (a tuple: one is made for every call)."""

    method: str
    summary: str
    code: str
    duration_s: float
    at_ns: int


class RpcObserver(Protocol):
    """The Prometheus side service, as the RPC wrapper sees it."""

    url: str

    def observe_rpc(self, method: str, code: str, duration_s: float) -> None: ...


class Persistence(Protocol):
    """The state file, as the commit point sees it."""

    def write_if_changed(self) -> None:
        """Write the state if it changed since the last write; StateWriteError if it cannot."""

    def roll_back(self) -> None:
        """Put the runtime back to what the file holds."""

    def close(self) -> None:
        """Write the last state if it can and let go of the file's lock."""


OutputListener = Callable[[Output], None]


class CallPath:
    """What one call needs of the Node: the change block and its commit, the timers it arms,
    the live programs' decisions carried out, the call record. The Node builds every part
    declared here in its constructor."""

    config: ServerConfig
    clock: Clock
    log: Any
    counters: Counter[str]
    call_log: deque[CallRecord]
    server_errors: deque[str]
    runtime: Runtime
    sim: Simulation
    plan: FaultPlan
    bus: EventBus
    encoder: EventEncoder
    ports: PortListeners
    log_files: LogFiles
    sessions: Sessions
    host_root: HostRoot
    output_listeners: list[OutputListener]
    _log_rpcs: bool
    _metrics: RpcObserver | None
    _persistence: Persistence | None
    _unsent: deque[Event]
    _timer: asyncio.TimerHandle | None
    _timer_due: int | None
    _retry_at: float

    def count(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    @contextlib.contextmanager
    def changing(self) -> Iterator[None]:
        """The one way to change the node: what the block changes is committed on its way out
        (see the module doc). A block that raised commits what it changed before the error (a
        failing commit then is logged, and the block's error stands)."""
        try:
            yield
        except BaseException:
            try:
                self._commit()
            except Exception as exc:  # the block's error is the answer; the failure is the state file's
                self.log.error("commit after a failed change", error=repr(exc))
            raise
        self._commit()

    def _commit(self) -> None:
        """Save the state, then carry out what the engine said and re-arm the timer. A state
        write that fails undoes the change: nothing it said goes out, and the block raises
        Unavailable naming the state file."""
        runtime = self.runtime
        said = runtime.drain_events()
        engine_due = runtime.next_deadline_ns()  # nothing below changes the engine: asked once, here
        if self._persistence is not None:
            try:
                self._persistence.write_if_changed()
            except StateWriteError as exc:
                self._undo(exc)
        if said:
            events = [item for item in said if isinstance(item, Event)]
            if events:  # the subscribers first: the node's own parts hear them after (_event)
                quirks = self.plan.quirk_set
                if self.bus.subscribers or (quirks and shared_event_channel.shared(quirks)):
                    self.encoder.publish(events, quirks)  # (a shared channel holds events for the first subscriber)
                else:  # nobody to tell now: encoded only if a subscriber comes and a fault replays it
                    self._unsent.extend(events)
            for item in said:
                if isinstance(item, Event):
                    self._event(item)
                else:
                    self._output(item)
        steps, sim_due = self.sim.pending()
        for cid, step in steps:  # a container's own program reaching the network
            asyncio.ensure_future(self._carry(cid, step))
        self._arm(sim_due, engine_due)

    def _undo(self, exc: StateWriteError) -> None:
        """A change could not be written: put the runtime back to what the file holds (its events
        and output are dropped, never told), hold the timers for WRITE_RETRY_S (a timer's change
        is made again then, and written if it can be), and fail the caller."""
        assert self._persistence is not None
        self.count("state_write_failures")
        self._retry_at = time.monotonic() + WRITE_RETRY_S
        try:
            self._persistence.roll_back()
        except StartupError as undo_failed:  # the file cannot be read back either: nothing better to hold
            self.log.error("state file roll-back failed", error=str(undo_failed))
        self.reschedule()
        raise Unavailable(
            f"{exc.strerror}: the change was undone (the runtime holds what the file holds); "
            "changes are taken again once the file can be written")

    def _event(self, ev: Event) -> None:
        """What the node's own parts do at an event (the subscribers have theirs already):
        a creation concerns none of them; the sessions inside what stopped or went end; a
        started container's program gets its real listeners (if it listens at all) and its
        log file, and at its end both go and the simulation hears of it. A part with nothing
        of the container's (no session, no listener) is not asked."""
        kind = ev.type
        if kind == EventType.CREATED:
            return
        cid = ev.container_id
        if kind != EventType.STARTED and cid in self.sessions.watched:
            self.sessions.on_event(ev)
        if ev.is_sandbox:
            return
        c = ev.subject
        if kind == EventType.STARTED:
            if isinstance(c, Container):
                listens = self.sim.listeners(c)
                if listens and ev.sandbox is not None:
                    self.ports.open(c, ev.sandbox, listens)
                self.log_files.create(c.log_path)
            return
        if cid in self.ports.opened:
            self.ports.close(cid)
        if kind == EventType.STOPPED:
            if isinstance(c, Container):
                self.log_files.flush(c.log_path)
            self.sim.stopped(cid)
        elif kind == EventType.DELETED:
            self.sim.forget(cid)

    def _output(self, out: Output) -> None:
        self.log_files.write(out.log_path, out.stream, out.text, out.ts_ns)
        for fn in list(self.output_listeners):
            fn(out)

    def dial(self, step: Connect) -> Awaitable[NetResult]:
        """Carry out a program's network step on the real network: any loopback address, or
        with `--host-root` only the pod network's (this node's pod CIDR), so that a confined
        node's pods reach each other and nothing the host serves."""
        if not self.host_root.confined:
            return exchange(step)
        return exchange(step, within(self.runtime.pod_cidr))

    async def _carry(self, cid: str, step: Connect) -> None:
        """Carry out a live program's network step, then let it run on."""
        result = await self.dial(step)
        try:
            self.apply(self.sim.network_answered(cid, result, self.clock.now_ns()))
        except Exception as exc:  # a task has no caller to answer: log it, keep serving
            self.log.error("live program failed", container=cid, error=repr(exc))
            self.count("live_program_errors")

    def apply(self, decisions: Iterable[Decision]) -> None:
        """Carry out what the simulation decided for programs it runs live, and commit it."""
        with self.changing():
            self._apply(decisions)

    def _apply(self, decisions: Iterable[Decision]) -> None:
        for d in decisions:
            try:
                if isinstance(d, Wrote):
                    self.runtime.write_output(d.container_id, d.stream, d.text, d.ts_ns)
                elif isinstance(d, Exited):
                    self.runtime.exit_container(d.container_id, d.exit_code, d.reason, at_ns=d.ts_ns)
            except errors.CoreError:
                continue  # the container was stopped or removed meanwhile

    # ------------------------------------------------------------ timers

    def tick(self) -> None:
        """Run what is due now (the engine's timers, the simulation's live programs), then commit."""
        if self._timer is not None:  # fired, or superseded by this explicit tick
            self._timer.cancel()
            self._timer = None
        self._timer_due = None
        with self.changing():
            self.runtime.tick()
            self._apply(self.sim.tick(self.clock.now_ns()))

    def _timer_fired(self) -> None:
        try:
            self.tick()
        except Unavailable:
            pass  # its change could not be written (logged): undone, and tried again later
        except Exception as exc:  # a timer has no caller to answer: log it, keep serving
            self.log.error("timer failed", error=repr(exc))
            self.count("timer_errors")

    def reschedule(self) -> None:
        """Arm the loop timer for the next deadline of the engine or the simulation."""
        self._arm(self.sim.next_deadline_ns(), self.runtime.next_deadline_ns())

    def _arm(self, sim_due: int | None, engine_due: int | None) -> None:
        """`reschedule`, with both next deadlines known (the commit has just asked them)."""
        due = sim_due if engine_due is None else engine_due if sim_due is None else min(engine_due, sim_due)
        if due is not None and self.clock.is_fake:
            due = None
        if due == self._timer_due:
            return  # the armed timer (or none) is still right: most calls move no deadline
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_due = due
        if due is None:
            return
        delay = max(0.0, (due - self.clock.now_ns()) / 1e9, self._retry_at - time.monotonic())
        self._timer = asyncio.get_running_loop().call_later(delay, self._timer_fired)

    # ------------------------------------------------------------ the call record

    def record_call(self, method: str, summary: str, code: str, duration_s: float,
                    ids: Callable[[], dict[str, str]]) -> None:
        """An answered call: into the call log, the counters, /metrics and (`log_rpcs`) the log."""
        self.call_log.append(CallRecord(method, summary, code, duration_s, self.clock.now_ns()))
        self.counters[f"rpc:{method}:{code}"] += 1
        if self._metrics is not None:
            self._metrics.observe_rpc(method, code, duration_s)
        if self._log_rpcs:
            self.log.info("rpc", method=method, code=code, ms=round(duration_s * 1000, 3), **ids())

    def record_error(self, traceback_text: str) -> None:
        """A handler raised: keep its traceback (the newest few) and count it."""
        self.server_errors.append(traceback_text)
        self.count("internal_errors")


class Served(Protocol):
    """The node as the wrapper sees it (the Node is one)."""

    config: ServerConfig
    plan: FaultPlan
    bus: EventBus
    log: Any
    down_until: float

    def changing(self) -> contextlib.AbstractContextManager[None]: ...

    def record_call(self, method: str, summary: str, code: str, duration_s: float,
                    ids: Callable[[], dict[str, str]]) -> None: ...

    def record_error(self, traceback_text: str) -> None: ...

    async def restart(self, downtime_s: float, wipe: bool) -> None: ...


# INTERNAL answers: every one is counted (`internal_errors`), the tracebacks of the last
# the node keeps for check() and GetServerInfo (node.ERROR_RING), each cut to TRACEBACK_CHARS.
TRACEBACK_CHARS = 16 * 1024
MESSAGE_CHARS = 1024


# Each unary list's streaming twin, named when the list is too big for one message.
STREAM_TWINS = {
    "ListPodSandbox": "StreamPodSandboxes", "ListContainers": "StreamContainers", "ListImages": "StreamImages",
    "ListContainerStats": "StreamContainerStats", "ListPodSandboxStats": "StreamPodSandboxStats",
    "ListPodSandboxMetrics": "StreamPodSandboxMetrics",
}


def too_big(name: str, size: int, limit: int, *, at_least: bool = False) -> errors.ResourceExhausted:
    """The error of a unary answer over the message limit, naming the call that can carry it."""
    twin = STREAM_TWINS.get(name)
    advice = f"use {twin}, which sends it in parts under the limit, or a filter" if twin else "use a filter"
    return errors.ResourceExhausted(
        f"{name}: the answer would be {'over ' if at_least else ''}{size} bytes, over the {limit}-byte "
        f"message limit; {advice}")


def _serialize(msg: Any) -> bytes:
    return msg if type(msg) is bytes else msg.SerializeToString()


class _Undecodable:
    """What the deserializer hands the wrapper for bytes that are not a valid request message."""

    def __init__(self, type_name: str, error: str) -> None:
        self.type_name = type_name
        self.error = error


def _deserializer(request_cls: Any) -> Callable[[bytes], Any]:
    def parse(data: bytes) -> Any:
        try:
            return request_cls.FromString(data)
        except DecodeError as exc:  # a caller mistake: INVALID_ARGUMENT, not grpc's UNKNOWN
            return _Undecodable(request_cls.DESCRIPTOR.full_name, str(exc))

    return parse


async def _gate(node: Served, name: str, context: Any, stage: str) -> None:
    """What the fault plan (or a restart in progress) does to this call at `stage`."""
    if stage == "before" and node.down_until and asyncio.get_running_loop().time() < node.down_until:
        raise Unavailable(f"{name}: the runtime is restarting")
    action = node.plan.on_call(name, stage)
    if action is None:
        return
    if action.restart is not None:
        await node.restart(action.restart.downtime_s, action.restart.wipe)
        raise Unavailable(f"{name}: the runtime is restarting")
    if action.delay_s > 0:
        await asyncio.sleep(action.delay_s)
    if action.hang:
        remaining = context.time_remaining()
        await asyncio.sleep(remaining + 0.05 if remaining is not None else 3600.0)
        raise DeadlineExceeded(f"{name}: hung by a fault until the deadline")
    if action.error is not None:
        code, message = action.error
        raise errors.from_code(code, message or f"{name}: error injected by a fault")


def _record(node: Served, name: str, request: Any, code: str, started: float) -> None:
    duration = time.perf_counter() - started
    node.record_call(name, summarize(request), code, duration,
                     lambda: ids_named(request) if type(request) is not _Undecodable else {})


async def _abort(node: Served, name: str, exc: Exception, context: Any) -> None:
    """End the call with the status for `exc`: a core error's code, or INTERNAL for a bug
    in fakecri (recorded so that check() fails the test that caused it)."""
    if isinstance(exc, errors.CoreError):
        await context.abort(code_for(exc), exc.message)
    tb = _cut(traceback.format_exc(), TRACEBACK_CHARS)
    node.record_error(tb)
    error = _cut(repr(exc), MESSAGE_CHARS)
    node.log.error("handler raised", method=name, error=error, traceback=tb)
    await context.abort(grpc.StatusCode.INTERNAL, f"fakecri internal error in {name}: {error}")


def _cut(text: str, limit: int) -> str:
    """`text` if short enough, else its head and its tail (where a traceback names the error)."""
    if len(text) <= limit:
        return text
    head = limit // 4
    return f"{text[:head]}\n... ({len(text) - limit} characters left out) ...\n{text[-(limit - head):]}"


def _check_decoded(request: Any) -> None:
    if type(request) is _Undecodable:
        raise errors.InvalidArgument(f"the request is not a valid {request.type_name}: {request.error}")


async def _call_unary(node: Served, name: str, impl: Callable[..., Any], gated: bool, request: Any,
                      context: Any) -> Any:
    """One unary call. `gated=False` skips the fault gate and the call record (the control service)."""
    started = time.perf_counter()
    code = "OK"
    try:
        # The gate only has work when faults are armed or a restart is in progress;
        # skipping the coroutine otherwise keeps the no-fault path short.
        if gated and (node.down_until or node.plan.has_rpc_faults):
            await _gate(node, name, context, "before")
        _check_decoded(request)
        emitted = node.bus.emitted
        with node.changing():
            resp = await impl(request, context)
        if type(resp) is bytes and len(resp) > node.config.max_message_bytes:
            raise too_big(name, len(resp), node.config.max_message_bytes)
        if gated and node.plan.has_rpc_faults:
            await _gate(node, name, context, "after")
        if node.bus.policy == "block" and node.bus.emitted != emitted:
            await node.bus.wait_for_room()  # only an RPC that emitted events waits for slow readers
        return resp
    except grpc.aio.AbortError:
        raise
    except asyncio.CancelledError:
        code = "CANCELLED"
        raise
    except Exception as exc:
        code = exc.code if isinstance(exc, errors.CoreError) else "INTERNAL"
        await _abort(node, name, exc, context)
    finally:
        if gated:
            _record(node, name, request, code, started)


async def _call_stream(node: Served, name: str, impl: Callable[..., Any], gated: bool, request: Any,
                       context: Any) -> AsyncIterator[Any]:
    """One server-streaming call: each item the servicer yields, through the same steps."""
    started = time.perf_counter()
    code = "OK"
    try:
        if gated and (node.down_until or node.plan.has_rpc_faults):
            await _gate(node, name, context, "before")
        _check_decoded(request)
        with node.changing():
            async for item in impl(request, context):
                yield item
    except grpc.aio.AbortError:
        raise
    except (asyncio.CancelledError, GeneratorExit):
        code = "CANCELLED"
        raise
    except Exception as exc:
        code = exc.code if isinstance(exc, errors.CoreError) else "INTERNAL"
        await _abort(node, name, exc, context)
    finally:
        if gated:
            _record(node, name, request, code, started)


def generic_handler(service: ServiceDescriptor, servicer: Any, node: Served, *,
                    gated: bool = True) -> grpc.GenericRpcHandler:
    """Every method of `service`, served by the same-named method of `servicer` through
    `_call_unary` or `_call_stream`. `servicer` may be a list: a service served by one servicer
    per family of RPCs, each method by the one servicer that has it."""
    servicers = servicer if isinstance(servicer, list) else [servicer]
    methods = {}
    for m in service.methods:
        owners = [s for s in servicers if hasattr(s, m.name)]
        if len(owners) != 1:
            raise TypeError(f"{service.full_name}.{m.name} is served by {len(owners)} servicers, not one")
        impl = getattr(owners[0], m.name)
        options = dict(request_deserializer=_deserializer(message_factory.GetMessageClass(m.input_type)),
                       response_serializer=_serialize)
        # A partial of a coroutine (or async generator) function still counts as one for grpc.aio.
        call = functools.partial(_call_stream if m.server_streaming else _call_unary, node, m.name, impl, gated)
        if m.server_streaming:
            methods[m.name] = grpc.unary_stream_rpc_method_handler(call, **options)
        else:
            methods[m.name] = grpc.unary_unary_rpc_method_handler(call, **options)
    return grpc.method_handlers_generic_handler(service.full_name, methods)


ID_FIELDS = ("pod_sandbox_id", "container_id")


class _Plan:
    """Which of the summarized fields a request type has."""

    def __init__(self, descriptor: Any) -> None:
        fields = descriptor.fields_by_name
        config = fields.get("config")
        meta = config.message_type.fields_by_name.get("metadata") if config is not None and config.message_type \
            else None
        self.config = meta is not None
        self.pod = meta is not None and "namespace" in meta.message_type.fields_by_name
        image = fields.get("image")
        self.image = image is not None and image.message_type is not None and \
            "image" in image.message_type.fields_by_name
        self.ids = tuple(f for f in ID_FIELDS if f in fields)
        filt = fields.get("filter")
        self.filter_ids = tuple(f for f in ("id", "pod_sandbox_id")
                                if filt is not None and filt.message_type is not None
                                and f in filt.message_type.fields_by_name)


_PLANS: dict[type, _Plan] = {}


def ids_named(request: Any) -> dict[str, str]:
    """The pod_sandbox_id and container_id a request names (for the per-call log line)."""
    plan = _plan(request)
    return {f: value for f in plan.ids if (value := getattr(request, f))}


def _plan(request: Any) -> _Plan:
    plan = _PLANS.get(type(request))
    if plan is None:
        plan = _PLANS[type(request)] = _Plan(request.DESCRIPTOR)
    return plan


def summarize(request: Any) -> str:
    """`pod=default/web`, `container=app attempt=0 pod_sandbox_id=...`, `image=busybox`,
    `container_id=...`: what the request names; "" for a request that names nothing."""
    if not hasattr(request, "DESCRIPTOR"):  # bytes that did not parse: nothing to name
        return ""
    plan = _plan(request)
    parts: list[str] = []
    if plan.config:
        meta = request.config.metadata
        if meta.name:
            parts.append(f"pod={meta.namespace}/{meta.name}" if plan.pod else
                         f"container={meta.name} attempt={meta.attempt}")
    if plan.image and request.image.image:
        parts.append(f"image={request.image.image}")
    for field in plan.ids:
        value = getattr(request, field)
        if value:
            parts.append(f"{field}={value[:12]}")
    if plan.filter_ids:
        filt = request.filter
        for field in plan.filter_ids:
            value = getattr(filt, field)
            if value:
                parts.append(f"filter {field}={value[:12]}")
    return " ".join(parts)
