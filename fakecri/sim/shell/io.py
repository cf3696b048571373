"""What a shell process runs with: where it runs (`Context`), its input (`Input`), and how
its commands write (`Io`). The interpreter (fakecri.sim.shell) re-exports them."""
from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from fakecri.sim.steps import READ, Process, Reply, Sleep, Step, Write

MAX_NESTING = 50  # shells and $(...) inside one another, at most
DEFAULT_SIZE = (80, 24)  # (columns, rows) of a terminal nobody resized
Command = Callable[[list[str], "Io"], Process]  # (arguments, io) -> the process
Sink = tuple[str | None, str, list[str] | None] | None  # where a descriptor writes (see Io.sink)
KILLED = 1 << 8  # a program that died of a signal returns KILLED | 128+N (the shell that ran it says so)
CLOSED = "\0closed"  # the file of a closed standard output or error (`>&-`): writing there fails


@dataclass(slots=True)
class Context:
    """Where a process runs.

    `main`: it is a container's own command, so a program we do not model runs until
    stopped instead of answering "not found". `tty`: its output goes to a terminal,
    whose (columns, rows) `size` returns.
    """

    main: bool = False
    tty: bool = False
    size: Callable[[], tuple[int, int]] = lambda: DEFAULT_SIZE
    # The container's userland (core.userland.Userland), built on first use, and the
    # commands that look into it; without one, files and identity are not modelled.
    userland: Callable[[], Any] | None = None
    commands: Mapping[str, Command] = field(default_factory=dict)
    # Told the name of each thing the shell refuses because fakecri does not model it (a busybox
    # applet, a builtin, a construct): the node counts them (its metrics, `fakecri ctl info`).
    refused: Callable[[str], None] | None = None


# ---------------------------------------------------------------- signals to the interpreter


class Interrupted(Exception):
    """Ctrl-C on the terminal: a live driver throws it into the process."""


class Signalled(Exception):
    """A signal to the shell from one of its own subshells (`kill $$` there): thrown into the shell
    where it waits for its jobs (`wait`), which the signal interrupts, as in ash."""


# signals whose default action is to do nothing (the others end the process)
IGNORED_BY_DEFAULT = frozenset({"CHLD", "URG", "WINCH", "CONT"})


@dataclass(slots=True)
class Inbox:
    """Where a signal from outside goes: the process's shell, once one runs it (its traps and
    the list of signals it has yet to take, shared with it). `pid1`: the process is its
    container's PID 1, which the kernel gives only the signals it has a handler for."""

    pid1: bool = False
    traps: dict[str, str] | None = None
    pending: list[tuple[str, int]] | None = None

    def hand_over(self, traps: dict[str, str]) -> None:
        """The shell whose `traps` these are runs a program in its own place (`exec CMD`): a shell
        that program is takes the signals from now on, as would any other program."""
        if self.traps is traps:
            self.traps = self.pending = None


class ShellExit(Exception):
    """`exit N` ends the whole shell, not just the statement."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


# ---------------------------------------------------------------- input and output


@dataclass(frozen=True, slots=True)
class ReadUntil(Sleep):
    """READ, but give up at `until` (ns on the process's clock): the scheduler (shell/jobs.py)
    answers TIMED_OUT then. A zero-length sleep, so a driver that never sees it answers None."""

    until: int = 0


TIMED_OUT = -1


class ReadTimedOut(Exception):
    """A read with a deadline (`read -t`) had no complete answer by then."""


class Input:
    """A process's standard input, shared by the commands it runs (a shell and its children)."""

    def __init__(self, data: bytes = b"", *, empty: bool = False) -> None:
        """`data`: input already there (a pipeline's); `empty`: nothing more comes."""
        self._buf = bytearray(data)
        self._eof = empty

    def read(self) -> Generator[Step, Reply, bytes | None]:
        """The next chunk as it arrives; None at the end."""
        if self._buf:
            data = bytes(self._buf)
            self._buf.clear()
            return data
        while not self._eof:
            chunk = yield READ
            if chunk is None:
                self._eof = True
            elif isinstance(chunk, bytes) and chunk:
                return bytes(chunk)
        return None

    def read_upto(self, delim: bytes, limit: int | None = None,
                  until: int | None = None) -> Generator[Step, Reply, bytes | None]:
        """The bytes up to and with `delim`, or `limit` of them, or up to the end (a shell's `read`
        takes no more, so the rest stays for the next reader); None at the end. `until`: a
        deadline on the process's clock; ReadTimedOut when it comes first, and what had come of
        the line is gone (busybox's `read` took it byte by byte)."""
        while True:
            end = self._buf.find(delim)
            if end >= 0 and (limit is None or end < limit):
                take = end + 1
            elif limit is not None and len(self._buf) >= limit:
                take = limit
            elif self._eof:
                take = len(self._buf)
            else:
                chunk: object = yield (READ if until is None else ReadUntil(0, until))
                if chunk is None:
                    self._eof = True
                elif isinstance(chunk, bytes):
                    self._buf += chunk
                elif chunk == TIMED_OUT:
                    self._buf.clear()
                    raise ReadTimedOut()
                continue
            if not take:
                return None
            data = bytes(self._buf[:take])
            del self._buf[:take]
            return data

    def readline(self) -> Generator[Step, Reply, bytes | None]:
        """The next line with its newline (the last one may lack it); None at the end."""
        while b"\n" not in self._buf and not self._eof:
            chunk = yield READ
            if chunk is None:
                self._eof = True
            elif isinstance(chunk, bytes):
                self._buf += chunk
        if not self._buf:
            return None
        end = self._buf.find(b"\n") + 1 or len(self._buf)
        line = bytes(self._buf[:end])
        del self._buf[:end]
        return line


@dataclass(slots=True)
class Io:
    """What a command runs with: its context, input, and where its output goes."""

    ctx: Context
    stdin: Input
    out: str | None = "stdout"  # None: redirected to a file (kept in the userland when there is one)
    to_file: str = ""
    capture: list[str] | None = None  # a command substitution collects the output here
    shell: str = "sh"  # how the running shell was called, as its error messages name it
    depth: int = 0  # how many shells and command substitutions it runs inside
    argv0: str = ""  # the name the running program was called by (as its argv[0])
    builtin: bool = False  # it runs as the shell's builtin of its name (`printf`, not `busybox printf`)
    where: str = ""  # inside eval or `.`: what the shell's own messages start with after its name
    exec_by: str = ""  # an applet that execs the program itself (env, timeout, xargs): it reports a missing one
    umask: int = 0o022  # the creating process's umask (a shell's `umask`): a new file gets 0666 less it
    failed: list[str] | None = None  # noted in: why a write to standard output failed (a closed one: EBADF)
    clock: list[int] = field(default_factory=lambda: [0])  # ns the whole process has slept so far
    # its background jobs: pid -> [when it ends (on `clock`, inf: never), its exit status]
    jobs: dict[int, list[float]] = field(default_factory=dict)
    # Where its errors go, as out/to_file/capture say for its output (`2>&1`, `2> file`, `2>/dev/null`).
    err_out: str | None = "stderr"
    err_file: str = ""
    err_capture: list[str] | None = None
    fds: dict[int, Sink] = field(default_factory=dict)  # descriptors 3 and up that a redirection opened
    inputs: dict[int, Input] = field(default_factory=dict)  # descriptors 3 and up opened for reading
    cwd: str = ""  # the shell's working directory after a `cd` ("": the container's working directory)
    # The environment the program gets (the shell's exported variables); None: the container's own.
    environ: Callable[[], dict[str, str]] | None = None
    inbox: Inbox = field(default_factory=Inbox)  # one for the whole process (copies of the Io share it)

    def write(self, text: str) -> Generator[Step, Reply, None]:
        if text and self.to_file == CLOSED:
            if self.failed is not None:
                self.failed.append("Bad file descriptor")
        elif text and self.capture is not None and self.out == "stdout":
            self.capture.append(text)
        elif text and self.out is not None:
            yield Write(self.out, text)
        elif text and self.to_file and self.ctx.userland is not None:
            try:
                self.ctx.userland().write(self.to_file, text.encode("utf-8", "surrogateescape"), append=True)
            except Exception as exc:  # the file vanished or turned read-only meanwhile: the output is lost
                if self.failed is not None:
                    self.failed.append(str(getattr(exc, "reason", exc)))

    def error(self, text: str) -> Generator[Step, Reply, None]:
        if text and self.err_capture is not None:
            self.err_capture.append(text)
        elif text and self.err_out is not None:
            yield Write(self.err_out, text)
        elif text and self.err_file and self.err_file != CLOSED and self.ctx.userland is not None:
            try:
                self.ctx.userland().write(self.err_file, text.encode("utf-8", "surrogateescape"), append=True)
            except Exception:  # as for output: a file that cannot be written loses it
                pass

    def sink(self, fd: int) -> Sink:
        """Where descriptor `fd` writes: (stream, file, capture) as `write` reads them; None: closed."""
        if fd == 1:
            return self.out, self.to_file, self.capture if self.out == "stdout" else None
        if fd == 2:
            return self.err_out, self.err_file, self.err_capture
        return self.fds.get(fd)

    def with_sink(self, fd: int, sink: Sink) -> Io:
        out, to_file, capture = sink if sink is not None else (None, CLOSED if fd in (1, 2) else "", None)
        if fd == 1:
            return replace(self, out=out, to_file=to_file, capture=capture)
        if fd == 2:
            return replace(self, err_out=out, err_file=to_file, err_capture=capture)
        fds = dict(self.fds)
        if sink is None:
            fds.pop(fd, None)
        else:
            fds[fd] = sink
        return replace(self, fds=fds)

    def piped(self, stdin: Input, capture: list[str]) -> Io:
        """A pipeline's stage before the last (or a `$(...)`): its output collected for the next,
        its errors as this shell's."""
        return replace(self, stdin=stdin, out="stdout", to_file="", capture=capture)

    def nested(self) -> Io | None:
        """The same, one shell deeper; None past MAX_NESTING (the script nests too deep to run)."""
        return None if self.depth >= MAX_NESTING else replace(self, depth=self.depth + 1)
