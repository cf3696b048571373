"""FakeCRIServer: binds the sockets, runs the grpc.aio servers and side services.

Use it in-process (tests, the pytest plugin) as a context manager: every in-process server
runs on one shared event loop on a background thread. `fakecri serve` runs one server on
its own loop with `start_async()` and `serve_forever()`.
"""
from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import dataclasses
import logging
import os
import tempfile
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.clock import Clock, IdSource
from fakecri.server.config import ServerConfig, check_bindable, format_address, is_loopback, parse_address
from fakecri.server.cri.control_service import ControlService
from fakecri.server.cri.image_service import ImageService
from fakecri.server.cri.runtime_service import runtime_servicers
from fakecri.server.exceptions import ServerErrors, SettingError, StartupError
from fakecri.server.host.sockets import SocketGuard, own_socket, remove_guarded
from fakecri.server.node.call_path import generic_handler
from fakecri.server.node.node import Node
from fakecri.server.process.control_routing import checked_for_node
from fakecri.server.process.served_node import ServedNode
from fakecri.server.process.side_services import start_side_services
from fakecri.sim.catalog import Catalog

RUNTIME_SERVICE = pb.DESCRIPTOR.services_by_name["RuntimeService"]
IMAGE_SERVICE = pb.DESCRIPTOR.services_by_name["ImageService"]
CONTROL_SERVICE = cpb.DESCRIPTOR.services_by_name["Control"]

__all__ = ["FakeCRIServer", "OnSharedLoop", "ServerErrors", "StartupError", "new_grpc_server", "on_shared_loop",
           "run_on_shared_loop", "short_socket_path"]


class _Stoppable(Protocol):
    def stop(self, timeout: float = 15.0) -> None: ...


_THREADED: weakref.WeakSet[_Stoppable] = weakref.WeakSet()  # servers and farms on the shared loop


def _quiet_grpc_dealloc_log() -> None:
    """Keep grpc's Cython layer from logging at DEBUG, whatever the root logger's level.

    grpc.aio logs, at DEBUG, any server deallocated before it was stopped, passing the dying
    server object itself as a log argument. A handler that keeps records (pytest's log capture
    does, for the report) then holds a pointer to freed memory, and a later garbage collection
    killed the test process with SIGSEGV. A server that never started cannot be stopped, so
    start-up refuses bad socket paths before creating one; this covers the rarer failures after
    that (a TCP port that cannot be bound, say).
    """
    cython_log = logging.getLogger("grpc._cython.cygrpc")
    if cython_log.level < logging.INFO:
        cython_log.setLevel(logging.INFO)


_quiet_grpc_dealloc_log()


class _SharedLoop:
    """The one event loop, on one daemon thread, that every in-process server runs on.

    grpc.aio keeps one completion queue per process and binds it to every loop that ever made
    a server or channel; with a loop per server, a test run that starts hundreds of servers
    leaves hundreds of closed loops bound to it, and grpc's aio state is torn down and rebuilt
    each time the last server goes away. One loop for the life of the process, plus one aio
    channel that is never closed (so that state is set up once), keeps grpc on the single-loop
    path it is built and tested for.
    """

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None
    _pin: grpc.aio.Channel | None = None

    @classmethod
    def get(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None:
                loop = asyncio.new_event_loop()
                started = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(started.set)
                    loop.run_forever()

                threading.Thread(target=run, name="fakecri-loop", daemon=True).start()
                started.wait()
                asyncio.run_coroutine_threadsafe(cls._pin_grpc_aio(), loop).result()
                cls._loop = loop
            return cls._loop

    @classmethod
    async def _pin_grpc_aio(cls) -> None:
        # A channel counts as a user of grpc's aio state; it never connects (channels are lazy).
        cls._pin = grpc.aio.insecure_channel("unix:/nonexistent/fakecri-pin.sock")


def on_shared_loop(thing: _Stoppable) -> asyncio.AbstractEventLoop:
    """The shared loop, for a server or farm about to start on it; it is stopped at exit if
    its owner forgets to."""
    _THREADED.add(thing)
    return _SharedLoop.get()


def off_shared_loop(thing: _Stoppable) -> None:
    _THREADED.discard(thing)


def run_on_shared_loop(coro: Any, timeout: float = 60.0) -> Any:
    """Run a coroutine on the loop the in-process servers share and return its result.

    Code in the same process that uses grpc.aio (an async client in a test, say) should run
    here rather than under its own `asyncio.run`, for the reason _SharedLoop gives.
    """
    return asyncio.run_coroutine_threadsafe(coro, _SharedLoop.get()).result(timeout)


@atexit.register
def _stop_forgotten_servers() -> None:
    """Stop servers still running on the shared loop when the process exits: a grpc.aio
    server torn down by interpreter finalization instead can crash the process."""
    for server in list(_THREADED):
        try:
            server.stop(timeout=15.0)
        except Exception:  # exiting anyway; nothing useful to do with it
            pass


def new_grpc_server(max_message_bytes: int) -> grpc.aio.Server:
    """A grpc.aio server with fakecri's options: message limits both ways, no port sharing."""
    return grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes),
            ("grpc.so_reuseport", 0),
        ]
    )


def short_socket_path(name: str = "cri.sock") -> str:
    """A fresh socket path short enough for AF_UNIX (pytest's tmp_path can exceed 108 bytes)."""
    return os.path.join(tempfile.mkdtemp(prefix="fc-", dir="/tmp"), name)


class OnSharedLoop:
    """The lifecycle a server and a farm share: `start_async`/`stop_async` on a loop of the
    caller's (`fakecri serve`), or `start()`/`stop()`/`call()` on the process's shared
    background loop (tests, the plugin). A subclass names itself in `WHAT` (for errors),
    sets its default bound in `TIMEOUT_S`, makes `_stopped` in its start_async and sets it
    at the end of its stop_async."""

    WHAT = "the server"
    TIMEOUT_S = 15.0

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None

    async def start_async(self) -> None:
        raise NotImplementedError

    async def stop_async(self) -> None:
        raise NotImplementedError

    async def serve_forever(self) -> None:
        assert self._stopped is not None, "call start_async() first"
        await self._stopped.wait()

    def _start_threaded(self, timeout: float | None) -> None:
        """start_async on the shared background loop; returns once it is done."""
        timeout = self.TIMEOUT_S if timeout is None else timeout
        loop = on_shared_loop(self)
        fut = asyncio.run_coroutine_threadsafe(self.start_async(), loop)
        try:
            fut.result(timeout)
        except concurrent.futures.TimeoutError:
            fut.cancel()
            off_shared_loop(self)
            raise StartupError(f"{self.WHAT} did not start within {timeout}s") from None
        except BaseException:
            off_shared_loop(self)
            raise
        self._loop = loop

    @property
    def running(self) -> bool:
        """True between start() and stop() on the shared background loop."""
        return self._loop is not None

    def stop(self, timeout: float | None = None) -> None:
        if self._loop is None:
            return
        loop, self._loop = self._loop, None
        off_shared_loop(self)
        asyncio.run_coroutine_threadsafe(self.stop_async(), loop).result(
            self.TIMEOUT_S if timeout is None else timeout)

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
        """Run `fn(*args)` on the loop where the state lives and return its result (awaited
        if it is a coroutine)."""
        if self._loop is None:
            raise RuntimeError(f"{self.WHAT} is not running on a background thread")

        async def run() -> Any:
            result = fn(*args)
            if asyncio.iscoroutine(result):
                result = await result
            return result

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(
            self.TIMEOUT_S if timeout is None else timeout)


class FakeCRIServer(OnSharedLoop):
    """A fakecri in this process. Built from keywords alone (`FakeCRIServer(seed=7)`) it
    writes no log line unless `log=True`; built from a ServerConfig (as `fakecri serve`
    does) it follows that config's `quiet`. Without a socket or a TCP address it serves
    on a fresh socket in a directory of its own, removed again by stop()."""

    def __init__(
        self,
        config: ServerConfig | None = None,
        *,
        clock: Clock | None = None,
        ids: IdSource | None = None,
        catalog: Catalog | None = None,
        metrics: Any = None,
        log: bool | None = None,
        **overrides: Any,
    ) -> None:
        if log is not None:
            overrides["quiet"] = not log
        elif config is None:
            overrides.setdefault("quiet", True)
        super().__init__()
        config = dataclasses.replace(config or ServerConfig(), **overrides)
        self._made_dir: str | None = None  # the directory made for a socket nobody named
        if not config.socket and not config.listen:
            config.socket = short_socket_path()
            self._made_dir = os.path.dirname(config.socket)
        config.validate()
        self.config = config
        self._clock = clock
        self._ids = ids
        self._catalog = catalog  # an image catalog loaded already (a farm's nodes share one)
        self._metrics = metrics  # a farm node's ServerMetrics (a single server makes its own)
        # The node it serves, built by start_async; the server itself uses only what ServedNode
        # offers (tests and the plugin reach the whole Node through it, on the loop: `call`).
        self.node: ServedNode | None = None
        # The control API's handler, also for a farm to route calls to this node; and a hook
        # called with every change of health (a simulated restart takes it down and up).
        self.control_handler: grpc.GenericRpcHandler | None = None
        self.on_health: Callable[[bool], Awaitable[None]] | None = None
        self.tcp_port: int | None = None
        self.tcp_address: str | None = None  # "host:port" as bound, when listening on TCP
        self._side_addresses: dict[str, str] = {}
        self._servers: list[grpc.aio.Server] = []
        self._guards: list[SocketGuard] = []
        self._side_services: list[Any] = []

    # ------------------------------------------------------------ addresses

    @property
    def endpoint(self) -> str:
        if self.config.socket:
            return f"unix://{os.path.abspath(self.config.socket)}"
        return f"tcp://127.0.0.1:{self.tcp_port}"

    @property
    def control_endpoint(self) -> str | None:
        """Where the control API is served: its own socket, the CRI socket, or nowhere (turned
        off, or a server on TCP only, since TCP never serves it)."""
        if self.config.no_control:
            return None
        if self.config.control_socket:
            return f"unix://{os.path.abspath(self.config.control_socket)}"
        return self.endpoint if self.config.socket else None

    # ------------------------------------------------------------ async lifecycle

    def _new_server(self) -> grpc.aio.Server:
        """A grpc.aio server, tracked from birth so stop_async() stops it."""
        server = new_grpc_server(self.config.max_message_bytes)
        self._servers.append(server)
        return server

    def _guard(self, path: str, setting: str) -> None:
        guard = SocketGuard(path, setting)
        guard.acquire()
        self._guards.append(guard)

    async def start_async(self) -> None:
        cfg = self.config
        healths: list[health.aio.HealthServicer] = []

        async def set_health(serving: bool) -> None:
            status = health_pb2.HealthCheckResponse.SERVING if serving else \
                health_pb2.HealthCheckResponse.NOT_SERVING
            for servicer in healths:
                for name in ("", RUNTIME_SERVICE.full_name, IMAGE_SERVICE.full_name):
                    await servicer.set(name, status)
            if self.on_health is not None:
                await self.on_health(serving)

        metrics = self._metrics
        if metrics is None and cfg.metrics_addr:
            from fakecri.server.process.prometheus import ServerMetrics  # only with --metrics-addr

            metrics = ServerMetrics()
        # Built whole with what serves beside it; its state file is restored before any socket
        # accepts a call. The one place the concrete Node is in hand: each service below is
        # given it through its own interface, and the server keeps it as a ServedNode.
        node = Node(cfg, clock=self._clock, ids=self._ids, catalog=self._catalog, metrics=metrics,
                    on_availability=set_health)
        self.node = node
        if metrics is not None:
            metrics.watch(node)
        self._stopped = asyncio.Event()
        if cfg.state_file:
            node.tick()  # fire what fell due while fakecri was down, re-arm the rest
        try:
            # Refuse a bad socket path before any grpc server exists: grpc cannot stop a server
            # that never started, and logs it on deallocation (see _quiet_grpc_dealloc_log).
            for path, setting in ((cfg.socket, "socket"),
                                  (None if cfg.no_control else cfg.control_socket, "control_socket")):
                if path:
                    self._guard(path, setting)
            side = await start_side_services(node, cfg, metrics)
            self._side_services += side.started
            self._side_addresses = side.addresses
            cri_handlers = [generic_handler(RUNTIME_SERVICE, runtime_servicers(node, side.streaming), node),
                            generic_handler(IMAGE_SERVICE, ImageService(node), node)]
            control_handler = self.control_handler = generic_handler(CONTROL_SERVICE, ControlService(node), node,
                                                                     gated=False)
            control_on_cri = not cfg.no_control and not cfg.control_socket
            if cfg.socket:
                unix = self._cri_server(cri_handlers, healths,
                                        checked_for_node(control_handler, cfg.node_name) if control_on_cri else None)
                unix.add_insecure_port(f"unix://{os.path.abspath(cfg.socket)}")
                await unix.start()
                own_socket(cfg.socket, cfg.socket_mode, cfg.socket_group)
            if cfg.listen:
                await self._listen_tcp(cri_handlers, healths)
            if cfg.control_socket and not cfg.no_control:
                ctl = self._new_server()
                ctl.add_generic_rpc_handlers([checked_for_node(control_handler, cfg.node_name)])
                ctl.add_insecure_port(f"unix://{os.path.abspath(cfg.control_socket)}")
                await ctl.start()
                own_socket(cfg.control_socket, cfg.control_socket_mode, cfg.socket_group)
            await set_health(True)
            await node.apply_pending_restart()
        except BaseException:
            await self.stop_async()
            raise
        node.log.debug("fakecri ready", endpoint=self.endpoint, seed=cfg.seed)

    def _cri_server(self, handlers: list[Any], healths: list[Any], control_handler: Any | None) -> grpc.aio.Server:
        """A server with CRI, health and reflection, and the control API if it is given."""
        server = self._new_server()
        server.add_generic_rpc_handlers(handlers)
        servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
        healths.append(servicer)
        names = [RUNTIME_SERVICE.full_name, IMAGE_SERVICE.full_name, health.SERVICE_NAME, reflection.SERVICE_NAME]
        if control_handler is not None:
            server.add_generic_rpc_handlers([control_handler])
            names.append(CONTROL_SERVICE.full_name)
        reflection.enable_server_reflection(names, server)
        return server

    async def _listen_tcp(self, handlers: list[Any], healths: list[Any]) -> None:
        """CRI on TCP, on a server of its own that never has the control API: a port has no
        owner or mode to keep other users out (see config.py, "TCP listeners")."""
        cfg = self.config
        assert cfg.listen and self.node is not None
        host, port = parse_address(cfg.listen, "listen")
        check_bindable(host, port, cfg.listen)
        tcp = self._cri_server(handlers, healths, None)
        try:
            self.tcp_port = tcp.add_insecure_port(format_address(host, port))
        except RuntimeError:  # grpc's "Failed to bind", should the port be taken since the check
            self.tcp_port = 0
        if not self.tcp_port:
            raise SettingError("listen", f"cannot listen on {cfg.listen} (in use, or not an address of this machine)")
        self.tcp_address = format_address(host, self.tcp_port)
        await tcp.start()
        if not is_loopback(host):
            self.node.log.warning("serving CRI on a non-loopback address: every host that can reach it may run, "
                                   "stop and remove pods, with no authentication", listen=self.tcp_address)

    def addresses(self) -> dict[str, str]:
        """Every address this server chose, with the real ports where port 0 was asked for:
        socket, listen (TCP), control (its own socket, if any), streaming and metrics URLs,
        and the directory made for the socket if it was missing."""
        cfg = self.config
        out: dict[str, str] = {}
        if cfg.socket:
            out["socket"] = os.path.abspath(cfg.socket)
        if self.tcp_address:
            out["listen"] = self.tcp_address
        if cfg.control_socket and not cfg.no_control:
            out["control_socket"] = os.path.abspath(cfg.control_socket)
        out.update(self._side_addresses)
        made = [g.created_dir for g in self._guards if g.created_dir]
        if made:
            out["created_directory"] = made[0]
        return out

    async def stop_async(self, grace: float = 0.5) -> None:
        if self.node is not None:
            self.node.shut_down()
        for svc in reversed(self._side_services):
            await svc.stop()
        self._side_services = []
        if self.node is not None:
            self.node.close()
        for server in self._servers:
            await server.stop(grace)
        self._servers = []
        for guard in self._guards:  # only sockets this server holds the lock for
            remove_guarded(guard)
        self._guards = []
        if self._made_dir is not None:
            try:
                os.rmdir(self._made_dir)  # only if empty: it never holds anything of anyone else's
            except OSError:
                pass
        if self._stopped is not None:
            self._stopped.set()

    # ------------------------------------------------------------ threaded lifecycle

    def start(self, timeout: float | None = None) -> FakeCRIServer:
        """Run the server on the process's shared background loop; returns once it accepts calls."""
        self._start_threaded(timeout)
        return self

    def _running_node(self) -> ServedNode:
        if self.node is None:
            raise RuntimeError("the server has not started")
        return self.node

    def reset(self) -> None:
        self.call(self._running_node().reset)

    def check(self) -> None:
        """Raise ServerErrors if a handler raised since the last reset."""
        node = self._running_node()
        errs, total = self.call(lambda: (list(node.server_errors), node.counters["internal_errors"]))
        if errs:
            shown = f" ({total} times; the last {len(errs)} shown)" if total > len(errs) else ""
            raise ServerErrors(f"fakecri raised inside a handler{shown}:\n" + "\n".join(errs))

    def __enter__(self) -> FakeCRIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
