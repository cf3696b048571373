"""The streaming server's backend over a node's runtime and container simulation.

Exec runs the command as a live process of the simulation's shell interpreter: each step it
takes (write, sleep, read input) happens as the client's stream goes, so a shell
answers line by line and a command that does not read its input ends without waiting
for it. Under a TTY this module also plays the terminal: it echoes keys, edits the
line, turns Ctrl-D into the end of input and Ctrl-C into an interrupt. Attach follows
what the container writes and, when the container was created with stdin, feeds the
client's input to its command. Port-forward answers as the sandbox's
`fakecri.io/port-forward` annotation says (echo by default).

Every wait here ends when the client goes away (the transport cancels the task), when
its input ends, or when the container stops: exec and attach hold a `Watch` on their
container, which the node ends at the container's STOPPED or DELETED event (an exec'd
process is killed then, exit status 137, as its container's processes are).
"""
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, Callable
from typing import TYPE_CHECKING, Any

from fakecri.engine import errors
from fakecri.engine.exits import EXIT_KILLED
from fakecri.engine.records import Output, SandboxState
from fakecri.server.host import webserver
from fakecri.server.host.dialer import exchange
from fakecri.server.host.processes import Dial
from fakecri.server.node.sessions import Watch, ended
from fakecri.server.streaming.annotations import PORT_FORWARD_ANNOTATION, parse_port_forward_annotation
from fakecri.server.streaming.backend import PortForwardBehaviour, Respond, Writer
from fakecri.server.streaming.streaming_node import StreamingNode
from fakecri.server.streaming.tasks import cancel_tasks
from fakecri.sim.programs.base import HTTP
from fakecri.sim.shell import DEFAULT_SIZE, Connect, Context, Interrupted, Process, Sleep, Trap, Write
from fakecri.sim.steps import of_pid1

if TYPE_CHECKING:
    from fakecri.server.streaming.server import StreamingServer

ATTACH_BUFFER = 1000
INPUT_BUFFER = 64  # chunks of client input held for a process that is not reading yet
MAX_CANON = 4095  # longest line a terminal in canonical mode holds (Linux's N_TTY)
_INTERRUPT = object()  # Ctrl-C typed on the terminal


class Terminal:
    """The line discipline of a terminal in canonical mode with echo, as a shell gets it.

    `keys` takes what the client typed and returns what to echo back and what the
    process reads: whole lines, None for Ctrl-D on an empty line (end of input), and
    an interrupt marker for Ctrl-C.
    """

    def __init__(self) -> None:
        self.line = bytearray()

    def keys(self, data: bytes) -> tuple[bytes, list[object]]:
        echo = bytearray()
        out: list[object] = []
        for byte in data:
            if byte in (0x0D, 0x0A):  # Enter
                echo += b"\r\n"
                out.append(bytes(self.line) + b"\n")
                self.line.clear()
            elif byte in (0x7F, 0x08):  # Backspace
                if self.line:
                    self.line.pop()
                    echo += b"\b \b"
            elif byte == 0x04:  # Ctrl-D: hand over the line so far; on an empty line, the end
                out.append(bytes(self.line) if self.line else None)
                self.line.clear()
            elif byte == 0x03:  # Ctrl-C
                echo += b"^C\r\n"
                self.line.clear()
                out.append(_INTERRUPT)
            elif byte == 0x15:  # Ctrl-U: erase the line
                echo += b"\b \b" * len(self.line)
                self.line.clear()
            elif (byte >= 0x20 or byte == 0x09) and len(self.line) < MAX_CANON:  # Linux drops the rest
                self.line.append(byte)
                echo.append(byte)
        return bytes(echo), out


async def drive(proc: Process, *, stdin: AsyncIterable[bytes] | None, stdout_write: Writer,
                stderr_write: Writer, tty: bool, wait: Any, dial: Dial = exchange,
                to_log: Callable[[str, str], None] | None = None) -> int:
    """Run a shell process live over a client's streams; returns its exit code. What it writes to
    PID 1's output goes to `to_log` (the container's log; dropped without one)."""
    inbox: asyncio.Queue[object] = asyncio.Queue(INPUT_BUFFER)
    interrupts = asyncio.Event()

    def encode(text: str) -> bytes:
        return (text.replace("\n", "\r\n") if tty else text).encode("utf-8", "surrogateescape")

    async def pump() -> None:
        terminal = Terminal() if tty else None
        try:
            assert stdin is not None
            async for chunk in stdin:
                if terminal is None:
                    await inbox.put(chunk)
                    continue
                echo, items = terminal.keys(chunk)
                if echo:
                    await stdout_write(echo)
                for item in items:
                    if item is _INTERRUPT:
                        interrupts.set()
                    await inbox.put(item)
        finally:
            with contextlib.suppress(asyncio.QueueFull):
                inbox.put_nowait(None)  # the end of input

    feeder = asyncio.ensure_future(pump()) if stdin is not None else None
    ended = False

    async def next_input() -> object:
        nonlocal ended
        if feeder is None or ended:
            return None
        item = await inbox.get()
        if item is None:
            ended = True
        elif item is _INTERRUPT:
            interrupts.clear()
        return item

    async def pause(ns: int | None) -> bool:
        """Sleep `ns` (None: until cancelled); True when a Ctrl-C cut it short."""
        sleeper = asyncio.ensure_future(wait(ns / 1e9) if ns is not None else asyncio.Event().wait())
        watcher = asyncio.ensure_future(interrupts.wait())
        try:
            await asyncio.wait({sleeper, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            watcher.cancel()
        return watcher.done() and not watcher.cancelled()

    try:
        step = proc.send(None)
        while True:
            reply: bytes | None = None
            if isinstance(step, Write):
                pid1 = of_pid1(step.stream)
                if pid1 is None:
                    await (stdout_write if step.stream == "stdout" else stderr_write)(encode(step.text))
                elif to_log is not None:
                    to_log(pid1, step.text)
            elif isinstance(step, Sleep):
                if await pause(step.ns):
                    while (await next_input()) not in (_INTERRUPT, None):
                        pass  # what was typed before Ctrl-C is dropped with the command
                    step = proc.throw(Interrupted())
                    continue
            elif isinstance(step, Connect):
                reply = await dial(step)  # type: ignore[assignment]
            elif isinstance(step, Trap):
                pass
            else:
                item = await next_input()
                if item is _INTERRUPT:
                    step = proc.throw(Interrupted())
                    continue
                reply = item  # type: ignore[assignment]
            step = proc.send(reply)
    except StopIteration as done:
        return int(done.value or 0) & 0xFF
    except Interrupted:
        return 130  # 128 + SIGINT, as a shell reports a command killed by Ctrl-C
    finally:
        proc.close()
        if feeder is not None:
            feeder.cancel()


class RuntimeStreamingBackend:
    def __init__(self, node: StreamingNode) -> None:
        self.node = node  # its methods: time, waits, the network, applying what a program decided
        self.runtime, self.sim, self.sessions = node.runtime, node.sim, node.sessions
        self._sizes: dict[str, tuple[int, int]] = {}  # container id -> (columns, rows) of its terminal
        self._attached: dict[str, int] = {}

    # ------------------------------------------------------------ checks at URL time

    def check_exec(self, container_id: str) -> None:
        self.runtime.check_exec(container_id)

    def check_attach(self, container_id: str) -> None:
        self.runtime.check_exec(container_id, "attach")

    def check_port_forward(self, pod_sandbox_id: str) -> None:
        self.runtime.check_port_forward(pod_sandbox_id)

    # ------------------------------------------------------------ exec

    def terminal_size(self, container_id: str) -> tuple[int, int]:
        """(columns, rows) the client last reported for its terminal on this container."""
        return self._sizes.get(container_id, DEFAULT_SIZE)

    async def exec(self, container_id: str, argv: list[str], *, tty: bool, stdin: AsyncIterable[bytes] | None,
                   stdout_write: Writer, stderr_write: Writer) -> int:
        c = self.runtime.check_exec(container_id)
        cid = c.id
        ctx = Context(tty=tty, size=lambda: self._sizes.get(container_id, self._sizes.get(cid, DEFAULT_SIZE)))
        proc = self.sim.exec_process(c, list(argv), self.node.now_ns(), ctx)
        with self.sessions.watch(cid) as watch:
            running = asyncio.ensure_future(drive(proc, stdin=stdin, stdout_write=stdout_write,
                                                  stderr_write=stderr_write, tty=tty, wait=self.node.wait,
                                                  dial=self.node.dial, to_log=self.node.pid1_log(c)))
            stopped = asyncio.ensure_future(watch.ended.wait())
            try:
                await asyncio.wait({running, stopped}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                await cancel_tasks(stopped, *([] if running.done() else [running]))
            if running.done() and not running.cancelled():
                return running.result()
            return EXIT_KILLED  # the container stopped, and its processes were killed with it

    def resize(self, container_id: str, width: int, height: int) -> None:
        self.node.count("tty_resizes")
        self._sizes[container_id] = (width, height)

    # ------------------------------------------------------------ attach

    def attached_count(self, container_id: str) -> int:
        """How many clients are attached to the container now."""
        return self._attached.get(container_id, 0)

    async def attach(self, container_id: str, *, tty: bool, stdin: AsyncIterable[bytes] | None, stdout_write: Writer,
                     stderr_write: Writer) -> None:
        c = self.runtime.check_exec(container_id, "attach")
        target = c.id
        spec = c.spec
        queue: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(ATTACH_BUFFER)

        def listener(out: Output) -> None:
            if out.container_id == target and not queue.full():  # a slow client loses output, never blocks
                queue.put_nowait((out.stream, out.text.encode("utf-8", "surrogateescape")))

        async def feed() -> None:
            assert stdin is not None
            async for chunk in stdin:
                self._feed(target, chunk)
            if spec.stdin_once:
                self._feed(target, None)  # the first attach's input was the container's whole input

        self.node.hear_output(listener)
        self._attached[container_id] = self._attached.get(container_id, 0) + 1
        watch = self.sessions.watch(target)
        stopped = asyncio.ensure_future(watch.ended.wait())
        feeder = None
        if stdin is not None:
            feeder = asyncio.ensure_future(feed() if spec.stdin else _discard(stdin))
        try:
            # As in containerd, the attach lasts until the container's output ends (it exits)
            # or the client goes away; the end of the client's input does not end it.
            while not stopped.done():
                getting = asyncio.ensure_future(queue.get())
                await asyncio.wait({getting, stopped}, return_when=asyncio.FIRST_COMPLETED)
                if not getting.done():
                    await cancel_tasks(getting)
                    break
                await self._write_out(getting.result(), stdout_write, stderr_write)
            while not queue.empty():  # what it wrote before it stopped
                await self._write_out(queue.get_nowait(), stdout_write, stderr_write)
        finally:
            watch.close()
            await cancel_tasks(stopped)
            self.node.stop_hearing_output(listener)
            self._attached[container_id] -= 1
            if feeder is not None:
                feeder.cancel()

    @staticmethod
    async def _write_out(item: tuple[str, bytes], stdout_write: Writer, stderr_write: Writer) -> None:
        stream, data = item
        await (stderr_write if stream == "stderr" else stdout_write)(data)

    def _feed(self, container_id: str, data: bytes | None) -> None:
        node = self.node
        try:
            c = self.runtime.check_exec(container_id)  # only a running container takes input
        except errors.CoreError:
            return  # it stopped meanwhile: the attach ends on its own
        # Applied and committed: an exit it caused published, the timers of what it started armed
        # (a state write that failed is undone, and logged).
        with contextlib.suppress(errors.CoreError):
            node.apply(self.sim.feed_input(c, data, node.now_ns()))

    # ------------------------------------------------------------ port forward

    def watch_pod(self, pod_sandbox_id: str) -> Watch:
        """What a port-forward session waits on: the pod stopping (ended already if it has)."""
        try:
            sb = self.runtime.get_sandbox(pod_sandbox_id)
        except errors.NotFound:
            return ended(pod_sandbox_id, self.node.now_ns(), f"pod sandbox {pod_sandbox_id[:12]} was removed")
        if sb.state != SandboxState.READY:
            return ended(sb.id, self.node.now_ns(), f"pod sandbox {sb.id[:12]} stopped")
        return self.sessions.watch(sb.id)

    def _responder(self, cid: str, port: int) -> Respond:
        node = self.node

        async def respond(request: bytes, write: Writer) -> None:
            await webserver.respond(node, cid, port, request, write)
        return respond

    def port_forward_behaviour(self, pod_sandbox_id: str, port: int) -> PortForwardBehaviour:
        sb = self.runtime.get_sandbox(pod_sandbox_id)
        key = f"{PORT_FORWARD_ANNOTATION}.{port}"
        if key not in sb.annotations:
            key = PORT_FORWARD_ANNOTATION
        if key in sb.annotations:
            return parse_port_forward_annotation(sb.annotations[key], key)
        node = self.node
        for c in self.runtime.list_containers(sandbox_id=sb.id):  # the pod's own server on that port answers
            listens = [lis for lis in node.listeners_of(c) if lis.port == port and lis.proto == "tcp"]
            if not listens:
                continue
            for host, bound in node.bound_ports(c.id):
                if bound == port and host == sb.ip:
                    return PortForwardBehaviour.proxy(host, port)  # its real listener on the pod IP
            if listens[0].kind == HTTP and not listens[0].tls:  # no listener there: it answers as one would
                return PortForwardBehaviour.web(self._responder(c.id, port))
        return PortForwardBehaviour.echo()


async def _discard(stdin: AsyncIterable[bytes]) -> None:
    """The container was created without stdin: its input goes nowhere; consume it so the client can send."""
    async for _ in stdin:
        pass


class StreamingUrls:
    """What the Exec/Attach/PortForward RPCs call: a single-use URL on the streaming server."""

    def __init__(self, server: StreamingServer) -> None:
        self.server = server

    def url_for(self, kind: str, request: Any) -> str:
        if kind == "exec":
            if not request.cmd:
                raise errors.InvalidArgument(f"Exec in container {request.container_id}: cmd is empty")
            return self.server.prepare_exec(request.container_id, list(request.cmd), tty=request.tty,
                                            stdin=request.stdin, stdout=request.stdout, stderr=request.stderr)
        if kind == "attach":
            return self.server.prepare_attach(request.container_id, tty=request.tty, stdin=request.stdin,
                                              stdout=request.stdout, stderr=request.stderr)
        return self.server.prepare_port_forward(request.pod_sandbox_id, list(request.port))
