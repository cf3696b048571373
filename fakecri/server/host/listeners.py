"""Real listeners for the servers running containers run.

When a container whose program serves starts (agnhost netexec, liveness, grpc-health-checking,
test-webserver, porter, serve-hostname, nginx, httpd...; the simulation's `listeners` say
which sockets, see fakecri/sim/programs/), the server opens the sockets a real node would
have, each where a client would reach it:

- on the pod IP, when it is a loopback address (a `--pod-cidr` inside 127.0.0.0/8): what
  the kubelet's probes and hooks, other pods and test clients dial;
- each port mapping of its sandbox with a host port, for the program's port and protocol:
  `host_ip:host_port`, on 127.0.0.1 when no host_ip is given (a fake should not reach
  beyond the machine unasked);
- on a host-network sandbox, the program's own ports on the host (127.0.0.1).

TCP sockets speak what the program speaks there: HTTP (`webserver.py` reads each request
and the simulation answers it; over TLS with fakecri's own certificate, server/host/tls.py),
gRPC health (a real gRPC server), or a greeting written to each connection; UDP sockets
answer each datagram as the simulation says. SCTP sockets are not opened. They close when
the container stops or goes away, and all of them on a reset or shutdown. A socket that
cannot be bound (address in use, not local) is counted and logged; the container runs on,
as its server would not be reachable there. Each connection is bounded (see webserver.py): no client can hold the loop.
"""
from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable, Iterable
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from fakecri import logs
from fakecri.engine.records import Container, Sandbox
from fakecri.engine.specs import NODE, TCP, UDP
from fakecri.server.host import webserver
from fakecri.server.host.owner import ListenerOwner
from fakecri.server.host.tls import server_context
from fakecri.sim.programs.base import DATAGRAM, GREETING, GRPC_HEALTH, HTTP, NOT_SERVING, SERVING, Listen

log = logs.logger()
DEFAULT_HOST_IP = "127.0.0.1"
_PROTOCOLS = {"tcp": TCP, "udp": UDP}


def _is_loopback(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def addresses(port: int, sb: Sandbox, proto: str = "tcp") -> list[tuple[str, int]]:
    """(host address, port) pairs a server on the pod's `port` is reachable at from the host."""
    out: list[tuple[str, int]] = []
    if sb.spec.namespaces.network == NODE:
        return [(DEFAULT_HOST_IP, port)]
    for m in sb.spec.port_mappings:
        if m.protocol == _PROTOCOLS.get(proto) and m.host_port and m.container_port == port:
            out.append((m.host_ip or DEFAULT_HOST_IP, m.host_port))
    if sb.ip and _is_loopback(sb.ip):
        out.append((sb.ip, port))
    return list(dict.fromkeys(out))


class _Datagrams(asyncio.DatagramProtocol):
    def __init__(self, answer: Callable[[bytes, str], bytes | None]) -> None:
        self.answer = answer
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: Any) -> None:
        reply = self.answer(data, f"{addr[0]}:{addr[1]}")
        if reply and self.transport is not None:
            self.transport.sendto(reply, addr)


class _Health(health_pb2_grpc.HealthServicer):  # type: ignore[misc,unused-ignore]  # grpc ships no types
    def __init__(self, status: Callable[[str], str]) -> None:
        self.status = status

    async def Check(self, request: Any, context: Any) -> Any:
        said = self.status(request.service)
        if said == SERVING:
            return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)
        if said == NOT_SERVING:
            return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.NOT_SERVING)
        await context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")

    # agnhost's grpc-health-checking answers these two itself with Unimplemented
    # ("unimplemented"), and so does its stand-in here.
    async def Watch(self, request: Any, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "unimplemented")

    async def List(self, request: Any, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "unimplemented")


class _Opened:
    """One listening socket and what serves it, once the loop has set that up."""

    def __init__(self, sock: socket.socket | None) -> None:
        self.sock = sock
        self.server: Any = None  # asyncio.Server, a datagram transport or a grpc.aio server
        self.bound: list[tuple[str, int]] = []  # where a gRPC server listens (it binds its own socket)
        self.closed = False

    def address(self) -> list[tuple[str, int]]:
        if self.sock is not None and self.sock.fileno() >= 0:
            return [self.sock.getsockname()[:2]]
        if isinstance(self.server, asyncio.Server):
            return [s.getsockname()[:2] for s in self.server.sockets]
        return self.bound

    def close(self) -> None:
        self.closed = True
        server, self.server = self.server, None
        if isinstance(server, grpc.aio.Server):
            asyncio.ensure_future(server.stop(None))
        elif server is not None:
            server.close()
        elif self.sock is not None:
            self.sock.close()


class PortListeners:
    def __init__(self, owner: ListenerOwner) -> None:
        self._owner = owner  # the Node, as its listeners see it
        self._count = owner.count
        self.opened: dict[str, list[_Opened]] = {}  # container id -> listeners (the node looks here at an end)

    def bound(self, cid: str) -> list[tuple[str, int]]:
        """The (address, port) a container's server listens on now."""
        return [a for item in self.opened.get(cid, ()) for a in item.address()]

    def open(self, c: Container, sb: Sandbox, listens: Iterable[Listen]) -> None:
        """Real sockets for what the started container's program listens on (the node asks the
        simulation, and calls this only for a program that listens at all)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # not on the server's loop (a restore before serving): nothing to serve with
            return
        for lis in listens:
            if lis.proto not in ("tcp", "udp"):
                self._count("listeners_not_modelled")
                log.info("listener_not_modelled", container=c.id, proto=lis.proto, port=lis.port)
                continue
            for host, port in addresses(lis.port, sb, lis.proto):
                opened = self._open_one(c.id, lis, host, port)
                if opened is not None:
                    self.opened.setdefault(c.id, []).append(opened)

    def _fail(self, cid: str, host: str, port: int, exc: BaseException) -> None:
        self._count("port_listener_failures")
        log.warning("port_listener_failed", container=cid, address=f"{host}:{port}", error=str(exc))

    def _open_one(self, cid: str, lis: Listen, host: str, port: int) -> _Opened | None:
        if lis.kind == GRPC_HEALTH:
            return self._open_grpc(cid, lis, host, port)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_DGRAM if lis.proto == "udp" else socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            if lis.proto == "tcp":
                sock.listen(64)
            sock.setblocking(False)
        except OSError as exc:
            sock.close()
            self._fail(cid, host, port, exc)
            return None
        opened = _Opened(sock)  # listening already; served once the loop picks it up
        asyncio.get_running_loop().create_task(self._serve(cid, lis, opened))
        return opened

    async def _serve(self, cid: str, lis: Listen, opened: _Opened) -> None:
        if opened.closed or opened.sock is None:
            return
        sock, opened.sock = opened.sock, None
        loop = asyncio.get_running_loop()
        owner, port = self._owner, lis.port
        if lis.proto == "udp" and lis.kind == DATAGRAM:
            transport, _ = await loop.create_datagram_endpoint(
                lambda: _Datagrams(lambda data, client: webserver.datagram(owner, cid, port, data, client)), sock=sock)
            server: Any = transport
        elif lis.kind == GREETING:
            server = await asyncio.start_server(lambda r, w: webserver.greet(owner, cid, port, w), sock=sock)
        elif lis.kind == HTTP:
            tls: dict[str, Any] = {"ssl": server_context(), "ssl_handshake_timeout": 10.0} if lis.tls else {}
            server = await asyncio.start_server(lambda r, w: webserver.serve(owner, cid, port, r, w), sock=sock,
                                                **tls)
        else:
            sock.close()
            return
        if opened.closed:
            server.close()
        else:
            opened.server = server

    def _open_grpc(self, cid: str, lis: Listen, host: str, port: int) -> _Opened | None:
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        owner = self._owner
        health_pb2_grpc.add_HealthServicer_to_server(
            _Health(lambda service: webserver.grpc_health(owner, cid, lis.port, service)), server)
        target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        try:
            bound = server.add_insecure_port(target)
        except RuntimeError as exc:
            self._fail(cid, host, port, exc)
            return None
        if not bound:
            self._fail(cid, host, port, OSError(f"could not bind {target}"))
            return None
        opened = _Opened(None)
        opened.server = server
        opened.bound = [(host, bound)]
        asyncio.ensure_future(server.start())
        return opened

    def close(self, cid: str) -> None:
        for item in self.opened.pop(cid, ()):
            item.close()

    def close_all(self) -> None:
        for cid in list(self.opened):
            self.close(cid)
