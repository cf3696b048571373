"""The commands that look at a container's processes as busybox's do: `pgrep` and `top`.

The processes are the userland's model of the container's PID namespace
(`Userland.processes()`: PID 1, the container's own command, and what execs run). `top` is
what critest and many pods run as a command that never ends: it draws a frame of the
process table every `-d` seconds (5 by default) until stopped, or `-n` frames; `-b` draws
without the terminal's clear-screen codes. Each frame looks at the files first (a LOOK
step), so a container running it goes on live after its first frame instead of being worked
out ahead of time.
"""
from __future__ import annotations

import re

from fakecri.sim.shell import Io, Process, Sleep
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.system import meminfo_kb
from fakecri.sim.userland.world import FileError, Userland

NS_PER_S = 1_000_000_000
_CLEAR = "\x1b[H\x1b[J"


def _name(line: str) -> str:
    """A process's name, as pgrep matches it without -f: its program's base name."""
    return line.split(" ", 1)[0].rsplit("/", 1)[-1]


def _usage(io: Io, applet: str, line: str) -> Process:
    yield from io.error(f"{applet}: {line}\n")
    return 1


def pgrep(args: list[str], io: Io) -> Process:
    """pgrep [-flnovx] PATTERN: the pids (with -l, and the name) of the processes whose name
    (with -f, whole command line) the extended regular expression matches; 1 when none does."""
    flags: set[str] = set()
    rest: list[str] = []
    for a in args:
        if a.startswith("-") and len(a) > 1 and not rest:
            for ch in a[1:]:
                if ch not in "flnovx":
                    return (yield from _usage(io, "pgrep", f"-{ch}: not modelled by fakecri"))
                flags.add(ch)
        else:
            rest.append(a)
    if len(rest) != 1:
        return (yield from _usage(io, "pgrep", "a single PATTERN is needed"))
    try:
        pattern = re.compile(rest[0])
    except re.error:
        return (yield from _usage(io, "pgrep", f"bad regex '{rest[0]}'"))
    world: Userland = yield from looking(io)
    own = io.argv0 or "pgrep"
    found = []
    for pid, line in world.processes():
        text = line if "f" in flags else _name(line)
        hit = pattern.fullmatch(text) if "x" in flags else pattern.search(text)
        if (hit is None) != ("v" in flags) or _name(line) == own.rsplit("/", 1)[-1]:
            continue
        found.append((pid, line))
    if "n" in flags:
        found = found[-1:]
    elif "o" in flags:
        found = found[:1]
    out = "".join(f"{pid} {_name(line)}\n" if "l" in flags else f"{pid}\n" for pid, line in found)
    yield from io.write(out)
    return 0 if found else 1


def _frame(world: Userland) -> str:
    mem = meminfo_kb(world)
    total, free = mem.get("MemTotal", 0), mem.get("MemFree", 0)
    try:
        load = world.read("/proc/loadavg").decode("utf-8", "replace").split()
    except FileError:
        load = ["0.00", "0.00", "0.00", "1/1", "1"]
    procs = world.processes()
    user = world.user_name or str(world.uid)
    rows = "".join(f"{pid:>5} {0 if pid == 1 else 1:>5} {user[:8]:<8} S        0   0%   0% {line}\n"
                   for pid, line in procs)
    return (f"Mem: {total - free}K used, {free}K free, 0K shrd, {mem.get('Buffers', 0)}K buff, "
            f"{mem.get('Cached', 0)}K cached\n"
            "CPU:   0% usr   0% sys   0% nic 100% idle   0% io   0% irq   0% sirq\n"
            f"Load average: {' '.join(load[:3])} {load[3] if len(load) > 3 else '1/1'} {procs[-1][0] if procs else 1}\n"
            "  PID  PPID USER     STAT   VSZ %VSZ %CPU COMMAND\n" + rows)


def top(args: list[str], io: Io) -> Process:
    """top [-b] [-n COUNT] [-d SECONDS]: a frame of the process table every SECONDS, COUNT
    times (until stopped without -n)."""
    batch, count, delay_ns = False, -1, 5 * NS_PER_S
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "-b":
            batch = True
        elif a in ("-n", "-d") or a.startswith(("-n", "-d")):
            value = a[2:] or (args[i] if i < len(args) else "")
            i += 0 if a[2:] else 1
            try:
                number = float(value)
            except ValueError:
                return (yield from _usage(io, "top", f"invalid number '{value}'"))
            if a.startswith("-n"):
                count = int(number)
            else:
                delay_ns = max(1, int(number * NS_PER_S))
        else:
            return (yield from _usage(io, "top", f"{a}: not modelled by fakecri"))
    drawn = 0
    while count < 0 or drawn < count:
        world: Userland = yield from looking(io)
        yield from io.write(("" if batch else _CLEAR) + _frame(world))
        drawn += 1
        if count < 0 or drawn < count:
            yield Sleep(delay_ns)
    return 0


PROCESS_COMMANDS = {"pgrep": pgrep, "top": top}
