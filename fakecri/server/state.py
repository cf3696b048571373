"""ServerState: the one object the servicers share, owned by the server's event loop.

It holds the core (runtime + images), the fault plan, the event bus, the counters and
logs, and it wraps every RPC handler with the same steps: fault gate, handler, error
mapping, event flush, timer rescheduling, call record.
"""
from __future__ import annotations

import asyncio
import json
import time
import traceback
from collections import Counter, deque
from dataclasses import asdict, dataclass
from typing import Any, Callable

import grpc
import structlog

from fakecri.core import errors
from fakecri.core.clock import Clock, FakeClock, SystemClock
from fakecri.core.ids import IdSource, RandomIds
from fakecri.core.images import Catalog, ImageStore
from fakecri.core.limits import Limits
from fakecri.core.logsink import FileLogSink
from fakecri.core.runtime import Runtime
from fakecri.faults.plan import FaultPlan
from fakecri.server.bus import EventBus, Subscription
from fakecri.server.config import ServerConfig
from fakecri.server.events import EventBuilder
from fakecri.server.status import code_for

log = structlog.get_logger("fakecri")

ID_FIELDS = ("pod_sandbox_id", "container_id")


@dataclass(frozen=True)
class CallRecord:
    method: str
    summary: str
    code: str
    duration_s: float
    at_ns: int


@dataclass(frozen=True)
class Condition:
    status: bool
    reason: str = ""
    message: str = ""


class ServerState:
    def __init__(self, config: ServerConfig, *, clock: Clock | None = None, ids: IdSource | None = None) -> None:
        self.config = config
        self.clock: Clock = clock or (FakeClock() if config.fake_clock else SystemClock())
        self._initial_clock_ns = self.clock.now_ns()
        self.ids: IdSource = ids or RandomIds(config.seed)
        self.counters: Counter[str] = Counter()
        self.call_log: deque[CallRecord] = deque(maxlen=config.call_log_size)
        self.server_errors: list[str] = []
        self.bus = EventBus(capacity=config.subscriber_buffer, policy=config.subscriber_policy)
        self.events = EventBuilder(self)
        from fakecri.server.ports import PortListeners

        self.ports = PortListeners(self)  # listeners of the web servers in running containers
        self.plan = FaultPlan(config.seed, on_fire=self._fault_fired, now_ns=self.clock.now_ns)
        for fault in config.faults:
            self.plan.add(fault)
        self.catalog = Catalog.from_file(config.image_catalog) if config.image_catalog else None
        self.log_sink = FileLogSink()  # kept across resets so attach listeners stay valid
        self.images = self._new_images()
        self.runtime = self._new_runtime()
        self.down_until = 0.0  # loop time until which calls answer UNAVAILABLE (runtime restart)
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due: int | None = None  # the deadline `_timer` is armed for (None: no timer)
        self.log_rpcs = True
        # Pluggable side services, set by the app when they run.
        self.streaming = None
        self.metrics = None
        self.persist: Callable[[], None] | None = None
        # Awaited with False when a simulated restart begins and True when it ends (health).
        self.on_availability: Callable[[bool], Any] | None = None
        from fakecri.server.checkpoints import Checkpoints
        from fakecri.server.stats import StatsBuilder

        self.checkpoints = Checkpoints(self)
        self.stats = StatsBuilder(self)

    # ------------------------------------------------------------ construction

    def _new_runtime(self) -> Runtime:
        return Runtime(
            self.clock,
            self.ids,
            on_event=self.on_runtime_event,
            log_sink=self.log_sink,
            pod_cidr=self.config.pod_cidr,
            runtime_handlers=self.config.runtime_handlers,
            limits=Limits(max_sandboxes=self.config.max_sandboxes, max_containers=self.config.max_containers),
            outbox_limit=0,  # events leave through on_event; nothing drains the outbox
            image_content=(self.catalog or Catalog()).content_of_reference,
        )

    def on_runtime_event(self, ev) -> None:
        """Every event of the runtime: to the event streams, and to the web servers' listeners."""
        self.events.on_event(ev)
        self.ports.on_event(ev)

    def _new_images(self) -> ImageStore:
        return ImageStore(self.clock, self.catalog, max_images=self.config.max_images)

    # ------------------------------------------------------------ small helpers

    def count(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    def quirks(self) -> frozenset[str]:
        return self.plan.quirks()

    def find_sandbox(self, sandbox_id: str):
        try:
            return self.runtime.get_sandbox(sandbox_id)
        except errors.NotFound:
            return None

    def conditions(self) -> dict[str, Condition]:
        out = {"RuntimeReady": Condition(True), "NetworkReady": Condition(True)}
        for name, override in self.plan.conditions(self.clock.now_ns()).items():
            out[name] = Condition(override.status, override.reason, override.message)
        return out

    def describe_config(self) -> str:
        cfg = asdict(self.config)
        cfg["faults"] = [f.to_dict() for f in self.plan.list()]
        return json.dumps(cfg, sort_keys=True, default=str)

    async def wait(self, seconds: float) -> None:
        """Let simulated time pass: real sleep on the system clock, a jump on a fake one."""
        if seconds <= 0:
            return
        if isinstance(self.clock, FakeClock):
            self.clock.advance(seconds)
            self.tick()
        else:
            await asyncio.sleep(seconds)

    # ------------------------------------------------------------ timers

    def tick(self) -> None:
        if self._timer is not None:  # fired, or superseded by this explicit tick
            self._timer.cancel()
            self._timer = None
        self._timer_due = None
        self.runtime.tick()
        self.events.flush()
        self.reschedule()

    def reschedule(self) -> None:
        due = self.runtime.next_deadline_ns()
        if due is not None and isinstance(self.clock, FakeClock):
            due = None
        if due == self._timer_due:
            return  # the armed timer (or none) is still right: most calls move no deadline
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_due = due
        if due is None:
            return
        delay = max(0.0, (due - self.clock.now_ns()) / 1e9)
        self._timer = asyncio.get_running_loop().call_later(delay, self.tick)

    # ------------------------------------------------------------ events

    def subscribe(self) -> tuple[Subscription, Any]:
        limit = self.config.max_subscribers
        if limit is not None and len(self.bus.subscribers) >= limit:
            raise errors.ResourceExhausted(f"GetContainerEvents: already {limit} subscribers open (the limit)")
        sub = self.bus.subscribe()
        self.count("subscribers_opened")
        return sub, self.plan.subscriber(sub.index)

    def unsubscribe(self, sub: Subscription) -> None:
        self.bus.unsubscribe(sub)
        self.count("events_dropped", sub.dropped)

    # ------------------------------------------------------------ control-plane actions

    def _fault_fired(self, record) -> None:
        self.count(f"fault:{record.fault}")
        log.info("fault", fault=record.fault, type=record.type, hit=record.hit)

    async def apply_pending_restart(self) -> None:
        """A restart fault with no trigger point happens as soon as it is added."""
        action = self.plan.take_restart()
        if action is not None:
            await self.restart(action.downtime_s, action.wipe)

    async def restart(self, downtime_s: float, wipe: bool) -> None:
        """Simulate a restart of the runtime daemon: drop streams, refuse calls for a while."""
        self.count("restarts")
        self.bus.close_all("UNAVAILABLE", "the runtime is restarting")
        loop = asyncio.get_running_loop()
        self.down_until = loop.time() + downtime_s
        if wipe:
            self.runtime.wipe()
            self.ports.close_all()
        log.warning("runtime restart", downtime_s=downtime_s, wipe=wipe)
        if self.on_availability is not None:
            await self.on_availability(False)
            loop.call_later(downtime_s, self._maybe_back_up)

    def _maybe_back_up(self) -> None:
        """End of a restart's downtime (unless a later restart extended it): serving again."""
        if self.on_availability is not None and asyncio.get_running_loop().time() >= self.down_until:
            asyncio.ensure_future(self.on_availability(True))

    def reset(self) -> None:
        """Forget everything a test may have changed: state, faults, clock, logs, counters."""
        self.bus.reset()
        self.plan.reset()
        self.plan.clear_log()
        for fault in self.config.faults:
            self.plan.add(fault)
        if isinstance(self.clock, FakeClock):
            self.clock._now = self._initial_clock_ns
        self.images = self._new_images()
        self.ports.close_all()
        self.runtime = self._new_runtime()
        self.counters.clear()
        self.call_log.clear()
        self.server_errors.clear()
        self.down_until = 0.0
        if self.on_availability is not None:
            asyncio.ensure_future(self.on_availability(True))
        self.reschedule()

    async def streaming_url(self, kind: str, request) -> str:
        if self.streaming is None:
            raise errors.FailedPrecondition(f"{kind}: the streaming server is not running")
        return self.streaming.url_for(kind, request)

    # ------------------------------------------------------------ the RPC wrapper

    async def _gate(self, name: str, context, stage: str) -> None:
        if stage == "before" and self.down_until and asyncio.get_running_loop().time() < self.down_until:
            raise errors.Unavailable(f"{name}: the runtime is restarting")
        action = self.plan.on_call(name, stage)
        if action is None:
            return
        if action.restart is not None:
            await self.restart(action.restart.downtime_s, action.restart.wipe)
            raise errors.Unavailable(f"{name}: the runtime is restarting")
        if action.delay_s > 0:
            await asyncio.sleep(action.delay_s)
        if action.hang:
            remaining = context.time_remaining()
            await asyncio.sleep(remaining + 0.05 if remaining is not None else 3600.0)
            raise errors.DeadlineExceeded(f"{name}: hung by a fault until the deadline")
        if action.error is not None:
            code, message = action.error
            raise errors.from_code(code, message or f"{name}: error injected by a fault")

    def _record(self, name: str, request, code: str, started: float) -> None:
        duration = time.perf_counter() - started
        if getattr(request, "pod_sandbox_id", "") or getattr(request, "container_id", ""):
            ids = {f: getattr(request, f) for f in ID_FIELDS if getattr(request, f, "")}
            summary = " ".join(f"{k}={v[:12]}" for k, v in ids.items())
        else:  # most calls name no object: skip the dict and the join
            ids, summary = {}, ""
        self.call_log.append(CallRecord(name, summary, code, duration, self.clock.now_ns()))
        self.count(f"rpc:{name}:{code}")
        if self.metrics is not None:
            self.metrics.observe_rpc(name, code, duration)
        if self.log_rpcs:
            log.info("rpc", method=name, code=code, ms=round(duration * 1000, 3), **ids)

    def _internal(self, name: str, exc: BaseException) -> str:
        tb = traceback.format_exc()
        self.server_errors.append(tb)
        log.error("handler raised", method=name, error=repr(exc), traceback=tb)
        return f"fakecri internal error in {name}: {exc!r}"

    async def _abort(self, name: str, exc: Exception, context) -> None:
        """End the call with the status for `exc`: a core error's code, or INTERNAL for a bug
        in fakecri (recorded so that check() fails the test that caused it)."""
        if isinstance(exc, errors.CoreError):
            await context.abort(code_for(exc), exc.message)
        await context.abort(grpc.StatusCode.INTERNAL, self._internal(name, exc))

    def _after_call(self) -> None:
        self.events.flush()
        self.reschedule()
        if self.persist is not None:
            self.persist()

    def wrap_unary(self, name: str, impl, *, gated: bool = True):
        async def handler(request, context):
            started = time.perf_counter()
            code = "OK"
            try:
                # The gate only has work when faults are armed or a restart is in progress;
                # skipping the coroutine otherwise keeps the no-fault path short.
                armed = gated and (self.down_until or self.plan.has_rpc_faults)
                if armed:
                    await self._gate(name, context, "before")
                emitted = self.bus.emitted
                resp = await impl(request, context)
                if type(resp) is bytes and len(resp) > self.config.max_message_bytes:
                    raise errors.ResourceExhausted(
                        f"{name}: the answer would be {len(resp)} bytes, over the {self.config.max_message_bytes}-byte "
                        f"message limit; use the Stream* twin of {name} (or a filter)")
                if armed or (gated and self.plan.has_rpc_faults):
                    await self._gate(name, context, "after")
                if self.bus.policy == "block" and self.bus.emitted != emitted:
                    await self.bus.wait_for_room()  # only an RPC that emitted events waits for slow readers
                return resp
            except grpc.aio.AbortError:
                raise
            except (asyncio.CancelledError, GeneratorExit):
                code = "CANCELLED"
                raise
            except Exception as exc:
                code = exc.code if isinstance(exc, errors.CoreError) else "INTERNAL"
                await self._abort(name, exc, context)
            finally:
                self._after_call()
                if gated:
                    self._record(name, request, code, started)

        return handler

    def wrap_stream(self, name: str, impl, *, gated: bool = True):
        async def handler(request, context):
            started = time.perf_counter()
            code = "OK"
            try:
                if gated:
                    await self._gate(name, context, "before")
                async for item in impl(request, context):
                    yield item
            except grpc.aio.AbortError:
                raise
            except (asyncio.CancelledError, GeneratorExit):
                code = "CANCELLED"
                raise
            except Exception as exc:
                code = exc.code if isinstance(exc, errors.CoreError) else "INTERNAL"
                await self._abort(name, exc, context)
            finally:
                self._after_call()
                if gated:
                    self._record(name, request, code, started)

        return handler
