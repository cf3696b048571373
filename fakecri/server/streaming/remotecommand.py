"""Kubernetes remote-command semantics shared by the SPDY and WebSocket transports.

A transport supplies stdin as an async iterator, writers for stdout/stderr, and a way to
send the final status; `run_command` drives the backend and returns that status, which
`encode_status` renders for the negotiated protocol version.
"""
from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any

from fakecri.engine.errors import CoreError
from fakecri.server.streaming.backend import StreamingBackend, Writer
from fakecri.server.streaming.prepared import AttachRequest, ExecRequest
from fakecri.server.streaming.tasks import cancel_tasks

V1 = "channel.k8s.io"
V2 = "v2.channel.k8s.io"
V3 = "v3.channel.k8s.io"
V4 = "v4.channel.k8s.io"
V5 = "v5.channel.k8s.io"

# SPDY versions the server accepts, newest first.
SPDY_VERSIONS = (V4, V3, V2, V1)

Status = dict[str, Any]


@dataclass(frozen=True)
class TerminalSize:
    width: int
    height: int


def parse_terminal_size(data: bytes) -> TerminalSize:
    """Decode one resize message: JSON with `Width` and `Height` (uint16)."""
    obj = json.loads(data)
    if not isinstance(obj, dict):
        raise ValueError("resize message is not a JSON object")
    width, height = obj.get("Width", 0), obj.get("Height", 0)
    if not all(isinstance(v, int) and 0 <= v <= 0xFFFF for v in (width, height)):
        raise ValueError(f"bad terminal size: {obj!r}")
    return TerminalSize(width, height)


def split_resize_messages(buffer: bytearray) -> list[bytes]:
    """Pop complete JSON objects from a resize byte stream (SPDY sends them back to back)."""
    decoder = json.JSONDecoder()
    text = buffer.decode("ascii", errors="replace")  # one character per byte
    out: list[bytes] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        try:
            _, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        out.append(bytes(buffer[pos:end]))
        pos = end
    del buffer[:pos]
    return out


def success_status() -> Status:
    return {"metadata": {}, "status": "Success"}


def exit_code_status(code: int, argv: list[str] | tuple[str, ...]) -> Status:
    return {
        "metadata": {},
        "status": "Failure",
        "message": (f"command terminated with non-zero exit code: error executing command "
                    f"[{' '.join(argv)}], exit code {code}"),
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
    }


def internal_error_status(message: str) -> Status:
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"Internal error occurred: {message}",
        "reason": "InternalError",
        "details": {"causes": [{"message": message}]},
        "code": 500,
    }


def encode_status(version: str, status: Status) -> bytes | None:
    """v4 and v5 send the JSON Status; older versions send only a failure's message text."""
    if version in (V4, V5):
        return json.dumps(status, separators=(",", ":")).encode()
    if status.get("status") == "Success":
        return None
    return str(status.get("message", "")).encode()


def apply_resize(backend: StreamingBackend, container_id: str, message: bytes) -> bool:
    """Parse one resize message and pass it on; False if it was malformed."""
    try:
        size = parse_terminal_size(message)
    except ValueError:
        return False
    backend.resize(container_id, size.width, size.height)
    return True


async def _discard(_: bytes) -> None:
    return None


async def run_command(backend: StreamingBackend, request: ExecRequest | AttachRequest, *,
                      stdin: AsyncIterable[bytes] | None, stdout_write: Writer | None,
                      stderr_write: Writer | None) -> Status:
    """Run an exec or attach to completion and return the final status to report."""
    out = stdout_write or _discard
    err = out if request.tty else (stderr_write or _discard)
    try:
        if isinstance(request, ExecRequest):
            code = await backend.exec(request.container_id, list(request.cmd), tty=request.tty,
                                      stdin=stdin, stdout_write=out, stderr_write=err)
            return success_status() if code == 0 else exit_code_status(code, request.cmd)
        await backend.attach(request.container_id, tty=request.tty, stdin=stdin,
                             stdout_write=out, stderr_write=err)
        return success_status()
    except CoreError as exc:
        verb = "executing command in" if isinstance(request, ExecRequest) else "attaching to"
        return internal_error_status(f"error {verb} container: {exc.message}")


class StdinPipe:
    """A byte queue from a transport's reader to the backend's stdin iterator, bounded in
    bytes: input is handed on in pieces of at most `piece` bytes, and `feed` waits while
    `max_bytes` are queued, so a command that does not read holds its client back."""

    def __init__(self, max_bytes: int = 128 * 1024, piece: int = 8 * 1024) -> None:
        self._piece = piece
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=max(1, max_bytes // piece))
        self._closed = False
        self.buffered = 0  # bytes fed and not yet read

    def would_wait(self, n: int) -> bool:
        """True when feeding `n` more bytes would wait for the reader."""
        return self._queue.qsize() + -(-n // self._piece) > self._queue.maxsize

    async def feed(self, data: bytes) -> None:
        view = memoryview(data)
        for start in range(0, len(view), self._piece):
            if self._closed:
                return
            piece = bytes(view[start:start + self._piece])
            await self._queue.put(piece)
            self.buffered += len(piece)

    async def finish(self) -> None:
        """End of input, after everything fed so far."""
        if not self._closed:
            self._closed = True
            await self._queue.put(None)

    def abort(self) -> None:
        """End of input now: drop what is queued and release a blocked feeder."""
        self._closed = True
        while not self._queue.empty():
            self._queue.get_nowait()
        self.buffered = 0
        self._queue.put_nowait(None)

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[bytes]:
        while (chunk := await self._queue.get()) is not None:
            self.buffered -= len(chunk)
            yield chunk


async def stop_command(pipe: StdinPipe | None, *tasks: asyncio.Task[Any] | None) -> None:
    """End a command's session on our side: no more stdin, and the command and the
    transport's own tasks cancelled (those already done are left as they are)."""
    if pipe is not None:
        pipe.abort()
    await cancel_tasks(*tasks)
