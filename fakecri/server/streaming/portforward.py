"""The service behind a forwarded port, shared by the SPDY and WebSocket transports.

There is no real process in a fake pod, so a `PortForwardBehaviour` answers instead:
echo the bytes back, send one fixed HTTP response, refuse with an error message, or
answer as the pod's web server answers on its host port (fakecri.server.webserver).
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from http import HTTPStatus

from fakecri.server import webserver
from fakecri.server.streaming.backend import PortForwardBehaviour, Writer
from fakecri.server.streaming.prepared import PortForwardRequest

Reader = Callable[[], Awaitable[bytes]]  # returns b"" at end of stream

MAX_HTTP_HEAD = 64 * 1024


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
    if behaviour.mode in ("http", "web"):
        head = bytearray()
        while b"\r\n\r\n" not in head and len(head) < MAX_HTTP_HEAD:
            chunk = await read()
            if not chunk:
                break
            head += chunk
        if behaviour.mode == "web":
            await write(webserver.answer(behaviour.server, bytes(head)))
        else:
            await write(http_response(behaviour))
        return None
    while chunk := await read():
        await write(chunk)
    return None
