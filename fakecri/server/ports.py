"""Real listeners for the web servers of running containers.

When a container whose own command is a web server (the image content says which
ports, see sim/image_content.py) starts, the server opens the sockets a real node
would have:

- each TCP port mapping of its sandbox whose container port the server listens on
  and that asks for a host port: `host_ip:host_port`, on 127.0.0.1 when no host_ip
  is given (a fake should not reach beyond the machine unasked);
- on a host-network sandbox, the server's own ports on the host (127.0.0.1);
- the pod IP and the server's port, when the pod IP is a loopback address (a
  `--pod-cidr` inside 127.0.0.0/8), so that clients that talk to the pod IP reach it.

They close when the container stops or goes away, and all of them on a reset or
shutdown. A socket that cannot be bound (address in use, not local) is counted and
logged; the container runs on, as its server would not be reachable there. Each
connection is bounded (see webserver.py): no client can hold the loop.
"""
from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable

from fakecri import logs
from fakecri.engine.events import Event, EventType
from fakecri.engine.records import Container, Sandbox
from fakecri.engine.specs import NODE, TCP
from fakecri.server import webserver
from fakecri.sim.simulation import Simulation

log = logs.logger()
DEFAULT_HOST_IP = "127.0.0.1"


def _is_loopback(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


def addresses(c_ports: tuple[int, ...], sb: Sandbox) -> list[tuple[str, int]]:
    """(host address, port) pairs a web server on `c_ports` is reachable at from the host."""
    out: list[tuple[str, int]] = []
    pod_ip = sb.ip
    if sb.spec.namespaces.network == NODE:
        out += [(DEFAULT_HOST_IP, p) for p in c_ports]
    else:
        for m in sb.spec.port_mappings:
            if m.protocol == TCP and m.host_port and m.container_port in c_ports:
                out.append((m.host_ip or DEFAULT_HOST_IP, m.host_port))
        if pod_ip and _is_loopback(pod_ip):
            out += [(pod_ip, p) for p in c_ports]
    return list(dict.fromkeys(out))


class PortListeners:
    def __init__(self, sim: Simulation, count: Callable[[str], None]) -> None:
        self._sim = sim  # which ports a container's server listens on, and which server it is
        self._count = count
        self._open: dict[str, list[asyncio.Server | socket.socket]] = {}  # container id -> listeners

    def bound(self, cid: str) -> list[tuple[str, int]]:
        """The (address, port) a container's server listens on now."""
        out = []
        for item in self._open.get(cid, ()):
            socks = item.sockets if isinstance(item, asyncio.Server) else [item]
            out += [s.getsockname()[:2] for s in socks]
        return out

    def on_event(self, ev: Event) -> None:
        if ev.is_sandbox:
            return
        if ev.type == EventType.STARTED and isinstance(ev.subject, Container) and ev.sandbox is not None:
            self._start(ev.subject, ev.sandbox)
        elif ev.type in (EventType.STOPPED, EventType.DELETED):
            self.close(ev.container_id)

    def _start(self, c: Container, sb: Sandbox) -> None:
        ports = self._sim.web_ports(c)
        if not ports:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on the server's loop (a restore before serving): nothing to serve with
            return
        server = self._sim.content_of(c).http_server
        for host, port in addresses(ports, sb):
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.bind((host, port))
                sock.listen(64)
                sock.setblocking(False)
            except OSError as exc:
                sock.close()
                self._count("port_listener_failures")
                log.warning("port_listener_failed", container=c.id, address=f"{host}:{port}", error=str(exc))
                continue
            entry: list = self._open.setdefault(c.id, [])
            entry.append(sock)  # listening already; served once the loop picks it up
            loop.create_task(self._serve(c.id, sock, server))

    async def _serve(self, cid: str, sock: socket.socket, server_name: str) -> None:
        entry = self._open.get(cid)
        if entry is None or sock not in entry:
            return  # closed before it was served
        server = await asyncio.start_server(lambda r, w: webserver.serve(server_name, r, w), sock=sock)
        entry = self._open.get(cid)
        if entry is None or sock not in entry:
            server.close()
            return
        entry[entry.index(sock)] = server

    def close(self, cid: str) -> None:
        for item in self._open.pop(cid, ()):
            item.close()

    def close_all(self) -> None:
        for cid in list(self._open):
            self.close(cid)
