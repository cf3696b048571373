"""What the streaming server needs from the runtime (`StreamingBackend`), and how a
forwarded port answers. runtime_backend.py implements it over the core runtime."""
from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from fakecri.server.node.sessions import Watch

Writer = Callable[[bytes], Awaitable[None]]
Respond = Callable[[bytes, Writer], Awaitable[None]]  # (one HTTP request, where its response goes)


@dataclass(frozen=True)
class PortForwardBehaviour:
    """What answers a forwarded connection: an echo, a fixed HTTP response, a refusal, the
    pod's own server through its real listener (`proxy`: relayed to `address`), or the pod's
    own HTTP server with no listener behind the port (`web`: `respond` answers each request as
    the listener would, fakecri.server.host.webserver)."""

    mode: Literal["echo", "http", "refuse", "proxy", "web"] = "echo"
    http_status: int = 200
    http_body: bytes = b"ok\n"
    http_content_type: str = "text/plain; charset=utf-8"
    message: str = "connection refused"
    address: tuple[str, int] = ("", 0)  # proxy: the listener the connection is relayed to
    respond: Respond | None = None  # web: answers one request (its bytes) through the writer it is given

    @classmethod
    def echo(cls) -> PortForwardBehaviour:
        return cls("echo")

    @classmethod
    def http(cls, status: int = 200, body: bytes = b"ok\n",
             content_type: str = "text/plain; charset=utf-8") -> PortForwardBehaviour:
        return cls("http", http_status=status, http_body=body, http_content_type=content_type)

    @classmethod
    def proxy(cls, host: str, port: int) -> PortForwardBehaviour:
        return cls("proxy", address=(host, port))

    @classmethod
    def refuse(cls, message: str = "connection refused") -> PortForwardBehaviour:
        return cls("refuse", message=message)

    @classmethod
    def web(cls, respond: Respond) -> PortForwardBehaviour:
        return cls("web", respond=respond)


class StreamingBackend(Protocol):
    """The runtime side of Exec, Attach and PortForward.

    `check_*` run when the URL is requested (CRI RPC time) and raise
    `fakecri.engine.errors` (NotFound, FailedPrecondition). The async methods run when a
    client connects; `exec`/`attach` may raise the same errors then.
    """

    def check_exec(self, container_id: str) -> None: ...

    def check_attach(self, container_id: str) -> None: ...

    def check_port_forward(self, pod_sandbox_id: str) -> None: ...

    async def exec(self, container_id: str, argv: list[str], *, tty: bool,
                   stdin: AsyncIterable[bytes] | None, stdout_write: Writer,
                   stderr_write: Writer) -> int: ...

    async def attach(self, container_id: str, *, tty: bool, stdin: AsyncIterable[bytes] | None,
                     stdout_write: Writer, stderr_write: Writer) -> None: ...

    def resize(self, container_id: str, width: int, height: int) -> None: ...

    def port_forward_behaviour(self, pod_sandbox_id: str, port: int) -> PortForwardBehaviour: ...

    def watch_pod(self, pod_sandbox_id: str) -> Watch:
        """A watch that ends when the pod stops or goes: a port-forward into it ends then."""
