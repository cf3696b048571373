"""What the streaming server needs from the runtime, and an in-memory reference backend.

The lead's runtime implements `StreamingBackend` over the core; `InMemoryBackend` is a
small stand-in used by the streaming tests and as a worked example.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from fakecri.core.errors import FailedPrecondition, NotFound
from fakecri.server.streaming.interpreter import run_argv

Writer = Callable[[bytes], Awaitable[None]]


@dataclass(frozen=True)
class PortForwardBehaviour:
    """What answers a forwarded connection: an echo, a fixed HTTP response, or a refusal."""

    mode: Literal["echo", "http", "refuse"] = "echo"
    http_status: int = 200
    http_body: bytes = b"ok\n"
    http_content_type: str = "text/plain; charset=utf-8"
    message: str = "connection refused"

    @classmethod
    def echo(cls) -> PortForwardBehaviour:
        return cls("echo")

    @classmethod
    def http(cls, status: int = 200, body: bytes = b"ok\n",
             content_type: str = "text/plain; charset=utf-8") -> PortForwardBehaviour:
        return cls("http", http_status=status, http_body=body, http_content_type=content_type)

    @classmethod
    def refuse(cls, message: str = "connection refused") -> PortForwardBehaviour:
        return cls("refuse", message=message)


class StreamingBackend(Protocol):
    """The runtime side of Exec, Attach and PortForward.

    `check_*` run when the URL is requested (CRI RPC time) and raise
    `fakecri.core.errors` (NotFound, FailedPrecondition). The async methods run when a
    client connects; `exec`/`attach` may raise the same errors then.
    """

    def check_exec(self, container_id: str) -> None: ...

    def check_attach(self, container_id: str) -> None: ...

    def check_port_forward(self, pod_sandbox_id: str) -> None: ...

    async def exec(self, container_id: str, argv: list[str], *, tty: bool,
                   stdin: AsyncIterator[bytes] | None, stdout_write: Writer,
                   stderr_write: Writer) -> int: ...

    async def attach(self, container_id: str, *, tty: bool, stdin: AsyncIterator[bytes] | None,
                     stdout_write: Writer, stderr_write: Writer) -> None: ...

    def resize(self, container_id: str, width: int, height: int) -> None: ...

    def port_forward_behaviour(self, pod_sandbox_id: str, port: int) -> PortForwardBehaviour: ...


@dataclass
class _FakeContainer:
    running: bool = True
    listeners: list[asyncio.Queue[tuple[bool, bytes] | None]] = field(default_factory=list)
    attach_input: bytearray = field(default_factory=bytearray)


class InMemoryBackend:
    """Containers and sandboxes held in dicts; exec runs the tiny interpreter.

    `emit(cid, data)` is what the container writes to its log (attached clients get it);
    `exit(cid)` stops the container, which ends every attach to it.
    """

    def __init__(self) -> None:
        self.containers: dict[str, _FakeContainer] = {}
        self.sandboxes: set[str] = set()
        self.port_behaviours: dict[tuple[str, int], PortForwardBehaviour] = {}
        self.default_port_behaviour = PortForwardBehaviour.echo()
        self.resizes: list[tuple[str, int, int]] = []

    def add_container(self, container_id: str, *, running: bool = True) -> None:
        self.containers[container_id] = _FakeContainer(running=running)

    def add_sandbox(self, pod_sandbox_id: str) -> None:
        self.sandboxes.add(pod_sandbox_id)

    def attach_input(self, container_id: str) -> bytes:
        return bytes(self.containers[container_id].attach_input)

    def attached_count(self, container_id: str) -> int:
        return len(self.containers[container_id].listeners)

    def emit(self, container_id: str, data: bytes, *, stderr: bool = False) -> None:
        for queue in self.containers[container_id].listeners:
            if queue.full():  # a slow attached client loses output rather than blocking
                continue
            queue.put_nowait((stderr, data))

    def exit(self, container_id: str) -> None:
        rec = self.containers[container_id]
        rec.running = False
        for queue in rec.listeners:
            while queue.full():
                queue.get_nowait()
            queue.put_nowait(None)

    def _running(self, container_id: str) -> _FakeContainer:
        rec = self.containers.get(container_id)
        if rec is None:
            raise NotFound(f"container {container_id!r} not found")
        if not rec.running:
            raise FailedPrecondition(f"container {container_id!r} is not running")
        return rec

    def check_exec(self, container_id: str) -> None:
        self._running(container_id)

    def check_attach(self, container_id: str) -> None:
        self._running(container_id)

    def check_port_forward(self, pod_sandbox_id: str) -> None:
        if pod_sandbox_id not in self.sandboxes:
            raise NotFound(f"pod sandbox {pod_sandbox_id!r} not found")

    async def exec(self, container_id: str, argv: list[str], *, tty: bool,
                   stdin: AsyncIterator[bytes] | None, stdout_write: Writer,
                   stderr_write: Writer) -> int:
        self._running(container_id)
        return await run_argv(argv, stdin, stdout_write, stdout_write if tty else stderr_write)

    async def attach(self, container_id: str, *, tty: bool, stdin: AsyncIterator[bytes] | None,
                     stdout_write: Writer, stderr_write: Writer) -> None:
        rec = self._running(container_id)
        queue: asyncio.Queue[tuple[bool, bytes] | None] = asyncio.Queue(maxsize=256)
        rec.listeners.append(queue)

        async def pump_stdin() -> None:
            assert stdin is not None
            async for chunk in stdin:
                rec.attach_input += chunk

        feeder = asyncio.create_task(pump_stdin()) if stdin is not None else None
        try:
            while (item := await queue.get()) is not None:
                to_stderr, data = item
                await (stderr_write if to_stderr and not tty else stdout_write)(data)
        finally:
            rec.listeners.remove(queue)
            if feeder is not None:
                feeder.cancel()

    def resize(self, container_id: str, width: int, height: int) -> None:
        self.resizes.append((container_id, width, height))

    def port_forward_behaviour(self, pod_sandbox_id: str, port: int) -> PortForwardBehaviour:
        return self.port_behaviours.get((pod_sandbox_id, port), self.default_port_behaviour)
