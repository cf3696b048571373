"""The programs the shell itself provides beyond its builtins: `sleep`, `cat` (of its
input), `stty`, `tty`, and `true`, `false`, `echo` as programs (`env true`, xargs)."""
from __future__ import annotations

from fakecri.engine.durations import NS
from fakecri.sim.recording import MAX_SLEEP_NS
from fakecri.sim.shell.builtins import echo_text
from fakecri.sim.shell.io import Command, Io, ShellExit
from fakecri.sim.steps import Process, Sleep

_SLEEP_UNITS = {"s": NS["s"], "m": NS["m"], "h": NS["h"], "d": NS["d"]}


def _true(args: list[str], io: Io) -> Process:
    return 0
    yield  # a generator that yields nothing


def _false(args: list[str], io: Io) -> Process:
    return 1
    yield


def _exit(args: list[str], io: Io, status: int = 0) -> Process:
    """End the whole shell with code N (mod 256), or the last status without one."""
    if args:
        try:
            status = int(args[0]) & 0xFF
        except ValueError:
            yield from io.error(f"exit: {args[0]}: numeric argument required\n")
            status = 2
    raise ShellExit(status)


def _echo(args: list[str], io: Io) -> Process:
    text, _ = echo_text(args)
    yield from io.write(text)
    return 0


def sleep_ns(args: list[str]) -> int | None:
    """Total of `sleep` arguments in ns; None for infinity; ValueError when invalid."""
    if not args:
        raise ValueError("missing operand")
    total = 0
    for arg in args:
        if arg.lower() in ("infinity", "inf"):
            return None
        unit = NS["s"]
        if arg and arg[-1] in _SLEEP_UNITS:
            unit, arg = _SLEEP_UNITS[arg[-1]], arg[:-1]
        value = float(arg)  # ValueError on nonsense
        if value < 0 or value != value:
            raise ValueError(arg)
        if value == float("inf") or value * unit > MAX_SLEEP_NS:
            return None  # longer than anything a test will wait for: as good as forever
        total += round(value * unit)
    return total


def _sleep(args: list[str], io: Io) -> Process:
    try:
        ns = sleep_ns(args)
    except ValueError:
        yield from io.error(f"sleep: invalid time interval {' '.join(args)!r}\n")
        return 1
    yield Sleep(ns)
    return 0


def _cat(args: list[str], io: Io) -> Process:
    for name in args:
        if name != "-":  # (in a container, the userland's cat reads its files)
            yield from io.error(f"cat: can't open '{name}': No such file or directory\n")
            return 1
    while (chunk := (yield from io.stdin.read())) is not None:
        yield from io.write(chunk.decode("utf-8", "surrogateescape"))  # bytes in, the same bytes out
    return 0


def _stty(args: list[str], io: Io) -> Process:
    if not io.ctx.tty:
        yield from io.error("stty: standard input: Not a tty\n")
        return 1
    if args == ["size"]:
        cols, rows = io.ctx.size()
        yield from io.write(f"{rows} {cols}\n")
    return 0


def _tty(args: list[str], io: Io) -> Process:
    yield from io.write("/dev/pts/0\n" if io.ctx.tty else "not a tty\n")
    return 0 if io.ctx.tty else 1


COMMANDS: dict[str, Command] = {
    "true": _true, ":": _true, "false": _false, "exit": _exit, "echo": _echo, "sleep": _sleep,
    "cat": _cat, "stty": _stty, "tty": _tty,
}
