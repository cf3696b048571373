"""One simulated node's runtime, as the servicers reach it through `self.node`.

A `Node` is built whole in its constructor, from a ServerConfig and the services beside it
(the RPC observer of /metrics, the health callback): the engine (the CRI state machine), the
container simulation, the host they see, the fault plan, the event bus and encoder, the
status cache, the web-server listeners, the log files and the state file. None of them is
ever replaced or assigned from outside: a Reset or a wiped restart empties them in place.

`with node.changing():` is the one way to change the node; it, its commit and everything
else one call needs of the node are the Node's `CallPath` (call_path.py, beside the RPC
wrapper). What is here is the rest: the construction, the whole-node operations (reset,
restart, wait), the event streams' subscriptions, and what the host's listeners and the
streaming server ask. Everything here runs on the server's event loop.
"""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import os
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any

from fakecri import logs
from fakecri.engine import errors
from fakecri.engine.clock import Clock, FakeClock, IdSource, RandomIds, SystemClock
from fakecri.engine.records import Container, ContainerState, Event, Limits
from fakecri.engine.runtime import Runtime
from fakecri.engine.specs import CONTAINER
from fakecri.faults.model import FaultRecord
from fakecri.faults.plan import FaultPlan
from fakecri.faults.quirks import Quirk
from fakecri.server.codec.encode import StatusCache
from fakecri.server.config import ServerConfig
from fakecri.server.events.bus import EventBus, Subscription, deliver
from fakecri.server.events.encoder import EventEncoder
from fakecri.server.host.catalog_file import load_catalog
from fakecri.server.host.disk import DiskRoot
from fakecri.server.host.host import HostRoot, LocalHost
from fakecri.server.host.listeners import PortListeners
from fakecri.server.host.log_files import LogFiles
from fakecri.server.node.call_path import CallPath, CallRecord, OutputListener, Persistence, RpcObserver
from fakecri.server.node.persistence import StateFile
from fakecri.server.node.sessions import Sessions
from fakecri.sim.catalog import Catalog
from fakecri.sim.live import Wrote
from fakecri.sim.programs.base import Here, Listen, Server
from fakecri.sim.simulation import Simulation

# Drawn once per process: mixed into the id stream so that a restarted fakecri never hands out
# the ids of an earlier one (a kubelet that lived through the restart still holds those).
BOOT_NONCE = os.urandom(16).hex()
ERROR_RING = 100  # handler tracebacks kept (the count of all of them is kept too)


def id_source(config: ServerConfig, boot_nonce: str = BOOT_NONCE) -> RandomIds:
    """Ids from the seed: the same sequence on every start with `deterministic_ids`, otherwise
    the same only within one process (one boot)."""
    if config.deterministic_ids:
        return RandomIds(config.seed)
    mixed = hashlib.sha256(f"{config.seed}/{boot_nonce}".encode()).digest()
    return RandomIds(int.from_bytes(mixed, "big"))


@dataclass(frozen=True)
class Condition:
    status: bool
    reason: str = ""
    message: str = ""


class _Silent:
    """The log of a quiet server: every line dropped."""

    def _drop(self, event: str, **fields: Any) -> None:
        pass

    debug = info = warning = error = _drop


Availability = Callable[[bool], Awaitable[None]]


class Node(CallPath):
    def __init__(self, config: ServerConfig, *, clock: Clock | None = None, ids: IdSource | None = None,
                 catalog: Catalog | None = None, metrics: RpcObserver | None = None,
                 on_availability: Availability | None = None) -> None:
        self.config = config
        self.clock: Clock = clock or (FakeClock() if config.fake_clock else SystemClock())
        self.ids: IdSource = ids or id_source(config)
        self.log: Any = _Silent()
        if not config.quiet:  # a farm's node names itself in every line
            logger = logs.logger()
            self.log = logger.bind(node=config.node_name) if config.node_name else logger
        self._log_rpcs = config.log_rpcs and not config.quiet
        self.counters: Counter[str] = Counter()
        self.call_log: deque[CallRecord] = deque(maxlen=config.call_log_size)
        self.server_errors: deque[str] = deque(maxlen=ERROR_RING)  # the newest handler tracebacks
        if catalog is None:
            catalog = load_catalog(config.image_catalog) if config.image_catalog else Catalog()
        self.catalog = catalog.strict() if config.pull_policy == "strict" else catalog
        self.host_root = HostRoot(config.host_root)  # what callers may name of the host (--host-root)
        self.host = LocalHost(self.host_root)
        self.sim = Simulation(self.catalog, self.host, cgroup_version=config.cgroup_version,
                              swap_bytes=config.swap_bytes, clock=self.clock)
        self.sim.refused = lambda name: self.count(f"refused:{name}")  # what the shell does not model
        self.runtime = Runtime(
            self.clock, self.ids, programs=self.sim, registry=self.catalog, pod_cidr=config.pod_cidr,
            runtime_handlers=config.runtime_handlers, max_images=config.max_images,
            limits=Limits(max_sandboxes=config.max_sandboxes, max_containers=config.max_containers),
        )
        self.sim.watch(self.runtime)
        self.plan = FaultPlan(config.seed, on_fire=self._fault_fired, now_ns=self.clock.now_ns)
        for fault in config.faults:
            self.plan.add(fault)
        self.bus = EventBus(capacity=config.subscriber_buffer, policy=config.subscriber_policy)
        self._unsent: deque[Event] = deque(maxlen=self.bus.history.maxlen)  # events no subscriber saw yet
        self.statuses = StatusCache(self.runtime, self.sim.content_of)
        self.encoder = EventEncoder(self.plan, self.statuses, self.bus, self.counters)
        self.ports = PortListeners(self)
        self.disk = DiskRoot(config.state_root)  # where the reported filesystems really are
        self.log_files = LogFiles(self.disk.root, self.host_root)
        self.output_listeners: list[OutputListener] = []  # attached clients
        self.sessions = Sessions()  # exec, attach, port-forward and ExecSync: they end with what they run in
        self.down_until = 0.0  # loop time until which calls answer UNAVAILABLE (runtime restart)
        self._metrics = metrics  # the /metrics side service's RPC counters (None without --metrics-addr)
        # Awaited with False when a simulated restart begins and True when it ends (health).
        self._on_availability = on_availability
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due: int | None = None  # the deadline `_timer` is armed for (None: no timer)
        self._retry_at = 0.0  # after a failed state write, timers wait until then (time.monotonic)
        # The state file, restored from before any call is taken (last: it holds a lock).
        self._persistence: Persistence | None = None
        if config.state_file:
            self._persistence = StateFile(self.runtime, self.clock, self.ids, config.state_file, self.log).open()

    # ------------------------------------------------------------ small helpers

    def _fault_fired(self, record: FaultRecord) -> None:
        self.count(f"fault:{record.fault}")
        self.log.info("fault", fault=record.fault, type=record.type, hit=record.hit)

    def quirks(self) -> frozenset[Quirk]:
        return self.plan.quirk_set

    def now_ns(self) -> int:
        return self.clock.now_ns()

    def quiet_container_deletes(self, sandbox_id: str) -> None:
        """The containers RemovePodSandbox is about to remove from `sandbox_id` go without
        their DELETED events (the no-container-deleted-on-sandbox-remove quirk, CRI-O 1.36)."""
        self.encoder.quiet_container_deletes(sandbox_id)

    @property
    def pod_cidr(self) -> str:
        """The pod network this node hands addresses from (a state file may have brought its own)."""
        return self.runtime.pod_cidr

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

    async def wait(self, seconds: float, until: asyncio.Event | None = None) -> None:
        """Let simulated time pass: real sleep on the system clock, a jump on a fake one;
        on the system clock, `until` (set) ends the wait early."""
        if seconds <= 0:
            return
        if isinstance(self.clock, FakeClock):
            if seconds == math.inf:  # never ends on its own: only `until` or the caller's deadline ends it
                await (until if until is not None else asyncio.Event()).wait()
                return
            self.clock.advance(seconds)
            self.tick()
        elif until is None:
            await asyncio.sleep(seconds)
        elif seconds == math.inf:
            await until.wait()
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(until.wait(), seconds)

    def take_errors(self) -> list[str]:
        """The handler tracebacks kept since the last take (the plugin fails the test with them)."""
        out = list(self.server_errors)
        self.server_errors.clear()
        return out

    # ------------------------------------------------------------ the commit point

    def pid1_log(self, c: Container) -> Callable[[str, str], None] | None:
        """Where another process of `c` (an exec, a hook) writes when it writes to /proc/1/fd/1 or 2:
        the container's log when PID 1 is its own command (a pid namespace of its own, as the kubelet
        asks unless the pod shares one); in the pod's or the node's, PID 1 is not its command: None."""
        namespaces = c.spec.namespaces
        if namespaces is None or namespaces.pid != CONTAINER:
            return None
        cid = c.id

        def to_log(stream: str, text: str) -> None:
            self.apply([Wrote(cid, stream, text, self.clock.now_ns())])
        return to_log

    # ------------------------------------------------------------ whole-node operations

    def _wipe(self) -> None:
        """A runtime restart that lost its state: no sandboxes, containers or listeners."""
        self.sessions.end_all(self.clock.now_ns(), "the runtime restarted and lost its containers")
        self.runtime.wipe()
        self.sim.reset()
        self.ports.close_all()

    def reset(self) -> None:
        """Forget everything a test may have changed: state, faults, clock, logs, counters."""
        with self.changing():
            self._reset()

    def _reset(self) -> None:
        self.bus.reset()
        self.plan.reset()
        self.plan.clear_log()
        for fault in self.config.faults:
            self.plan.add(fault)
        if isinstance(self.clock, FakeClock):
            self.clock.reset()
        self.ports.close_all()
        self.sessions.end_all(self.clock.now_ns(), "the runtime was reset")
        self.runtime.reset()
        self.sim.reset()
        self.encoder.reset()
        self._unsent.clear()
        self.statuses.clear()
        self.counters.clear()
        self.call_log.clear()
        self.server_errors.clear()
        self.down_until = 0.0
        if self._on_availability is not None:
            asyncio.ensure_future(self._on_availability(True))

    async def restart(self, downtime_s: float, wipe: bool) -> None:
        """A simulated restart of the runtime daemon (the control API's RestartRuntime, a
        `restart` fault on an RPC, or one added with no trigger point): every event stream
        closed, calls answered UNAVAILABLE for `downtime_s`; `wipe` forgets sandboxes and
        containers, as a runtime that lost its state would."""
        self.count("restarts")
        self.bus.close_all("UNAVAILABLE", "the runtime is restarting")
        loop = asyncio.get_running_loop()
        self.down_until = loop.time() + downtime_s
        if wipe:
            with self.changing():
                self._wipe()
        self.log.warning("runtime restart", downtime_s=downtime_s, wipe=wipe)
        if self._on_availability is not None:
            await self._on_availability(False)
            loop.call_later(downtime_s, self._maybe_back_up)

    def _maybe_back_up(self) -> None:
        """End of a restart's downtime (unless a later restart extended it): serving again."""
        if self._on_availability is not None and asyncio.get_running_loop().time() >= self.down_until:
            asyncio.ensure_future(self._on_availability(True))

    async def apply_pending_restart(self) -> None:
        """A restart fault with no trigger point happens as soon as it is added."""
        action = self.plan.take_restart()
        if action is not None:
            await self.restart(action.downtime_s, action.wipe)

    # ------------------------------------------------------------ events

    def event_stream(self) -> AsyncIterator[bytes]:
        """A GetContainerEvents stream: subscribed now (ResourceExhausted over the limit), the
        events delivered with the stream's faults, let go when the stream ends."""
        sub, faults = self.subscribe()
        return deliver(self.bus, sub, faults, self.plan, self.counters, self.unsubscribe)

    def subscribe(self) -> tuple[Subscription, Any]:
        limit = self.config.max_subscribers
        if limit is not None and len(self.bus.subscribers) >= limit:
            raise errors.ResourceExhausted(f"GetContainerEvents: already {limit} subscribers open (the limit)")
        if self._unsent:  # into the bus's history, which a stale_replay fault replays
            unsent = list(self._unsent)
            self._unsent.clear()
            self.encoder.publish(unsent, self.plan.quirk_set)
        sub = self.bus.subscribe()
        self.count("subscribers_opened")
        return sub, self.plan.subscriber(sub.index)

    def unsubscribe(self, sub: Subscription) -> None:
        self.bus.unsubscribe(sub)
        self.count("events_dropped", sub.dropped)

    def event_subscribers(self) -> list[Subscription]:
        """The event streams subscribed now, as they are at this moment (a /metrics scrape)."""
        return list(self.bus.subscribers)

    def shut_down(self) -> None:
        """The server is going: every event stream ends UNAVAILABLE."""
        self.bus.close_all("UNAVAILABLE", "the runtime is shutting down")

    def close(self) -> None:
        """Let go of what the node holds on the host (listeners, the mount-table watch, the
        state file: its last state written and its lock let go)."""
        self.ports.close_all()
        self.host.close()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._persistence is not None:
            self._persistence.close()

    # ------------------------------------------------------------ what the host's listeners ask

    def served_by(self, cid: str) -> tuple[Server, Here] | None:
        """The running container's server and where it answers; None when it no longer runs."""
        try:
            c = self.runtime.get_container(cid)
        except errors.CoreError:  # removed meanwhile
            return None
        if c.state != ContainerState.RUNNING:
            return None
        server = self.sim.server_of(c)
        return None if server is None else (server, self.sim.here(c, self.clock.now_ns()))

    def listeners_of(self, c: Container) -> tuple[Listen, ...]:
        """The sockets a started container's program listens on."""
        return self.sim.listeners(c)

    # ------------------------------------------------------------ what the streaming backend asks

    def bound_ports(self, cid: str) -> list[tuple[str, int]]:
        """The (address, port) the container's server really listens on now."""
        return self.ports.bound(cid)

    def hear_output(self, listener: OutputListener) -> None:
        """From now on, `listener` hears every output a commit carries out (an attached client)."""
        self.output_listeners.append(listener)

    def stop_hearing_output(self, listener: OutputListener) -> None:
        """`listener` hears no more output (a no-op if it did not)."""
        if listener in self.output_listeners:
            self.output_listeners.remove(listener)
