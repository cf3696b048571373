"""The service behind a forwarded port, shared by the SPDY and WebSocket transports.

A `PortForwardBehaviour` says what answers: the pod's program through its real listener
(the connection relayed to it), the pod's HTTP server answering each request as its
listener would (fakecri.server.host.webserver) when no listener is behind the port, or, with no
server on the port, an echo of the bytes, one fixed HTTP response, or a refusal.
"""
from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from fakecri.engine.errors import CoreError
from fakecri.server.streaming.backend import PortForwardBehaviour, StreamingBackend, Writer
from fakecri.server.streaming.prepared import PortForwardRequest

log = logging.getLogger(__name__)

Reader = Callable[[], Awaitable[bytes]]  # returns b"" at end of stream

MAX_HTTP_HEAD = 64 * 1024
MAX_HTTP_BODY = 1 << 20
_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.I)
RELAY_CONNECT_TIMEOUT_S = 5.0


def parse_port(text: str) -> int:
    """A port number from a header or query value; ValueError unless 1..65535."""
    port = int(text, 10)
    if not 0 < port <= 0xFFFF:
        raise ValueError(f"port {text!r} is out of range")
    return port


def port_error(request: PortForwardRequest, port: int) -> str | None:
    """Why `port` may not be forwarded for this request, or None if it may."""
    if request.ports and port not in request.ports:
        return (f"error forwarding port {port} to pod {request.pod_sandbox_id}: port {port} "
                f"was not among the ports requested ({', '.join(map(str, request.ports))})")
    return None


def http_response(behaviour: PortForwardBehaviour) -> bytes:
    try:
        reason = HTTPStatus(behaviour.http_status).phrase
    except ValueError:
        reason = "Status"
    head = (f"HTTP/1.1 {behaviour.http_status} {reason}\r\n"
            f"Content-Type: {behaviour.http_content_type}\r\n"
            f"Content-Length: {len(behaviour.http_body)}\r\n"
            f"Connection: close\r\n\r\n")
    return head.encode("latin-1") + behaviour.http_body


async def serve_connection(behaviour: PortForwardBehaviour, pod_sandbox_id: str, port: int,
                           read: Reader, write: Writer) -> str | None:
    """Answer one forwarded connection; returns an error message for the error stream, if any."""
    if behaviour.mode == "refuse":
        return (f"error forwarding port {port} to pod {pod_sandbox_id}: "
                f"failed to connect to localhost:{port}: {behaviour.message}")
    if behaviour.mode == "proxy":
        return await _relay(behaviour.address, pod_sandbox_id, port, read, write)
    if behaviour.mode in ("http", "web"):
        request = bytearray()
        while b"\r\n\r\n" not in request and len(request) < MAX_HTTP_HEAD:
            chunk = await read()
            if not chunk:
                break
            request += chunk
        if behaviour.mode == "web" and behaviour.respond is not None:
            head = bytes(request).partition(b"\r\n\r\n")[0]
            announced = _LENGTH.search(head)
            want = min(int(announced.group(1)), MAX_HTTP_BODY) if announced else 0
            while len(request) - len(head) - 4 < want and (chunk := await read()):
                request += chunk
            await behaviour.respond(bytes(request), write)
        else:
            await write(http_response(behaviour))
        return None
    while chunk := await read():
        await write(chunk)
    return None


async def _relay(address: tuple[str, int], pod_sandbox_id: str, port: int, read: Reader, write: Writer) -> str | None:
    """Relay the forwarded connection to the pod's real listener, both ways, until both ends finish."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(*address), RELAY_CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        return (f"error forwarding port {port} to pod {pod_sandbox_id}: "
                f"failed to connect to localhost:{port}: {exc.strerror if isinstance(exc, OSError) else exc}")

    async def upstream() -> None:
        try:
            while chunk := await read():
                writer.write(chunk)
                await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()
        except (OSError, RuntimeError):
            pass

    sender = asyncio.ensure_future(upstream())
    try:
        while chunk := await reader.read(65536):
            await write(chunk)
    except OSError:
        pass
    finally:
        sender.cancel()
        writer.close()
    return None


async def forward(backend: StreamingBackend, request: PortForwardRequest, port: int,
                  read: Reader, write: Writer) -> str | None:
    """Serve one forwarded connection to `port`; the error message for the client, if any.

    Whatever fails on the way (a port not requested, a pod whose `fakecri.io/port-forward`
    annotation cannot be read, a bug) becomes that message, as the kubelet's streaming
    library reports a failed forward on the error stream, so the client is never left
    waiting for data that will not come."""
    message = port_error(request, port)
    if message is not None:
        return message
    try:
        behaviour = backend.port_forward_behaviour(request.pod_sandbox_id, port)
        return await serve_connection(behaviour, request.pod_sandbox_id, port, read, write)
    except CoreError as exc:
        return f"error forwarding port {port} to pod {request.pod_sandbox_id}: {exc.message}"
    except Exception as exc:  # a fakecri bug: still answer, then let the log say what it was
        log.exception("port forward failed")
        return f"error forwarding port {port} to pod {request.pod_sandbox_id}: internal error: {exc!r}"[:4096]
