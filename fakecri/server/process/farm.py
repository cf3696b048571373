"""A node farm: many node runtimes served by one process (`fakecri serve --nodes N --socket-dir DIR`).

Each node is a whole FakeCRIServer on the farm's event loop, built by `node_config` from
the farm's ServerConfig with what must differ per node: its socket (DIR/NAME.sock), its
seed (derived from the farm's seed and the node's name, so a 5% fault hits different calls
on each node, the same ones on every run, and no two nodes hand out the same ids), its pod
CIDR (the lowest free subnet of --pod-cidr, or of the farm's share of it with --farm-index, so
that the farms of a StatefulSet's pods can all be given one --pod-cidr), its state root and its
state file. The nodes
share the loaded image catalog and nothing else.

The farm's own socket (DIR/farm.sock, or --control-socket) serves the Farm service
(ListNodes, AddNode, RemoveNode), the Control service routed to the node a call names in
its "fakecri-node" metadata, and gRPC health: "" is SERVING while every node is, and each
node's name answers for that node. With --metrics-addr the farm serves one /metrics with
every node's series, each labelled node="NAME".
"""
from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import ipaddress
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.engine import errors
from fakecri.engine.clock import Clock
from fakecri.server.codec.status import code_for
from fakecri.server.config import FarmConfig, ServerConfig, check_cidr, format_address, parse_address
from fakecri.server.exceptions import SettingError, StartupError
from fakecri.server.host.catalog_file import load_catalog
from fakecri.server.host.disk import default_root
from fakecri.server.host.sockets import FARM_SOCKET, UNIX_PATH_MAX, SocketGuard, own_socket, remove_guarded
from fakecri.server.process.app import FakeCRIServer, OnSharedLoop, new_grpc_server
from fakecri.server.process.control_routing import node_named, refusal

if TYPE_CHECKING:
    from fakecri.server.process.prometheus import FarmMetrics, MetricsServer

FARM_SERVICE = cpb.DESCRIPTOR.services_by_name["Farm"]
CONTROL_PREFIX = "/" + cpb.DESCRIPTOR.services_by_name["Control"].full_name + "/"
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_NODE_NAME = re.compile(rf"{_LABEL}(\.{_LABEL})*")
NODE_NAME_MAX = 253 - len(".sock")

__all__ = ["Farm", "check_farm", "name_for", "node_seed"]


def node_seed(seed: int, name: str) -> int:
    """A node's own seed: the same for the same farm seed and name, unrelated across names."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{name}".encode()).digest()[:8], "big") >> 1


def check_node_name(name: str) -> None:
    """ValueError unless `name` is a DNS subdomain (a Kubernetes node name) fit for a file name."""
    if not name or len(name) > NODE_NAME_MAX or not _NODE_NAME.fullmatch(name):
        raise ValueError(f"node name {name!r} is not a DNS subdomain (lower-case letters, digits, '-' and '.', "
                         f"starting and ending with a letter or digit, at most {NODE_NAME_MAX} characters)")


def name_for(pattern: str, number: int) -> str:
    """The name of node `number` from the farm's pattern ("node-{i}"); ValueError if it makes none."""
    try:
        name = pattern.format(i=number)
    except (KeyError, IndexError, ValueError, AttributeError) as exc:
        raise ValueError(f"node name pattern {pattern!r} cannot be filled in ({exc!s}); write {{i}} where the "
                         "node's number goes, as in node-{i}") from None
    try:
        check_node_name(name)
    except ValueError as exc:
        raise ValueError(f"--node-name {pattern!r}: {exc}") from None
    return name


class Subnets:
    """Each node's share of the farm's pod CIDR: the lowest subnet of the node size not in use,
    among the `limit` subnets from number `first` on (the whole CIDR when `limit` is None)."""

    def __init__(self, cidr: str, prefix: int, first: int = 0, limit: int | None = None) -> None:
        self.net = ipaddress.ip_network(cidr.strip(), strict=False)
        self.prefix = prefix
        self.first = first
        self.limit = limit
        self.taken: dict[str, int] = {}  # node name -> subnet number

    def total(self) -> int:
        return int(2 ** (self.prefix - self.net.prefixlen))

    def count(self) -> int:
        rest = max(0, self.total() - self.first)
        return rest if self.limit is None else min(self.limit, rest)

    def subnet(self, number: int) -> str:
        size = 2 ** (self.net.max_prefixlen - self.prefix)
        first = int(self.net.network_address) + number * size
        return f"{ipaddress.ip_address(first)}/{self.prefix}"

    def take(self, name: str) -> str:
        used = set(self.taken.values())
        number = next((n for n in range(self.first, self.first + len(used) + 1) if n not in used),
                      self.first + len(used))
        if number >= self.first + self.count():
            share = (f"subnets {self.first} to {self.first + self.count() - 1} of {self.net}, this farm's share"
                     if self.limit is not None else f"the farm's pod CIDR {self.net}")
            raise errors.ResourceExhausted(f"{share} has no /{self.prefix} left for node {name!r} ({self.count()} "
                                           "nodes at most); give the node a pod CIDR")
        self.taken[name] = number
        return self.subnet(number)

    def release(self, name: str) -> None:
        self.taken.pop(name, None)


def check_farm(config: ServerConfig, farm: FarmConfig) -> None:
    """ValueError, naming the option, for a farm that cannot start as configured."""
    if farm.nodes is None:
        for name in ("socket_dir", "state_dir", "farm_index"):
            if getattr(farm, name) is not None:
                raise ValueError(f"--{name.replace('_', '-')} is for a node farm; give --nodes N too")
        return
    if not farm.socket_dir:
        raise ValueError("a node farm (--nodes) needs --socket-dir, the directory of its sockets")
    if config.socket:
        raise ValueError("--socket names one runtime's socket; a farm's nodes serve DIR/NAME.sock under --socket-dir")
    if config.listen:
        raise ValueError("--listen serves one runtime on TCP; a farm serves its nodes on unix sockets only")
    if config.state_file:
        raise ValueError("--state-file keeps one runtime's state; a farm keeps each node's in --state-dir")
    names = [name_for(farm.node_name, i) for i in range(farm.nodes)]
    if len(set(names)) < len(names):
        raise ValueError(f"node name pattern {farm.node_name!r} gives the same name to several nodes; put {{i}} in it")
    net = ipaddress.ip_network(config.pod_cidr.strip(), strict=False)
    if not net.prefixlen <= farm.node_cidr_size <= net.max_prefixlen - 2:
        raise ValueError(f"--node-cidr-size {farm.node_cidr_size} does not fit --pod-cidr {net}: it must be from "
                         f"{net.prefixlen} to {net.max_prefixlen - 2}")
    subnets = 2 ** (farm.node_cidr_size - net.prefixlen)
    if farm.nodes > subnets:
        raise ValueError(f"--pod-cidr {net} holds {subnets} subnets of /{farm.node_cidr_size}, fewer than --nodes "
                         f"{farm.nodes}; give a larger pod CIDR or a longer --node-cidr-size")
    if farm.farm_index is not None and (farm.farm_index + 1) * farm.nodes > subnets:
        raise ValueError(f"--farm-index {farm.farm_index}: --pod-cidr {net} holds {subnets} subnets of "
                         f"/{farm.node_cidr_size}, enough for farms 0 to {subnets // max(farm.nodes, 1) - 1} of "
                         f"--nodes {farm.nodes}; give a larger pod CIDR, a longer --node-cidr-size or fewer farms")
    longest = max(names, key=len, default="")
    path = os.path.join(os.path.abspath(farm.socket_dir), f"{longest}.sock")
    if len(path.encode()) > UNIX_PATH_MAX:
        raise ValueError(f"--socket-dir: the socket {path} would be longer than {UNIX_PATH_MAX} bytes; choose a "
                         "shorter directory")


class Farm(OnSharedLoop):
    """Node runtimes on one event loop, one socket each, added and removed at run time."""

    WHAT = "the farm"
    TIMEOUT_S = 60.0

    def __init__(self, config: ServerConfig, farm: FarmConfig, *,
                 clock_for: Callable[[str], Clock] | None = None) -> None:
        super().__init__()
        check_farm(config, farm)
        assert farm.nodes is not None and farm.socket_dir
        self.config = config
        self.farm = farm
        self.socket_dir = os.path.abspath(farm.socket_dir)
        self.servers: dict[str, FakeCRIServer] = {}
        self._clock_for = clock_for
        self._numbers: dict[str, int] = {}  # each node's number (its streaming port offset)
        self._next_number = 0
        if farm.farm_index is None:
            self._subnets = Subnets(config.pod_cidr, farm.node_cidr_size)
        else:
            self._subnets = Subnets(config.pod_cidr, farm.node_cidr_size, first=farm.farm_index * farm.nodes,
                                    limit=farm.nodes)
        self._catalog = load_catalog(config.image_catalog) if config.image_catalog else None
        self._root = os.path.abspath(config.state_root) if config.state_root else str(default_root())
        self._control: grpc.aio.Server | None = None
        self._guard: SocketGuard | None = None
        self._health: health.aio.HealthServicer | None = None
        self._serving: dict[str, bool] = {}
        self.metrics: FarmMetrics | None = None
        self._metrics_server: MetricsServer | None = None
        self._changing = asyncio.Lock()

    # ------------------------------------------------------------ addresses

    @property
    def control_socket(self) -> str | None:
        """The farm's control socket (Farm, routed Control, health), or None with --no-control."""
        if self.config.no_control:
            return None
        return os.path.abspath(self.config.control_socket or os.path.join(self.socket_dir, FARM_SOCKET))

    def socket_of(self, name: str) -> str:
        return os.path.join(self.socket_dir, f"{name}.sock")

    def addresses(self) -> dict[str, str]:
        out = {"socket_dir": self.socket_dir}
        if self.control_socket:
            out["control_socket"] = self.control_socket
        if self._metrics_server is not None:
            out["metrics"] = self._metrics_server.url
        return out

    # ------------------------------------------------------------ one node

    def node_config(self, name: str, number: int, pod_cidr: str) -> ServerConfig:
        """The ServerConfig of one node: the farm's, with what must differ per node."""
        cfg = self.config
        host, port = parse_address(cfg.streaming_addr, "streaming_addr")
        return dataclasses.replace(
            cfg, socket=self.socket_of(name), listen=None, control_socket=None,
            # A node's socket serves its own control API, unless the farm's control has a socket of its own.
            no_control=cfg.no_control or bool(cfg.control_socket),
            seed=node_seed(cfg.seed, name), pod_cidr=pod_cidr, node_name=name,
            streaming_addr=format_address(host, port + number if port else 0),
            metrics_addr=None, faults=list(cfg.faults),
            state_file=os.path.join(os.path.abspath(self.farm.state_dir), f"{name}.json") if self.farm.state_dir
            else None,
            state_root=os.path.join(self._root, "nodes", name),
        )

    async def add_node(self, name: str = "", pod_cidr: str = "") -> FakeCRIServer:
        """Start one more node; it serves on its socket when this returns. InvalidArgument for a
        bad name or CIDR, AlreadyExists for a name in use, ResourceExhausted when the farm's pod
        CIDR has no subnet left, FailedPrecondition when the node cannot start."""
        async with self._changing:
            return await self._add(name, pod_cidr)

    async def _add(self, name: str, pod_cidr: str) -> FakeCRIServer:
        number = self._next_number
        if not name:
            try:
                name = name_for(self.farm.node_name, number)
            except ValueError as exc:
                raise errors.InvalidArgument(str(exc)) from None
        else:
            try:
                check_node_name(name)
            except ValueError as exc:
                raise errors.InvalidArgument(f"AddNode: {exc}") from None
        if name in self.servers:
            raise errors.AlreadyExists(f"AddNode: the farm has a node named {name!r} already")
        if pod_cidr:
            pod_cidr = self._own_cidr(name, pod_cidr)
        else:
            pod_cidr = self._subnets.take(name)
        config = self.node_config(name, number, pod_cidr)
        clock = self._clock_for(name) if self._clock_for is not None else None
        metrics = self.metrics.for_node(name) if self.metrics is not None else None
        server = FakeCRIServer(config, clock=clock, catalog=self._catalog, metrics=metrics)
        server.on_health = lambda serving: self._node_health(name, serving)
        try:
            await server.start_async()
        except (SettingError, StartupError) as exc:
            self._subnets.release(name)
            if self.metrics is not None:
                self.metrics.detach(name)
            message = exc.message if isinstance(exc, SettingError) else str(exc)
            raise errors.FailedPrecondition(f"AddNode: node {name!r} cannot start: {message}") from None
        except BaseException:
            self._subnets.release(name)
            if self.metrics is not None:
                self.metrics.detach(name)
            raise
        self._next_number = number + 1
        self._numbers[name] = number
        self.servers[name] = server
        await self._node_health(name, True)
        return server

    def _own_cidr(self, name: str, pod_cidr: str) -> str:
        """A pod CIDR given for a node, checked and normalized; InvalidArgument if another node's overlaps."""
        try:
            check_cidr(pod_cidr)
        except ValueError as exc:
            raise errors.InvalidArgument(f"AddNode: {exc}") from None
        net = ipaddress.ip_network(pod_cidr.strip(), strict=False)
        for other, server in self.servers.items():
            assert server.node is not None
            theirs = ipaddress.ip_network(server.node.pod_cidr)
            if theirs.version == net.version and theirs.overlaps(net):
                raise errors.InvalidArgument(f"AddNode: pod CIDR {net} overlaps node {other!r}'s {theirs}")
        return str(net)

    async def remove_node(self, name: str) -> None:
        """Stop a node and remove its socket; its state file, if any, stays. NotFound if no such node."""
        async with self._changing:
            server = self.servers.pop(name, None)
            if server is None:
                raise errors.NotFound(f"RemoveNode: the farm has no node named {name!r}")
            self._subnets.release(name)
            self._numbers.pop(name, None)
            if self.metrics is not None:
                self.metrics.detach(name)
            self._serving.pop(name, None)
            await server.stop_async()
            if self._health is not None:
                await self._health.set(name, health_pb2.HealthCheckResponse.SERVICE_UNKNOWN)
                await self._update_farm_health()

    # ------------------------------------------------------------ health

    async def _node_health(self, name: str, serving: bool) -> None:
        if name not in self.servers:  # starting (it is told once added), or removed
            return
        self._serving[name] = serving
        if self._health is not None:
            status = health_pb2.HealthCheckResponse.SERVING if serving else \
                health_pb2.HealthCheckResponse.NOT_SERVING
            await self._health.set(name, status)
            await self._update_farm_health()

    async def _update_farm_health(self) -> None:
        assert self._health is not None
        every = all(self._serving.get(name, False) for name in self.servers)
        await self._health.set("", health_pb2.HealthCheckResponse.SERVING if every else
                               health_pb2.HealthCheckResponse.NOT_SERVING)

    # ------------------------------------------------------------ lifecycle

    async def start_async(self) -> None:
        self._stopped = asyncio.Event()
        for setting in ("socket_dir", "state_dir"):
            directory = getattr(self.farm, setting)
            try:
                if directory:
                    os.makedirs(directory, exist_ok=True)
            except OSError as exc:
                raise SettingError(setting, f"cannot create {directory}: {exc.strerror or exc}") from None
        try:
            if self.config.metrics_addr:
                await self._start_metrics(self.config.metrics_addr)
            if self.control_socket:
                await self._start_control(self.control_socket)
            assert self.farm.nodes is not None
            for _ in range(self.farm.nodes):
                await self._add("", "")
        except errors.CoreError as exc:
            await self.stop_async()
            raise StartupError(exc.message) from None
        except BaseException:
            await self.stop_async()
            raise

    async def _start_metrics(self, address: str) -> None:
        from fakecri.server.process.prometheus import FarmMetrics, MetricsServer  # only with --metrics-addr

        host, port = parse_address(address, "metrics_addr")
        self.metrics = FarmMetrics()
        server = MetricsServer(self.metrics, host, port)
        try:
            await server.start()
        except OSError as exc:
            raise SettingError("metrics_addr", f"cannot serve metrics on {address}: {exc.strerror or exc}") from None
        self._metrics_server = server
        self.metrics.url = server.url

    async def _start_control(self, path: str) -> None:
        guard = SocketGuard(path, "control_socket")
        guard.acquire()
        self._guard = guard
        server = self._control = new_grpc_server(self.config.max_message_bytes)
        server.add_generic_rpc_handlers([_farm_handler(self), _ControlRouter(self)])
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        server.add_insecure_port(f"unix://{path}")
        await server.start()
        own_socket(path, self.config.control_socket_mode, self.config.socket_group)
        await self._update_farm_health()

    async def stop_async(self, grace: float = 0.5) -> None:
        for name in list(self.servers):
            server = self.servers.pop(name)
            await server.stop_async(grace)
        self._serving.clear()
        if self._control is not None:
            await self._control.stop(grace)
            self._control = None
        if self._guard is not None:
            remove_guarded(self._guard)
            self._guard = None
        if self._metrics_server is not None:
            await self._metrics_server.stop()
            self._metrics_server = None
        if self._stopped is not None:
            self._stopped.set()

    # ------------------------------------------------------------ threaded lifecycle (tests, the plugin)

    def start(self, timeout: float | None = None) -> Farm:
        """Run the farm on the process's shared background loop; returns once every node serves."""
        self._start_threaded(timeout)
        return self

    def __enter__(self) -> Farm:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ what ListNodes tells

    def describe(self, name: str) -> cpb.Node:
        server = self.servers[name]
        node = server.node
        assert node is not None
        runtime = node.runtime  # ServedNode hands the engine: its sizes
        sizes = runtime.counts()
        return cpb.Node(
            name=name, socket=self.socket_of(name), pod_cidr=node.pod_cidr, seed=server.config.seed,
            streaming_url=server.addresses().get("streaming", ""), state_file=server.config.state_file or "",
            sandboxes=sizes["sandboxes"], containers=sizes["containers"],
        )


class _ControlRouter(grpc.GenericRpcHandler):  # type: ignore[misc,unused-ignore]  # grpc ships no types
    """The Control service on the farm's socket: each call goes to the node its metadata names."""

    def __init__(self, farm: Farm) -> None:
        self.farm = farm

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        method = handler_call_details.method
        if not method.startswith(CONTROL_PREFIX):
            return None
        name = node_named(handler_call_details)
        if name is None:
            return refusal(grpc.StatusCode.INVALID_ARGUMENT,
                           f"{method}: the farm's control socket serves many nodes; name one in the request "
                           "metadata key fakecri-node (fakecri ctl --node NAME)")
        server = self.farm.servers.get(name)
        if server is None or server.control_handler is None:
            known = ", ".join(sorted(self.farm.servers)) or "none"
            return refusal(grpc.StatusCode.NOT_FOUND, f"the farm has no node named {name!r} (nodes: {known})")
        return server.control_handler.service(handler_call_details)


def _farm_handler(farm: Farm) -> grpc.GenericRpcHandler:
    """The Farm service: ListNodes, AddNode, RemoveNode, each error mapped to its gRPC code."""

    async def list_nodes(request: cpb.ListNodesRequest, context: grpc.aio.ServicerContext) -> cpb.ListNodesResponse:
        return cpb.ListNodesResponse(nodes=[farm.describe(name) for name in farm.servers])

    async def add_node(request: cpb.AddNodeRequest, context: grpc.aio.ServicerContext) -> cpb.Node:
        server = await farm.add_node(request.name, request.pod_cidr)
        return farm.describe(server.config.node_name)

    async def remove_node(request: cpb.RemoveNodeRequest, context: grpc.aio.ServicerContext) \
            -> cpb.RemoveNodeResponse:
        if not request.name:
            raise errors.InvalidArgument("RemoveNode: name is required")
        await farm.remove_node(request.name)
        return cpb.RemoveNodeResponse()

    def wrapped(fn: Any, request_cls: Any) -> Any:
        async def call(data: bytes, context: grpc.aio.ServicerContext) -> Any:
            try:
                try:
                    request = request_cls.FromString(data)
                except DecodeError as exc:
                    raise errors.InvalidArgument(f"the request is not a valid {request_cls.DESCRIPTOR.full_name}: "
                                                 f"{exc}") from None
                return await fn(request, context)
            except errors.CoreError as exc:
                await context.abort(code_for(exc), exc.message)

        return call

    impls = {"ListNodes": list_nodes, "AddNode": add_node, "RemoveNode": remove_node}
    methods = {}
    for m in FARM_SERVICE.methods:  # requests parsed in `call`, so that bad bytes get INVALID_ARGUMENT
        methods[m.name] = grpc.unary_unary_rpc_method_handler(
            wrapped(impls[m.name], getattr(cpb, m.input_type.name)),
            response_serializer=lambda msg: msg.SerializeToString())
    return grpc.method_handlers_generic_handler(FARM_SERVICE.full_name, methods)
