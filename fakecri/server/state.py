"""ServerState: what the servicers of one server reach through `self.st`, and its timers.

It is a lookup object: the core (runtime and images), the fault plan, the event bus and
encoder, the status cache, counters and logs, and the side services that are running.
It is built by state_builder.build_state; the RPC wrapper is in call_wrapper.py and a
simulated runtime restart in restarts.py. Everything here runs on the server's event loop.
"""
from __future__ import annotations

import asyncio
import json
from collections import Counter, deque
from dataclasses import asdict, dataclass
from typing import Any, Callable, Protocol

import structlog

from fakecri.engine import errors
from fakecri.engine.clock import Clock, FakeClock
from fakecri.engine.ids import IdSource
from fakecri.engine.images import Catalog, ImageStore
from fakecri.sim.logsink import FileLogSink
from fakecri.engine.runtime import Runtime
from fakecri.faults.plan import FaultPlan
from fakecri.server.config import ServerConfig
from fakecri.server.disk import DiskRoot
from fakecri.server.events.bus import EventBus, Subscription
from fakecri.server.events.encoder import EventEncoder
from fakecri.server.events.status_cache import StatusCache
from fakecri.server.ports import PortListeners


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


class RpcObserver(Protocol):
    """The Prometheus side service, as the RPC wrapper sees it."""

    url: str

    def observe_rpc(self, method: str, code: str, duration_s: float) -> None: ...


class StreamingUrls(Protocol):
    """The streaming side service, as the Exec/Attach/PortForward RPCs see it."""

    def url_for(self, kind: str, request: Any) -> str: ...


class _Silent:
    """The log of a quiet server: every line dropped."""

    def _drop(self, event: str, **fields: Any) -> None:
        pass

    debug = info = warning = error = _drop


class ServerState:
    # Set by state_builder (they refer to each other, so they are made after __init__).
    plan: FaultPlan
    events: EventEncoder
    ports: PortListeners  # listeners of the web servers in running containers
    runtime: Runtime
    images: ImageStore

    def __init__(self, config: ServerConfig, clock: Clock, ids: IdSource, *, catalog: Catalog | None) -> None:
        self.config = config
        self.clock = clock
        self.initial_clock_ns = clock.now_ns()
        self.ids = ids
        self.catalog = catalog
        self.log_sink = FileLogSink()  # kept across resets so attach listeners stay valid
        self.counters: Counter[str] = Counter()
        self.call_log: deque[CallRecord] = deque(maxlen=config.call_log_size)
        self.server_errors: list[str] = []
        self.bus = EventBus(capacity=config.subscriber_buffer, policy=config.subscriber_policy)
        self.statuses = StatusCache()
        self.disk = DiskRoot(config.state_root)  # where the reported filesystems really are
        self.down_until = 0.0  # loop time until which calls answer UNAVAILABLE (runtime restart)
        self.log: Any = _Silent() if config.quiet else structlog.get_logger("fakecri")
        self.log_rpcs = not config.quiet
        # Side services, set by the app when they run.
        self.streaming: StreamingUrls | None = None
        self.metrics: RpcObserver | None = None
        self.persist: Callable[[], None] | None = None
        # Awaited with False when a simulated restart begins and True when it ends (health).
        self.on_availability: Callable[[bool], Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due: int | None = None  # the deadline `_timer` is armed for (None: no timer)

    # ------------------------------------------------------------ small helpers

    def count(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    def quirks(self) -> frozenset[str]:
        return self.plan.quirks()

    def now_ns(self) -> int:
        return self.clock.now_ns()

    def conditions(self) -> dict[str, Condition]:
        out = {"RuntimeReady": Condition(True), "NetworkReady": Condition(True)}
        for name, override in self.plan.conditions(self.clock.now_ns()).items():
            out[name] = Condition(override.status, override.reason, override.message)
        return out

    def describe_config(self) -> str:
        """The configuration as JSON for Status(verbose) (crictl info): file modes in octal."""
        cfg = asdict(self.config)
        cfg["faults"] = [f.to_dict() for f in self.plan.list()]
        for key in ("socket_mode", "control_socket_mode"):
            cfg[key] = f"{cfg[key]:04o}"
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

    def streaming_url(self, kind: str, request: Any) -> str:
        if self.streaming is None:
            raise errors.FailedPrecondition(f"{kind}: the streaming server is not running")
        return self.streaming.url_for(kind, request)

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

    def after_call(self) -> None:
        """What follows every RPC: held events out, timers re-armed, the state file written."""
        self.events.flush()
        self.reschedule()
        if self.persist is not None:
            self.persist()

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

    def publish(self, data: bytes) -> None:
        """One encoded event to every subscriber."""
        self.count("events_emitted")
        self.bus.publish(data)
