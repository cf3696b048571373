"""Redirections: what a command's descriptors are once its `<`, `>`, `>>`, `>|`, `<>`,
`&>`, `n>&m`, `n<&-` and here-documents are applied, left to right. Files are the
container's (its userland), opened at the moment the redirection is made (a LOOK)."""
from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace

from fakecri.sim.shell.ast import Redir
from fakecri.sim.shell.expand import expand_string
from fakecri.sim.shell.io import CLOSED, Input, Io, Sink
from fakecri.sim.shell.state import Shell, ShellError
from fakecri.sim.steps import LOOK, PID1, Reply, Step

STDOUT_PATHS = frozenset({"/dev/stdout", "/proc/self/fd/1", "/proc/1/fd/1", "/dev/fd/1"})
STDERR_PATHS = frozenset({"/dev/stderr", "/proc/self/fd/2", "/proc/1/fd/2", "/dev/fd/2"})
STDIN_PATHS = frozenset({"/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"})
# PID 1's output seen from another process of the container (an exec, a hook): the container's log
PID1_PATHS = {"/proc/1/fd/1": PID1 + "stdout", "/proc/1/fd/2": PID1 + "stderr"}
NOWHERE: Sink = (None, "", None)
MAX_FD = 9


def _reason(exc: Exception) -> str:
    return str(getattr(exc, "reason", exc))


def apply(redirs: tuple[Redir, ...], sh: Shell, io: Io) -> Generator[Step, Reply, Io | None]:
    """`io` with the redirections applied; None when one fails (its message written)."""
    for r in redirs:
        if r.fd > MAX_FD:
            yield from io.error(f"{sh.name}: {r.fd}: bad file descriptor\n" if r.fd < 1 << 20 else
                                f"{sh.name}: bad file descriptor\n")
            return None
        if r.op in ("<<", "<<-"):
            doc = r.doc
            body = r.body()
            text = (yield from expand_string(body, sh)) if doc is not None and doc.expand else \
                "".join(getattr(p, "text", "") for p in body.parts)
            if r.fd == 0:
                io = _with_input(io, Input(text.encode("utf-8", "surrogateescape"), empty=True))
            continue
        target = yield from expand_string(r.target, sh)
        if r.op in (">&", "<&"):
            if target == "-":
                if r.fd == 0:
                    io = _with_input(io, Input(empty=True))
                elif r.fd in io.inputs:
                    io = replace(io, inputs={k: v for k, v in io.inputs.items() if k != r.fd})
                else:
                    io = io.with_sink(r.fd, None)
                continue
            if target.isdigit():
                src = int(target)
                if src in io.inputs and r.op == "<&" or (r.fd == 0 and src in io.inputs):
                    if r.fd == 0:
                        io = _with_input(io, io.inputs[src])
                    else:
                        io = replace(io, inputs={**io.inputs, r.fd: io.inputs[src]})
                    continue
                if src > MAX_FD or (src not in (0, 1, 2) and src not in io.fds) or (
                        src in (1, 2) and (io.to_file if src == 1 else io.err_file) == CLOSED):
                    yield from io.error(f"{sh.name}: {sh.where()}{target}: Bad file descriptor\n")  # (dup2's EBADF)
                    return None
                if r.fd == 0 or src == 0:
                    continue  # (descriptor 0 duplicated: the same input)
                io = io.with_sink(r.fd, io.sink(src))
                continue
            if r.op == "<&":
                raise ShellError("redir error")  # (ash: `<&word` of no descriptor ends the shell)
            # `>&file`: as `&>file`
        if r.op == "<" or (r.op == "<>" and r.fd == 0):
            got = yield from _read_file(target, sh, io, create=r.op == "<>")
            if got is None:
                return None
            io = _with_input(io, got) if r.fd == 0 else replace(io, inputs={**io.inputs, r.fd: got})
            continue
        if r.op == "<>":
            sink = yield from _open(target, sh, io, append=True)
            if sink is not False:  # (open for reading too: from its start)
                got = yield from _read_file(target, sh, io, create=False)
                if got is None:
                    return None
                io = replace(io, inputs={**io.inputs, r.fd: got})
        else:
            sink = yield from _open(target, sh, io, append=r.op == ">>", clobber=r.op != ">" or "C" not in sh.options)
        if sink is False:
            return None
        if r.op in ("&>", ">&"):
            io = io.with_sink(1, sink).with_sink(2, sink)  # type: ignore[arg-type]
        else:
            io = io.with_sink(r.fd, sink)  # type: ignore[arg-type]
    return io


def _with_input(io: Io, stdin: Input) -> Io:
    return replace(io, stdin=stdin)


def _open(path: str, sh: Shell, io: Io, append: bool, clobber: bool = True) -> Generator[Step, Reply, Sink | bool]:
    if path == "/dev/null":
        return NOWHERE
    if path in PID1_PATHS and not io.ctx.main:
        return PID1_PATHS[path], "", None
    if path in STDOUT_PATHS:
        return io.sink(1)
    if path in STDERR_PATHS:
        return io.sink(2)
    if not path:
        yield from io.error(f"{sh.name}: {sh.where()}can't create : nonexistent directory\n")
        return False
    if io.ctx.userland is None:
        return (None, path, None)  # no files modelled here: what goes there is lost
    yield LOOK  # it opens a file: now, not ahead of time
    world = io.ctx.userland()
    world.umask = sh.umask()
    if not clobber and world.exists(_absolute(path, sh)) and not world.is_dir(_absolute(path, sh)):
        yield from io.error(f"{sh.name}: {sh.where()}can't create {path}: File exists\n")  # set -C
        return False
    try:
        world.write(_absolute(path, sh), b"", append=append)
    except Exception as exc:  # the userland's FileError: the shell cannot open it
        reason = _reason(exc)
        reason = "nonexistent directory" if reason.startswith("No such file") else reason  # (ash's words)
        yield from io.error(f"{sh.name}: {sh.where()}can't create {path}: {reason}\n")
        return False
    return (None, _absolute(path, sh), None)


def _absolute(path: str, sh: Shell) -> str:
    if path.startswith("/"):
        return path
    return sh.cwd().rstrip("/") + "/" + path


def _read_file(path: str, sh: Shell, io: Io, create: bool) -> Generator[Step, Reply, Input | None]:
    if path == "/dev/null":
        return Input(empty=True)
    if path in STDIN_PATHS:
        return io.stdin
    if io.ctx.userland is None:
        yield from io.error(f"{sh.name}: {sh.where()}can't open {path}: no such file\n")
        return None
    yield LOOK
    world = io.ctx.userland()
    full = _absolute(path, sh)
    try:
        if create and not world.exists(full):
            world.write(full, b"")
        data = world.read(full)
    except Exception as exc:  # the userland's FileError
        reason = _reason(exc)
        if "No such file" in reason:
            reason = "no such file"
        yield from io.error(f"{sh.name}: {sh.where()}can't open {path}: {reason}\n")
        return None
    return Input(bytes(data), empty=True)


# ---------------------------------------------------------------- pushed redirections
# ash "pushes" the redirections of a compound command, a builtin or a function: it saves each
# descriptor it changes and puts it back afterwards. A subshell inherits that stack, and when it
# exits it unwinds all of it (exitreset) before its EXIT trap runs: each descriptor a pushed
# redirection saved is back to what it was before the outermost of them, even over the subshell's
# own redirections and its pipe. `Shell.pushed` is that: descriptor -> its value before.

Saved = tuple[object, object]  # (what it writes to or reads from, the input it reads, for 3 and up)


def touched(redirs: tuple[Redir, ...]) -> set[int]:
    fds = {r.fd for r in redirs}
    for r in redirs:
        target = r.target.literal()
        if r.op == "&>" or (r.op == ">&" and target != "-" and not (target or "").isdigit()):
            fds |= {1, 2}  # (`>&$x` may name a file: both noted, which costs nothing when it does not)
    return fds


def saved(io: Io, fd: int) -> Saved:
    if fd == 0:
        return (io.stdin, None)
    return (io.sink(fd), io.inputs.get(fd))


def push(redirs: tuple[Redir, ...], sh: Shell) -> list[int]:
    """Note what the descriptors `redirs` change were (those not noted already); the ones noted."""
    added = [fd for fd in touched(redirs) if fd not in sh.pushed]
    for fd in added:
        sh.pushed[fd] = saved(sh.io, fd)
    return added


def pop(added: list[int], sh: Shell) -> None:
    for fd in added:
        sh.pushed.pop(fd, None)


def unwound(sh: Shell) -> Io:
    """The descriptors an exiting subshell's EXIT trap writes to: every pushed one put back."""
    io = sh.io
    for fd, (value, read) in sorted(sh.pushed.items()):
        if fd == 0:
            io = _with_input(io, value)  # type: ignore[arg-type]
            continue
        io = io.with_sink(fd, value)  # type: ignore[arg-type]
        if fd > 2:
            inputs = {k: v for k, v in io.inputs.items() if k != fd}
            if read is not None:
                inputs[fd] = read  # type: ignore[assignment]
            io = replace(io, inputs=inputs)
    sh.pushed.clear()
    return io
