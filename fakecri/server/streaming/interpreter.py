"""A tiny command interpreter for the in-memory backend.

Understands `true`, `false`, `echo ARGS...`, `cat`, `sleep N`, `exit N` and
`sh -c 'cmd; cmd'`, where a command may end in `>&2` to write to stderr.
Anything else prints "not found" on stderr and exits 127, as a shell would.
"""
from __future__ import annotations

import asyncio
import math
import shlex
from collections.abc import AsyncIterator, Awaitable, Callable

Writer = Callable[[bytes], Awaitable[None]]


class _Exit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


async def run_argv(argv: list[str], stdin: AsyncIterator[bytes] | None,
                   out: Writer, err: Writer) -> int:
    """Run one command line; returns its exit code."""
    try:
        return await _run(list(argv), stdin, out, err)
    except _Exit as ex:
        return ex.code


async def _run(argv: list[str], stdin: AsyncIterator[bytes] | None,
               out: Writer, err: Writer) -> int:
    if argv and argv[-1] == ">&2":
        argv, out = argv[:-1], err
    if not argv:
        return 0
    name, args = argv[0], argv[1:]
    if name in ("sh", "/bin/sh", "bash", "/bin/bash") and args[:1] == ["-c"] and len(args) >= 2:
        code = 0
        for part in args[1].split(";"):
            code = await _run(shlex.split(part), stdin, out, err)
        return code
    if name == "true":
        return 0
    if name == "false":
        return 1
    if name == "exit":
        try:
            code = int(args[0]) % 256 if args else 0
        except ValueError:
            await err(f"sh: exit: {args[0]}: numeric argument required\n".encode())
            code = 2
        raise _Exit(code)
    if name == "echo":
        await out((" ".join(args) + "\n").encode())
        return 0
    if name == "cat":
        if stdin is not None:
            async for chunk in stdin:
                await out(chunk)
        return 0
    if name == "sleep":
        try:
            seconds = float(args[0]) if args else 0.0
        except ValueError:
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds >= 0):  # a NaN timer would wreck the event loop
            await err(f"sleep: invalid time interval '{args[0] if args else ''}'\n".encode())
            return 1
        await asyncio.sleep(seconds)
        return 0
    await err(f"sh: {name}: not found\n".encode())
    return 127
