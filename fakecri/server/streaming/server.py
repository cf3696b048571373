"""The streaming HTTP listener: hands out token URLs, then serves the upgraded connections.

`prepare_*` are called from the CRI Exec/Attach/PortForward handlers and return
`http://HOST:PORT/{exec,attach,portforward}/TOKEN`. A client redeems the token once,
before it expires, by upgrading to WebSocket or SPDY/3.1 at that URL. What the server holds
for its clients (tokens, connections, streams, input) is bounded by `StreamingLimits`.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from fakecri.engine.errors import InvalidArgument
from fakecri.server.exceptions import Unavailable
from fakecri.server.streaming import remotecommand as rc
from fakecri.server.streaming.backend import StreamingBackend
from fakecri.server.streaming.httphead import BadRequest, RequestHead, parse_head, response
from fakecri.server.streaming.limits import ByteMeter, StreamingLimits
from fakecri.server.streaming.portforward import parse_port
from fakecri.server.streaming.prepared import AttachRequest, ExecRequest, PortForwardRequest, Prepared
from fakecri.server.streaming.tasks import cancel_tasks
from fakecri.server.streaming.tokens import TokenCache

log = logging.getLogger(__name__)

PORT_FORWARD_PROTOCOL = "portforward.k8s.io"
ROUTES: dict[str, type] = {"exec": ExecRequest, "attach": AttachRequest,
                           "portforward": PortForwardRequest}
MAX_HEAD = 16 * 1024


def negotiate(offered: list[str], supported: tuple[str, ...]) -> str | None:
    """The first protocol the client offered that we support ("" if it offered none)."""
    if not offered:
        return ""
    return next((p for p in offered if p in supported), None)


class StreamingServer:
    """Serves exec, attach and port-forward for URLs it prepared earlier."""

    def __init__(self, backend: StreamingBackend, host: str = "127.0.0.1", port: int = 0,
                 token_ttl_s: float = 60.0, now: Callable[[], float] = time.monotonic, *,
                 stream_creation_timeout_s: float = 30.0,
                 stream_idle_timeout_s: float | None = 4 * 3600.0,
                 handshake_timeout_s: float = 10.0, limits: StreamingLimits = StreamingLimits()) -> None:
        self.backend = backend
        self._host = host
        self._port = port
        self.limits = limits
        self.meter = ByteMeter()  # unread client input held by every connection
        self._tokens: TokenCache[Prepared] = TokenCache(token_ttl_s, now, max_entries=limits.max_tokens,
                                                        max_bytes=limits.token_bytes, weight=_weight)
        self._creation_timeout = stream_creation_timeout_s
        self._idle_timeout = stream_idle_timeout_s
        self._handshake_timeout = handshake_timeout_s
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self._base_url = ""

    # -- lifecycle --
    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self._host, self._port,
                                                  limit=MAX_HEAD)
        host, port = self._server.sockets[0].getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        self._base_url = f"http://{shown}:{port}"

    @property
    def base_url(self) -> str:
        if not self._base_url:
            raise Unavailable("the streaming server has not been started")
        return self._base_url

    @property
    def active_connections(self) -> int:
        return len(self._connections)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._connections):
            task.cancel()
        for task in list(self._connections):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._server is not None:
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    # -- preparing URLs (CRI RPC time) --
    def _url(self, kind: str, request: Prepared) -> str:
        base = self.base_url
        return f"{base}/{kind}/{self._tokens.insert(request)}"

    def prepare_exec(self, container_id: str, cmd: list[str] | tuple[str, ...], tty: bool = False,
                     stdin: bool = False, stdout: bool = True, stderr: bool = True) -> str:
        if not cmd:
            raise InvalidArgument(f"exec in container {container_id!r}: cmd must not be empty")
        size = sum(len(arg.encode("utf-8", "surrogateescape")) + 1 for arg in cmd)
        if size > self.limits.max_argv_bytes:
            raise InvalidArgument(f"exec in container {container_id!r}: argument list too long ({size} bytes; "
                                  f"at most {self.limits.max_argv_bytes})")
        _check_streams(container_id, tty, stdin, stdout, stderr)
        self.backend.check_exec(container_id)
        return self._url("exec", ExecRequest(container_id, tuple(cmd), tty, stdin, stdout, stderr))

    def prepare_attach(self, container_id: str, tty: bool = False, stdin: bool = False,
                       stdout: bool = True, stderr: bool = True) -> str:
        _check_streams(container_id, tty, stdin, stdout, stderr)
        self.backend.check_attach(container_id)
        return self._url("attach", AttachRequest(container_id, tty, stdin, stdout, stderr))

    def prepare_port_forward(self, pod_sandbox_id: str,
                             ports: list[int] | tuple[int, ...] = ()) -> str:
        for port in ports:
            if not 0 < port <= 0xFFFF:
                raise InvalidArgument(f"port forward to pod {pod_sandbox_id!r}: "
                                      f"port {port} is out of range")
        self.backend.check_port_forward(pod_sandbox_id)
        unique = tuple(dict.fromkeys(ports))  # at most 65535, however many were asked
        return self._url("portforward", PortForwardRequest(pod_sandbox_id, unique))

    # -- serving --
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        if len(self._connections) >= self.limits.max_connections:
            await self._reply(writer, 503, f"too many streaming connections (at most "
                                           f"{self.limits.max_connections}); retry later")
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            return
        self._connections.add(task)
        try:
            await self._route(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except Exception:  # one broken connection must never take the listener down
            log.exception("streaming connection failed")
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _reply(self, writer: asyncio.StreamWriter, status: int, body: str,
                     headers: dict[str, str] | None = None) -> None:
        writer.write(response(status, body + "\n", headers))
        with contextlib.suppress(ConnectionError):
            await writer.drain()

    async def _route(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self._handshake_timeout)
        except (TimeoutError, asyncio.LimitOverrunError, ValueError):
            await self._reply(writer, 400, "request head missing, too large or too slow")
            return
        try:
            head = parse_head(raw)
        except BadRequest as exc:
            await self._reply(writer, 400, str(exc))
            return
        parts = head.path.strip("/").split("/")
        if len(parts) != 2 or parts[0] not in ROUTES:
            await self._reply(writer, 404, f"no such streaming endpoint: {head.path}")
            return
        if head.method not in ("GET", "POST"):
            await self._reply(writer, 405, f"method {head.method} not allowed", {"Allow": "GET, POST"})
            return
        kind, token = parts
        request = self._tokens.consume(token)
        if request is None or not isinstance(request, ROUTES[kind]):
            await self._reply(writer, 404, f"unknown, already used or expired token for {kind}")
            return
        upgrade = head.header("upgrade").lower()
        if not head.has_token("connection", "upgrade") or not upgrade:
            await self._reply(writer, 400, "unable to upgrade: missing upgrade headers in request")
            return
        if upgrade == "websocket":
            await self._websocket(reader, writer, raw, head, request)
        elif upgrade.startswith("spdy/3.1"):
            await self._spdy(reader, writer, head, request)
        else:
            await self._reply(writer, 400, f"unable to upgrade: unsupported protocol {upgrade!r}")

    async def _spdy(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    head: RequestHead, request: Prepared) -> None:
        supported = ((PORT_FORWARD_PROTOCOL,) if isinstance(request, PortForwardRequest)
                     else rc.SPDY_VERSIONS)
        offered = head.header_list("x-stream-protocol-version")
        chosen = negotiate(offered, supported)
        if chosen is None:
            await self._reply(
                writer, 403, f"unable to upgrade: unable to negotiate protocol: client supports "
                f"{offered}, server accepts {list(supported)}",
                {"X-Accepted-Stream-Protocol-Versions": ", ".join(supported)})
            return
        headers = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1"}
        if chosen:
            headers["X-Stream-Protocol-Version"] = chosen
        writer.write(response(101, "", headers))
        await writer.drain()
        from fakecri.server.streaming import spdy_handlers  # loaded on the first SPDY upgrade

        if isinstance(request, PortForwardRequest):
            await self._while_pod_runs(request, spdy_handlers.serve_port_forward(
                reader, writer, self.backend, request, creation_timeout_s=self._creation_timeout,
                idle_timeout_s=self._idle_timeout, limits=self.limits, meter=self.meter))
        else:
            await spdy_handlers.serve_command(
                reader, writer, self.backend, request, chosen or rc.V1, creation_timeout_s=self._creation_timeout,
                idle_timeout_s=self._idle_timeout, limits=self.limits, meter=self.meter)

    async def _websocket(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                         raw: bytes, head: RequestHead, request: Prepared) -> None:
        ports: list[int] = []
        if isinstance(request, PortForwardRequest):
            try:
                ports = [parse_port(p) for p in head.query.get("port", [])
                         for p in p.split(",")] or list(request.ports)
            except ValueError as exc:
                await self._reply(writer, 400, f"bad port query parameter: {exc}")
                return
            if not ports:
                await self._reply(writer, 400, 'query parameter "port" is required')
                return
        from fakecri.server.streaming import websocket as ws  # loaded on the first WebSocket upgrade

        protocol = ws.handshake_protocol(ws.PORT_FORWARD_PROTOCOLS if ports
                                         else ws.COMMAND_PROTOCOLS, self.limits.max_ws_message)
        protocol.receive_data(raw)
        events = protocol.events_received()
        if not events:
            await self._reply(writer, 400, "malformed WebSocket handshake")
            return
        answer = protocol.accept(events[0])  # type: ignore[arg-type]
        protocol.send_response(answer)
        for data in protocol.data_to_send():
            writer.write(data)
        await writer.drain()
        if answer.status_code != 101:
            return
        sock = ws.ChannelSocket(protocol, reader, writer,
                                answer.headers.get("Sec-WebSocket-Protocol"), self._idle_timeout)
        if isinstance(request, PortForwardRequest):
            await self._while_pod_runs(request, ws.serve_port_forward(sock, self.backend, request, ports, self.limits))
        else:
            await ws.serve_command(sock, self.backend, request, self.limits)


    async def _while_pod_runs(self, request: PortForwardRequest, serving: Coroutine[Any, Any, None]) -> None:
        """Serve a port-forward until the client ends it or its pod stops: a stopped pod's network
        goes, and every connection into it with it (the session's own `finally` closes the
        connection, with a GOAWAY or a close frame)."""
        with self.backend.watch_pod(request.pod_sandbox_id) as watch:
            task = asyncio.ensure_future(serving)
            stopped = asyncio.ensure_future(watch.ended.wait())
            try:
                await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                await cancel_tasks(stopped, *([] if task.done() else [task]))
            if task.done() and not task.cancelled():
                task.result()  # what it raised, as if it had been awaited


def _weight(request: Prepared) -> int:
    """About how many bytes a prepared request holds while its token waits."""
    if isinstance(request, ExecRequest):
        return 256 + sum(len(arg) + 64 for arg in request.cmd)
    if isinstance(request, PortForwardRequest):
        return 256 + 40 * len(request.ports)
    return 256


def _check_streams(container_id: str, tty: bool, stdin: bool, stdout: bool, stderr: bool) -> None:
    if tty and stderr:
        raise InvalidArgument(f"container {container_id!r}: tty and stderr cannot both be true")
    if not (stdin or stdout or stderr):
        raise InvalidArgument(f"container {container_id!r}: one of stdin, stdout, "
                              f"or stderr must be set")
