"""The applets that run another command, as busybox 1.35's: `xargs` (-n -I -0 -t -r -s? no),
`timeout [-s SIG] [-k S] SECS PROG...` (the program, a process of its own, gets the signal
after SECS of its simulated time: it dies of it, 143 for TERM, 137 for KILL, unless it is a
shell that traps it; `-k`: KILL that much later), `env [-i] [-u NAME] [NAME=VALUE]... [PROG...]`,
`nice [-n N] [PROG...]` (the priority itself is not modelled: nothing in the simulation
depends on it), `nohup PROG...` (not on a terminal; on one, not modelled), `usleep N`.

Each runs its program through the shell's `run_argv`, so a program is what it is anywhere.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from fakecri.sim.applets.common import BadUsage, decode, not_modelled, options, read_stdin, usage_error
from fakecri.sim.shell import Command, Input, Io, Process, Sleep, run_argv, sleep_ns
from fakecri.sim.shell.io import KILLED, Inbox
from fakecri.sim.shell.jobs import schedule
from fakecri.sim.steps import Delivered

_SIGNALS = {"TERM": 15, "KILL": 9, "INT": 2, "HUP": 1, "QUIT": 3, "USR1": 10, "USR2": 12, "ALRM": 14}
_NAMES = {n: name for name, n in _SIGNALS.items()}


def _words(text: str) -> list[str] | str:
    """xargs's words: blanks split them, quotes and backslashes keep them whole; or the complaint."""
    out: list[str] = []
    word: list[str] = []
    inword = False
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        i += 1
        if quote:
            if c == quote:
                quote = ""
            elif c == "\n":
                return f"unmatched {'double' if quote == chr(34) else 'single'} quote"
            else:
                word.append(c)
        elif c in "'\"":
            quote, inword = c, True
        elif c == "\\" and i < len(text):
            word.append(text[i])
            i += 1
            inword = True
        elif c in " \t\n":
            if inword:
                out.append("".join(word))
            word, inword = [], False
        else:
            word.append(c)
            inword = True
    if quote:
        return f"unmatched {'double' if quote == chr(34) else 'single'} quote"
    if inword:
        out.append("".join(word))
    return out


def xargs(args: list[str], io: Io) -> Process:
    o = yield from options(io, "xargs", args, "n:I:0trs:xpE:e::a:P:", "[OPTIONS] [PROG ARGS]", permute=False)
    if isinstance(o, int):
        return o
    for ch in "pa":
        if o.has(ch):
            return (yield from not_modelled(io, "xargs", f"-{ch}"))
    data = decode((yield from read_stdin(io)))
    if o.has("0"):
        items: list[str] | str = data.split("\0")[:-1] if data.endswith("\0") else data.split("\0") if data else []
    elif o.has("I"):
        items = [line for line in data.split("\n") if line.strip()]
    else:
        items = _words(data)
    if isinstance(items, str):
        yield from io.error(f"xargs: {items}\n")
        return 1
    eof = o.last("E") if o.has("E") else o.last("e") if o.has("e") else None
    if eof and not o.has("0") and not o.has("I") and eof in items:  # -E STR / -eSTR: input ends at that word
        items = items[:items.index(eof)]
    command = o.operands or ["echo"]
    per = o.last("n")
    for given in (per, o.last("s")):
        if given is not None and not (given.isdigit() and int(given) > 0):
            yield from io.error(f"xargs: invalid number '{given}'\n")
            return 1
    # busybox's room for arguments: -s N (else 32 KiB less 2048) less the command's own words
    room = (int(o.last("s") or 0) or 32 * 1024 - 2048) - sum(len(w) + 1 for w in command)
    if room <= 0:
        yield from io.error("xargs: can't fit single argument within argument list size limit\n")
        return 1
    batches: list[list[str]]
    if o.has("I"):
        mark = o.last("I") or "{}"
        batches = [[w.replace(mark, item) for w in command] for item in items]
    else:
        n = int(per) if per else max(len(items), 1)
        chunks: list[list[str]] = []
        used = room + 1
        for item in items:  # each argument takes its length and a NUL of the room; -n N at most N of them
            if used + len(item) + 1 > room or len(chunks[-1]) >= n:
                chunks.append([])
                used = 0
            chunks[-1].append(item)
            used += len(item) + 1
        chunks = chunks or ([[]] if not o.has("r") else [])
        batches = [command + chunk for chunk in chunks]
    status = 0
    child = replace(io, stdin=Input(empty=True), exec_by="xargs")
    for argv in batches:
        if not o.has("I") and len(argv) == len(command) + 1 and len(argv[-1]) + 1 > room:
            yield from io.error("xargs: argument line too long\n")  # (one that does not fit alone)
            return 1
        if o.has("t"):
            yield from io.error(" ".join(argv) + "\n")
        code = yield from run_argv(argv, child)
        if code in (126, 127):
            return code
        if code == 255:
            yield from io.error(f"xargs: {argv[0]}: exited with status 255; aborting\n")
            return 124
        if code & KILLED:
            yield from io.error(f"xargs: '{argv[0]}' terminated by signal {(code & 0xFF) - 128}\n")
            return 125
        if code:
            status = 123
    return status


def _seconds(text: str) -> int | None:
    try:
        ns = sleep_ns([text])
    except ValueError:
        return None
    return -1 if ns is None else ns


def timeout(args: list[str], io: Io) -> Process:
    synopsis = "[-s SIG] [-k KILL_SECS] SECS PROG ARGS"
    o = yield from options(io, "timeout", args, "s:k:t:", synopsis, permute=False)
    if isinstance(o, int):
        return o
    if len(o.operands) < 2:
        return (yield from usage_error(io, "timeout", synopsis, BadUsage("")))
    sig_name = (o.last("s") or "TERM").upper().removeprefix("SIG")
    sig = int(sig_name) if sig_name.isdigit() else _SIGNALS.get(sig_name)
    if sig is None:
        yield from io.error(f"timeout: bad signal name '{o.last('s')}'\n")
        return 1
    limit = _seconds(o.operands[0])
    if limit is None:
        yield from io.error(f"timeout: invalid number '{o.operands[0]}'\n")
        return 1
    if limit <= 0:  # 0 or forever: no time limit
        return (yield from run_argv(o.operands[1:], replace(io, exec_by="timeout")))
    k = o.last("k")
    kill_after = _seconds(k) if k else None
    # The program is a process of its own (its jobs and its shell's traps its own), and timeout is
    # that process: it sends the signal into it after the seconds (a shell may trap it), and KILL
    # `-k` seconds later if it still runs. One that dies of the signal returns KILLED | 128+N.
    inbox = Inbox()
    inner = schedule(run_argv(o.operands[1:], replace(io, inbox=inbox, exec_by="timeout")), wait_for_jobs=False,
                     inbox=inbox)
    left: int | None = limit
    signalled = False
    try:
        step = inner.send(None)
        while True:
            if isinstance(step, Sleep) and step.ns != 0 and left is not None:
                if step.ns is None or step.ns > left:
                    yield Sleep(left)
                    if sig == 9 or signalled:  # KILL, or -k's KILL after the signal: no program takes it
                        inner.close()
                        return KILLED | 128 + 9
                    step = inner.throw(Delivered(_NAMES.get(sig, sig_name), sig, left))
                    signalled = True
                    left = kill_after if kill_after is not None and kill_after > 0 else None
                    continue
                left -= step.ns
            reply = yield step
            step = inner.send(reply)
    except StopIteration as done:
        return int(done.value or 0)


class _WithEnv:
    """A container's userland seen with another environment (`env`'s), all else the same."""

    def __init__(self, world: Any, env: dict[str, str]) -> None:
        self._world = world
        self._env = env

    def env(self) -> dict[str, str]:
        return dict(self._env)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._world, name)


def _environment(io: Io) -> dict[str, str]:
    given: Callable[[], dict[str, str]] | None = getattr(io, "environ", None)
    if given is not None:
        return dict(given())
    if io.ctx.userland is not None:
        return dict(io.ctx.userland().env())
    return {}


def env(args: list[str], io: Io) -> Process:
    rest = ["-i" if a == "-" else a for a in args]
    o = yield from options(io, "env", rest, "iu:0", "[-i] [-u NAME] [-] [NAME=VALUE]... [PROG ARGS]", permute=False,
                           longs={"ignore-environment": "i", "unset": "u", "null": "0"})
    if isinstance(o, int):
        return o
    values = {} if o.has("i") else _environment(io)
    for name in o.all("u"):
        values.pop(name, None)
    words = list(o.operands)
    while words and re.fullmatch(r"[^=]+=.*", words[0], re.S):
        name, _, value = words.pop(0).partition("=")
        values[name] = value
    if not words:
        end = "\0" if o.has("0") else "\n"
        yield from io.write("".join(f"{k}={v}{end}" for k, v in values.items()))
        return 0
    child = replace(io, exec_by="env")
    if io.ctx.userland is not None:
        world = io.ctx.userland()
        child = replace(child, ctx=replace(io.ctx, userland=lambda: _WithEnv(world, values)))
    if hasattr(child, "environ"):  # (the shell's exported environment, where the shell has one)
        child = replace(child)
        setattr(child, "environ", lambda: dict(values))  # noqa: B010 (a member only the new shell's Io has)
    return (yield from run_argv(words, child))


def nice(args: list[str], io: Io) -> Process:
    o = yield from options(io, "nice", args, "n:", "[-n ADJUST] [PROG ARGS]", permute=False)
    if isinstance(o, int):
        return o
    adjust = o.last("n", "10") or "10"
    if not re.fullmatch(r"[-+]?\d+", adjust):
        yield from io.error(f"nice: invalid number '{adjust}'\n")
        return 1
    if not o.operands:
        yield from io.write("0\n")
        return 0
    return (yield from run_argv(o.operands, io))


def nohup(args: list[str], io: Io) -> Process:
    if not args:
        return (yield from usage_error(io, "nohup", "PROG ARGS", BadUsage("")))
    if io.ctx.tty:
        return (yield from not_modelled(io, "nohup", "on a terminal (nohup.out)"))
    return (yield from run_argv(args, io))


def usleep(args: list[str], io: Io) -> Process:
    if len(args) != 1 or not args[0].isdigit():
        if args and not args[0].isdigit():
            yield from io.error(f"usleep: invalid number '{args[0]}'\n")
            return 1
        return (yield from usage_error(io, "usleep", "N", BadUsage("")))
    yield Sleep(int(args[0]) * 1000)
    return 0


RUN_COMMANDS: dict[str, Command] = {"xargs": xargs, "timeout": timeout, "env": env, "nice": nice, "nohup": nohup,
                                    "usleep": usleep}
