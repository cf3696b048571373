"""Exec, attach and port-forward over an upgraded SPDY connection.

Remote command: the client opens one stream per channel, named by its `streamtype`
header (error, stdin, stdout, stderr, resize). Port forward: for each connection the
client opens an `error` and a `data` stream that share `port` and `requestID` headers.
"""
from __future__ import annotations

import asyncio
from typing import Any

from fakecri.server.streaming import remotecommand as rc
from fakecri.server.streaming.backend import StreamingBackend
from fakecri.server.streaming.limits import ByteMeter, StreamingLimits
from fakecri.server.streaming.portforward import forward, parse_port
from fakecri.server.streaming.prepared import AttachRequest, ExecRequest, PortForwardRequest
from fakecri.server.streaming.spdy_connection import SpdyConnection, SpdyStream
from fakecri.server.streaming.tasks import cancel_tasks

COMMAND_STREAM_TYPES = ("error", "stdin", "stdout", "stderr", "resize")
CLOSE_GRACE_S = 2.0  # how long the peer gets to hang up after our GOAWAY


async def serve_command(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        backend: StreamingBackend, request: ExecRequest | AttachRequest,
                        version: str, *, creation_timeout_s: float,
                        idle_timeout_s: float | None, limits: StreamingLimits = StreamingLimits(),
                        meter: ByteMeter | None = None) -> None:
    """Run one exec or attach for a client that speaks remote-command over SPDY."""
    arrived: dict[str, SpdyStream] = {}
    changed = asyncio.Event()
    side_tasks: list[asyncio.Task[Any]] = []

    async def read_resizes(stream: SpdyStream) -> None:
        buffer = bytearray()
        async for chunk in stream.chunks():
            buffer += chunk
            for message in rc.split_resize_messages(buffer):
                rc.apply_resize(backend, request.container_id, message)
            if len(buffer) > 4096:  # garbage that never parses
                buffer.clear()

    def on_stream(stream: SpdyStream) -> bool:
        kind = stream.header("streamtype")
        if kind not in COMMAND_STREAM_TYPES or kind in arrived:
            return False
        arrived[kind] = stream
        if kind == "resize":
            side_tasks.append(asyncio.create_task(read_resizes(stream)))
        changed.set()
        return True

    conn = SpdyConnection(reader, writer, on_stream=on_stream, idle_timeout_s=idle_timeout_s,
                          limits=limits, meter=meter)
    reader_task = asyncio.create_task(conn.run())
    needed = {"error"}
    if request.stdin:
        needed.add("stdin")
    if request.stdout:
        needed.add("stdout")
    if request.stderr and not request.tty:
        needed.add("stderr")
    if request.tty and version in (rc.V3, rc.V4):
        # From v3 on a TTY client always opens a resize stream; it must be answered before the
        # command may end, or the client waits out its stream-creation timeout for the reply.
        needed.add("resize")
    pipe: rc.StdinPipe | None = None
    command: asyncio.Task[Any] | None = None
    grace_s = CLOSE_GRACE_S
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + creation_timeout_s
        while not needed <= arrived.keys() and not conn.closed.is_set():
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            changed.clear()
            waiter = asyncio.create_task(changed.wait())
            closed = asyncio.create_task(conn.closed.wait())
            await asyncio.wait({waiter, closed}, timeout=remaining,
                               return_when=asyncio.FIRST_COMPLETED)
            await cancel_tasks(waiter, closed)
        if conn.closed.is_set():
            return
        if not needed <= arrived.keys():
            missing = ", ".join(sorted(needed - arrived.keys()))
            if "error" in arrived:
                status = rc.internal_error_status(f"timed out waiting for streams: {missing}")
                body = rc.encode_status(version, status)
                if body:
                    await arrived["error"].write(body)
            return

        if "stdin" in arrived and request.stdin:
            pipe = rc.StdinPipe(limits.stdin_buffer, limits.stdin_piece)
            stdin_stream, stdin_pipe = arrived["stdin"], pipe

            async def pump() -> None:
                async for chunk in stdin_stream.chunks():
                    await stdin_pipe.feed(chunk)
                await stdin_pipe.finish()

            side_tasks.append(asyncio.create_task(pump()))
        elif "stdin" in arrived:
            arrived["stdin"].discard_input()
        out = arrived["stdout"].write if "stdout" in arrived else None
        err = arrived["stderr"].write if "stderr" in arrived else None
        command = asyncio.create_task(rc.run_command(backend, request, stdin=pipe,
                                                     stdout_write=out, stderr_write=err))
        await asyncio.wait({command, reader_task}, return_when=asyncio.FIRST_COMPLETED)
        if not command.done() or conn.closed.is_set():
            return  # the client went away: stop the command
        body = rc.encode_status(version, command.result())
        if body:
            await arrived["error"].write(body)
    except asyncio.CancelledError:
        grace_s = 0.0  # the server is stopping: do not linger
        raise
    finally:
        await rc.stop_command(pipe, command, *side_tasks)
        await conn.shutdown(grace_s)
        await cancel_tasks(reader_task)


async def serve_port_forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                             backend: StreamingBackend, request: PortForwardRequest, *,
                             creation_timeout_s: float, idle_timeout_s: float | None,
                             limits: StreamingLimits = StreamingLimits(),
                             meter: ByteMeter | None = None) -> None:
    """Serve forwarded connections until the client closes the SPDY connection."""
    pending: dict[str, dict[str, SpdyStream]] = {}
    timers: dict[str, asyncio.Task[Any]] = {}
    tasks: set[asyncio.Task[Any]] = set()
    conn: SpdyConnection

    def spawn(coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        return task

    async def serve_pair(port: int, data: SpdyStream, error: SpdyStream) -> None:
        error.discard_input()  # clients send nothing on the error stream
        try:
            message = await forward(backend, request, port, data.read, data.write)
            if message:
                await error.write(message.encode())
            await data.close()
            await error.close()
        finally:
            conn.forget(data)
            conn.forget(error)

    async def expire(request_id: str) -> None:
        await asyncio.sleep(creation_timeout_s)
        timers.pop(request_id, None)
        half = pending.pop(request_id, None)
        for stream in (half or {}).values():
            if stream.header("streamtype") == "error":
                await stream.write(b"timed out waiting for the paired stream")
                await stream.close()
            else:
                stream.reset()
            conn.forget(stream)

    def on_stream(stream: SpdyStream) -> bool:
        kind = stream.header("streamtype")
        if kind not in ("data", "error"):
            return False
        try:
            port = parse_port(stream.header("port"))
        except ValueError:
            return False
        request_id = stream.header("requestID")
        if not request_id:
            # Very old clients: the error stream comes first and pairs with the next one.
            request_id = str(stream.id if kind == "error" else stream.id - 2)
        pair = pending.setdefault(request_id, {})
        if kind in pair:
            return False
        pair[kind] = stream
        if len(pair) == 1:
            timers[request_id] = spawn(expire(request_id))
        else:
            del pending[request_id]
            timer = timers.pop(request_id, None)
            if timer is not None:
                timer.cancel()
            spawn(serve_pair(port, pair["data"], pair["error"]))
        return True

    conn = SpdyConnection(reader, writer, on_stream=on_stream, idle_timeout_s=idle_timeout_s,
                          limits=limits, meter=meter)
    try:
        await conn.run()
    finally:
        await cancel_tasks(*tasks)
        await conn.shutdown(grace_s=0.0)
