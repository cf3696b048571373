"""The real network, for the simulated programs: carries out their `Connect` steps.

A program in a container that talks to another address (busybox `wget`, `nc`, netexec's
`/dial`) asks for a connection with a `Connect` step; `exchange` makes it, on a real socket,
from this process: connect (TCP) or send (UDP), send the bytes, read the answer, all
bounded by the step's timeout. Only loopback addresses are dialled (pod IPs and node
addresses live there in a fakecri cluster); anything else is unreachable, so a fake node
never reaches beyond the machine.
"""
from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import socket
import ssl
from collections.abc import Callable

from fakecri.server.host.tls import client_context
from fakecri.sim.steps import REFUSED, RESET, TIMEOUT, UDP, UNREACHABLE, Connect, NetResult

MAX_TIMEOUT_S = 300.0  # no connection is waited on longer than this, whatever the program asked


def reachable(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _name(sockname: object) -> str:
    if isinstance(sockname, tuple) and len(sockname) >= 2:
        host, port = sockname[0], sockname[1]
        return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
    return ""


def _error(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return REFUSED
    if isinstance(exc, ConnectionResetError | BrokenPipeError):
        return RESET
    if isinstance(exc, TimeoutError):
        return TIMEOUT
    if isinstance(exc, OSError) and exc.errno == errno.ECONNREFUSED:
        return REFUSED
    if isinstance(exc, ssl.SSLError):
        return RESET
    return UNREACHABLE


def _source(step: Connect) -> tuple[str, int] | None:
    """Where the connection goes out from: the pod's own address when it has one on loopback
    (so the peer sees the pod's IP, as across a pod network), else wherever the kernel picks."""
    if step.source and reachable(step.source) and (":" in step.source) == (":" in step.host):
        return (step.source, 0)
    return None


def within(cidr: str) -> Callable[[str], bool]:
    """A `may_dial` for a confined node (`--host-root`): loopback addresses inside `cidr`
    (the pod network) only, so that pods reach each other and nothing the host serves."""
    network = ipaddress.ip_network(cidr, strict=False)

    def may_dial(host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return address.is_loopback and address.version == network.version and address in network

    return may_dial


async def exchange(step: Connect, may_dial: Callable[[str], bool] = reachable) -> NetResult:
    """Carry out one `Connect`; never raises (what went wrong is in the result). `may_dial`
    says which addresses are dialled at all (any loopback address by default); any other is
    unreachable."""
    if not may_dial(step.host) or not 0 < step.port < 65536:
        return NetResult(error=UNREACHABLE)
    timeout = min(max(step.timeout_s, 0.001), MAX_TIMEOUT_S)
    if step.proto == UDP:
        return await _datagram(step, timeout)
    return await _stream(step, timeout)


async def _stream(step: Connect, timeout: float) -> NetResult:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    got = bytearray()
    local = ""
    writer: asyncio.StreamWriter | None = None
    try:
        connecting = (asyncio.open_connection(step.host, step.port, local_addr=_source(step), ssl=client_context(),
                                              server_hostname="localhost") if step.tls else
                      asyncio.open_connection(step.host, step.port, local_addr=_source(step)))
        reader, opened = await asyncio.wait_for(connecting, timeout)
        writer = opened
        local = _name(opened.get_extra_info("sockname"))
        if step.data:
            opened.write(step.data)
            await asyncio.wait_for(opened.drain(), max(0.001, deadline - loop.time()))
        while step.stop_after and len(got) < step.stop_after:
            chunk = await asyncio.wait_for(reader.read(65536), max(0.001, deadline - loop.time()))
            if not chunk:
                break
            got += chunk
        return NetResult(bytes(got[:step.stop_after]) if step.stop_after else b"", "", local)
    except (OSError, TimeoutError) as exc:
        return NetResult(bytes(got), _error(exc), local)
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError, TimeoutError, asyncio.TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), 1.0)


class _OneDatagram(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.answer: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    def datagram_received(self, data: bytes, addr: object) -> None:
        if not self.answer.done():
            self.answer.set_result(data)

    def error_received(self, exc: Exception) -> None:
        if not self.answer.done():
            self.answer.set_exception(exc)


async def _datagram(step: Connect, timeout: float) -> NetResult:
    loop = asyncio.get_running_loop()
    family = socket.AF_INET6 if ":" in step.host else socket.AF_INET
    transport = None
    local = ""
    try:
        transport, proto = await loop.create_datagram_endpoint(_OneDatagram, remote_addr=(step.host, step.port),
                                                               family=family, local_addr=_source(step))
        local = _name(transport.get_extra_info("sockname"))
        transport.sendto(step.data)
        if not step.stop_after:
            return NetResult(local=local)
        data = await asyncio.wait_for(proto.answer, timeout)
        return NetResult(data[:step.stop_after], "", local)
    except (OSError, TimeoutError) as exc:
        return NetResult(b"", _error(exc), local)
    finally:
        if transport is not None:
            transport.close()
