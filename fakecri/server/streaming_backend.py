"""The streaming server's backend over the core runtime: exec runs the container
interpreter, attach follows what the container writes to its log, port-forward answers
as the sandbox's `fakecri.io/port-forward` annotation says (echo by default)."""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from fakecri.core import errors
from fakecri.core.records import ContainerState, SandboxState
from fakecri.server.streaming import PortForwardBehaviour

if TYPE_CHECKING:
    from fakecri.server.state import ServerState

STDIN_LIMIT = 16 * 1024 * 1024
ATTACH_BUFFER = 1000
PORT_FORWARD_ANNOTATION = "fakecri.io/port-forward"


def parse_port_behaviour(value: str) -> PortForwardBehaviour:
    """`echo`, `refuse[:message]` or `http[:status[:body]]`."""
    kind, _, rest = value.strip().partition(":")
    if kind == "echo":
        return PortForwardBehaviour.echo()
    if kind == "refuse":
        return PortForwardBehaviour.refuse(rest or "connection refused")
    if kind == "http":
        status_text, _, body = rest.partition(":")
        try:
            status = int(status_text or 200)
        except ValueError:
            raise errors.InvalidArgument(f"{PORT_FORWARD_ANNOTATION}: bad HTTP status {status_text!r}") from None
        return PortForwardBehaviour.http(status, (body or "ok\n").encode())
    raise errors.InvalidArgument(
        f"{PORT_FORWARD_ANNOTATION}: {value!r} is not echo, refuse[:message] or http[:status[:body]]")


class RuntimeStreamingBackend:
    def __init__(self, state: ServerState) -> None:
        self.st = state

    def _running(self, container_id: str):
        c = self.st.runtime.get_container(container_id)
        if c.state != ContainerState.RUNNING:
            raise errors.FailedPrecondition(
                f"container {c.id[:12]} is {ContainerState(c.state).name}, not RUNNING")
        return c

    def check_exec(self, container_id: str) -> None:
        self._running(container_id)

    def check_attach(self, container_id: str) -> None:
        self._running(container_id)

    def check_port_forward(self, pod_sandbox_id: str) -> None:
        sb = self.st.runtime.get_sandbox(pod_sandbox_id)
        if sb.state != SandboxState.READY:
            raise errors.FailedPrecondition(f"pod sandbox {sb.id[:12]} is not ready")

    async def exec(self, container_id, argv, *, tty, stdin: AsyncIterator[bytes] | None, stdout_write,
                   stderr_write) -> int:
        self._running(container_id)
        data = bytearray()
        if stdin is not None:
            # The interpreter takes its input whole, so read it to the end first.
            async for chunk in stdin:
                data += chunk
                if len(data) > STDIN_LIMIT:
                    raise errors.ResourceExhausted(f"exec stdin is larger than {STDIN_LIMIT} bytes")
        result = self.st.runtime.exec_sync(container_id, list(argv), 0.0, bytes(data))
        await self.st.wait(result.duration_s)
        if result.stdout:
            await stdout_write(result.stdout)
        if result.stderr:
            await stderr_write(result.stderr)
        return result.exit_code

    async def attach(self, container_id, *, tty, stdin, stdout_write, stderr_write) -> None:
        c = self._running(container_id)
        queue: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(ATTACH_BUFFER)
        target = c.id

        def listener(container_id: str, stream: str, text: str, ts_ns: int) -> None:
            if container_id == target and not queue.full():  # a slow client loses output, never blocks
                queue.put_nowait((stream, (text if text.endswith("\n") else text + "\n").encode()))

        listeners = self.st.runtime.output_listeners
        listeners.append(listener)
        drain = asyncio.ensure_future(_discard(stdin)) if stdin is not None else None
        try:
            while True:
                try:
                    stream, data = await asyncio.wait_for(queue.get(), 0.2)
                except asyncio.TimeoutError:
                    try:
                        if self.st.runtime.get_container(container_id).state == ContainerState.RUNNING:
                            continue
                    except errors.NotFound:
                        pass
                    return
                await (stderr_write if stream == "stderr" else stdout_write)(data)
        finally:
            if listener in listeners:
                listeners.remove(listener)
            if drain is not None:
                drain.cancel()

    def resize(self, container_id: str, width: int, height: int) -> None:
        self.st.count("tty_resizes")

    def port_forward_behaviour(self, pod_sandbox_id: str, port: int) -> PortForwardBehaviour:
        sb = self.st.runtime.get_sandbox(pod_sandbox_id)
        value = sb.annotations.get(f"{PORT_FORWARD_ANNOTATION}.{port}") or sb.annotations.get(PORT_FORWARD_ANNOTATION)
        return parse_port_behaviour(value) if value else PortForwardBehaviour.echo()


async def _discard(stdin: AsyncIterator[bytes]) -> None:
    """Attach input has nowhere to go (no process reads it); consume it so the client can send."""
    async for _ in stdin:
        pass


class StreamingUrls:
    """What the Exec/Attach/PortForward RPCs call: a single-use URL on the streaming server."""

    def __init__(self, server) -> None:
        self.server = server

    def url_for(self, kind: str, request) -> str:
        if kind == "exec":
            if not request.cmd:
                raise errors.InvalidArgument(f"Exec in container {request.container_id}: cmd is empty")
            return self.server.prepare_exec(request.container_id, list(request.cmd), tty=request.tty,
                                            stdin=request.stdin, stdout=request.stdout, stderr=request.stderr)
        if kind == "attach":
            return self.server.prepare_attach(request.container_id, tty=request.tty, stdin=request.stdin,
                                              stdout=request.stdout, stderr=request.stderr)
        return self.server.prepare_port_forward(request.pod_sandbox_id, list(request.port))
