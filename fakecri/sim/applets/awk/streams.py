"""Where an awk program's text comes from and goes: its input files (ARGV, `var=value`
operands between them, standard input without any), the files and commands `getline` reads,
and what `print > file`, `>> file` and `| command` write.

Files are the container's (its `Userland`); commands run through the container's shell
(`sh -c`): a command `getline` reads from runs to its end first, and a command printed to
runs when it is closed (or when the program ends) with all that was printed to it as input.
Standard output and files are written in blocks, as stdio does into a pipe: before awk reads
input, runs a command or writes an error, when a file is closed, and at the end. The files are
looked at (a LOOK step) once.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Generator
from dataclasses import replace
from typing import Any

from fakecri.sim.applets.awk.machine import Machine
from fakecri.sim.applets.awk.records import AwkArray, Reader
from fakecri.sim.applets.awk.values import StrNum, from_text, to_num, to_text
from fakecri.sim.shell import Input, Io, run_argv
from fakecri.sim.shell.io import KILLED
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.world import FileError, Userland

_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)
_FLUSH_AT = 1 << 16


class OpenFailed(Exception):
    """An output file could not be opened: busybox's `can't open` message."""


class Streams:
    def __init__(self, io: Io, unescape: Callable[[str], str]) -> None:
        self.io = io
        self.unescape = unescape
        self.buffer: list[str] = []
        self.size = 0
        self.stdin = Reader(self._pull_stdin)
        self.current: Reader | None = None
        self.arg_index = 1
        self.used_file = False
        self.inputs: dict[str, Reader] = {}
        self.commands: dict[str, Reader] = {}
        self.command_status: dict[str, int] = {}  # how each command read from ended
        self.files: dict[str, list[str]] = {}  # open output files: what is printed to them, not yet written
        self.pipes: dict[str, list[str]] = {}
        self.userland: Userland | None = None

    def world(self) -> Generator[Any, Any, Userland]:
        """The container's files: looked at (a LOOK step) the first time only, so a program that
        prints many lines to a file does not take a step for each."""
        if self.userland is None:
            self.userland = yield from looking(self.io)
        return self.userland

    # ---------------------------------------------------------------- output

    def out(self, text: str) -> Generator[Any, Any, None]:
        self.buffer.append(text)
        self.size += len(text)
        if self.size >= _FLUSH_AT:
            yield from self.flush()

    def flush(self) -> Generator[Any, Any, None]:
        if self.buffer:
            text, self.buffer, self.size = "".join(self.buffer), [], 0
            yield from self.io.write(to_text(text))

    def error(self, text: str) -> Generator[Any, Any, None]:
        yield from self.flush()
        yield from self.io.error(to_text(text))

    def to(self, how: str, dest: str, text: str) -> Generator[Any, Any, None]:
        if how == "|":
            self.pipes.setdefault(dest, []).append(text)
            return
        if dest in ("/dev/stdout", "-"):
            yield from self.out(text)
            return
        if dest == "/dev/stderr":
            yield from self.error(text)
            return
        world = yield from self.world()
        if dest not in self.files:
            try:
                if to_text(dest) != "/dev/null":
                    world.write(to_text(dest), b"", append=how == ">>")
            except FileError as exc:
                raise OpenFailed(f"can't open '{dest}': {exc.reason}") from None
            self.files[dest] = []
        if to_text(dest) != "/dev/null":
            pending = self.files[dest]
            pending.append(text)
            if len(pending) >= 1024:  # (in blocks, as stdio writes a file)
                self.flush_file(dest)

    def flush_file(self, dest: str) -> None:
        """What was printed to a file goes into it (as stdio writes out a full buffer)."""
        text, self.files[dest] = "".join(self.files[dest]), []
        if text and self.userland is not None:
            try:
                self.userland.write(to_text(dest), text.encode("latin-1", "replace"), append=True)
            except FileError:
                pass  # (the file went away or turned read-only since it was opened: the output is lost)

    def flush_all(self) -> Generator[Any, Any, None]:
        """Everything buffered goes out: before another process runs, and at the end."""
        yield from self.flush()
        for dest in self.files:
            self.flush_file(dest)

    def close(self, name: str) -> Generator[Any, Any, float]:
        """close(name) as busybox's: a command's wait status as pclose gives it (exit 3 is 768), 0
        for a file and for a name that was never opened."""
        status = 0
        if name in self.pipes:
            status = _wait_status((yield from self._run_pipe(name)))
        if name in self.files:
            self.flush_file(name)
            del self.files[name]
        self.inputs.pop(name, None)
        if name in self.commands:
            del self.commands[name]
            status = _wait_status(self.command_status.pop(name, 0))
        return float(status)

    def _run_pipe(self, name: str) -> Generator[Any, Any, int]:
        data = "".join(self.pipes.pop(name)).encode("latin-1", "replace")
        yield from self.flush_all()
        status: int = yield from run_argv(["sh", "-c", to_text(name)], replace(self.io, stdin=Input(data, empty=True)))
        return status

    def finish(self) -> Generator[Any, Any, None]:
        """The program ends: what is buffered goes out, commands printed to run."""
        yield from self.flush_all()
        for name in list(self.pipes):
            yield from self._run_pipe(name)

    def system(self, command: str) -> Generator[Any, Any, int]:
        yield from self.flush_all()
        status: int = yield from run_argv(["sh", "-c", to_text(command)], self.io)
        return status

    # ---------------------------------------------------------------- input

    def _pull_stdin(self) -> Generator[Any, Any, str | None]:
        yield from self.flush()
        chunk = yield from self.io.stdin.read()
        return None if chunk is None else chunk.decode("latin-1")

    def _file(self, name: str, operand: bool = False) -> Generator[Any, Any, Reader | str]:
        """A reader of the file, or why it cannot be read (`-` is standard input as an operand only)."""
        if name == "/dev/stdin" or operand and name == "-":
            return self.stdin
        world = yield from self.world()
        try:
            return Reader(None, world.read(to_text(name)).decode("latin-1"))
        except FileError as exc:
            return exc.reason

    def file_record(self, name: str, rs: str) -> Generator[Any, Any, str | float]:
        reader = self.inputs.get(name)
        if reader is None:
            opened = yield from self._file(name)
            if isinstance(opened, str):
                return -1.0
            reader = self.inputs[name] = opened
        text = yield from reader.record(rs)
        return 0.0 if text is None else text

    def command_record(self, command: str, rs: str) -> Generator[Any, Any, str | float]:
        reader = self.commands.get(command)
        if reader is None:
            yield from self.flush_all()
            capture: list[str] = []
            code = yield from run_argv(["sh", "-c", to_text(command)], self.io.piped(Input(empty=True), capture))
            self.command_status[command] = code
            reader = self.commands[command] = Reader(None, from_text("".join(capture)))
        text = yield from reader.record(rs)
        return 0.0 if text is None else text

    def skip_file(self) -> None:
        """nextfile: the rest of the current input file is skipped."""
        if self.current is not None and self.current is not self.stdin:
            self.current = None

    def main_record(self, interp: Machine) -> Generator[Any, Any, str | None]:
        """The next record of the main input, opening the operands in ARGV as it goes."""
        while True:
            if self.current is not None:
                text = yield from self.current.record(interp.str_var("RS"))
                if text is not None:
                    return text
                self.current = None
            if self.current is None and not (yield from self._next_operand(interp)):
                return None

    def _next_operand(self, interp: Machine) -> Generator[Any, Any, bool]:
        argv = interp.vars.get("ARGV")
        while True:
            argc = int(to_num(interp.get("ARGC")))
            if self.arg_index >= argc:
                if self.used_file:
                    return False
                self.used_file = True
                self.current = self.stdin
                interp.vars["FILENAME"] = "-"
                return True
            i = self.arg_index
            self.arg_index += 1
            arg = argv.data.get(str(i), "") if isinstance(argv, AwkArray) else ""
            arg = interp.str_of(arg)
            if arg == "":
                continue
            m = _ASSIGNMENT.fullmatch(arg)
            if m:
                interp.put(m.group(1), StrNum(self.unescape(m.group(2))))
                continue
            self.used_file = True
            opened = yield from self._file(arg, operand=True)
            if isinstance(opened, str):
                raise InputMissing(f"{arg}: {opened}")
            interp.vars["FILENAME"] = arg
            interp.vars["FNR"] = 0.0
            self.current = opened
            return True


class InputMissing(Exception):
    """An input file could not be read: busybox stops there (exit 1)."""


def _wait_status(code: int) -> int:
    """A shell's exit code as wait(2) reports it: the code in the second byte, or the signal."""
    return (code & 0xFF) - 128 if code & KILLED else (code & 0xFF) << 8
