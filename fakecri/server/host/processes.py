"""Running simulated processes to their end, for ExecSync and for the servers' handlers.

A process of the simulation (fakecri.sim.steps) is stepped here on the server's loop:
time passes through the node's `wait` (a real sleep, or a jump of a fake clock), network
steps go to the real network (`dialer.exchange`), writes are collected. Every run is
bounded: by the exec's timeout, or by `MAX_HANDLER_S` for a handler.
"""
from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Generator
from typing import Any

from fakecri.engine.exits import EXIT_KILLED
from fakecri.server.host.dialer import exchange
from fakecri.sim.behaviour import ExecResult
from fakecri.sim.programs.base import Answer
from fakecri.sim.steps import Connect, NetResult, Process, Read, Reply, Sleep, Step, Write, of_pid1

Wait = Callable[[float], Awaitable[None]]
Dial = Callable[[Connect], Awaitable[NetResult]]  # carries out a network step (`Node.dial`)
MAX_HANDLER_S = 300.0  # a request's handler that would take longer is cut off (its connection dropped)


async def exec_to_end(proc: Process, *, wait: Wait, stdin: bytes = b"", timeout_s: float = 0.0,
                      ended: asyncio.Event | None = None, dial: Dial = exchange,
                      to_log: Callable[[str, str], None] | None = None) -> ExecResult:
    """Run an exec's process to its end; with `timeout_s` > 0, stop it there (`timed_out`),
    as the runtime kills an exec that outlasts its timeout. `ended`: set when the container
    it runs in stops or goes (a session's watch), which kills it: exit 137, with what it
    wrote by then, as containerd answers. `wait` lets simulated time pass, ending early
    once `ended` is set. What it writes to PID 1's output (/proc/1/fd/1) goes to
    `to_log(stream, text)`, the container's log (dropped without one)."""
    loop = asyncio.get_running_loop()
    budget = timeout_s if timeout_s > 0 else math.inf
    spent = 0.0  # seconds of the budget used: simulated sleeps plus real time on the network
    out, err = bytearray(), bytearray()
    fed = False
    reply: Reply = None

    def killed() -> ExecResult | None:
        if ended is None or not ended.is_set():
            return None
        return ExecResult(bytes(out), bytes(err), EXIT_KILLED, spent, False)

    try:
        step = proc.send(None)
        while True:
            reply = None
            if isinstance(step, Write):
                pid1 = of_pid1(step.stream)
                if pid1 is None:
                    (out if step.stream == "stdout" else err).extend(step.text.encode("utf-8", "surrogateescape"))
                elif to_log is not None:
                    to_log(pid1, step.text)
            elif isinstance(step, Sleep):
                want = math.inf if step.ns is None else step.ns / 1e9
                if spent + want > budget:
                    await wait(budget - spent)
                    return killed() or ExecResult(bytes(out), bytes(err), EXIT_KILLED, budget, True)
                if want == math.inf:  # no timeout: it runs until its container ends or the caller goes away
                    await (ended if ended is not None else asyncio.Event()).wait()
                else:
                    await wait(want)
                    spent += want
                if (cut := killed()) is not None:
                    return cut
            elif isinstance(step, Connect):
                started = loop.time()
                left = budget - spent
                reply = await dial(step if left >= step.timeout_s else _shorter(step, left))
                spent += loop.time() - started
                if spent >= budget:
                    return ExecResult(bytes(out), bytes(err), EXIT_KILLED, budget, True)
            elif isinstance(step, Read):
                reply, fed = (stdin if not fed and stdin else None), True
            step = proc.send(reply)
    except StopIteration as done:
        return ExecResult(bytes(out), bytes(err), int(done.value or 0) & 0xFF, spent, False)
    finally:
        proc.close()


def _shorter(step: Connect, left: float) -> Connect:
    return Connect(step.proto, step.host, step.port, step.data, max(0.001, left), step.stop_after, step.source,
                   step.tls)


async def answer(handler: Generator[Step, Reply, Answer], *, wait: Wait,
                 write: Callable[[str, str], None] | None = None, dial: Dial = exchange) -> Answer:
    """Run a server's handler to its answer; what it writes (its log) goes to `write(stream, text)`."""
    async def run() -> Answer:
        reply: Any = None
        try:
            step = handler.send(None)
            while True:
                reply = None
                if isinstance(step, Write):
                    if write is not None:
                        write(of_pid1(step.stream) or step.stream, step.text)
                elif isinstance(step, Sleep):
                    if step.ns is None:
                        await asyncio.Event().wait()
                    else:
                        await wait(step.ns / 1e9)
                elif isinstance(step, Connect):
                    reply = await dial(step)
                step = handler.send(reply)
        except StopIteration as done:
            result: Answer = done.value
            return result
        finally:
            handler.close()

    return await asyncio.wait_for(run(), MAX_HANDLER_S)


__all__ = ["NetResult", "answer", "exec_to_end"]
