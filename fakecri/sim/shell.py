"""The one command interpreter: what containers, ExecSync, exec and attach run.

Nothing is executed. A command becomes a *process*: a generator that yields steps
(fakecri.sim.steps: `Write` some text to a stream, `Sleep` for a while or forever, `READ`
input, `Connect` to the network, `Trap` SIGTERM) and returns its exit code. Drivers run
processes:

- `record` / `trace` (sim/recording.py, re-exported here) run one to the end at once and
  return a `Trace`: the lines it writes at their offsets, and when it exits with which
  code. Container main programs use it.
- the server's drivers run one live, step by step: over a client's stream
  (server/streaming/runtime_backend.py), so a shell answers line by line, and to its end
  for ExecSync (server/processes.py); they carry out its network steps.

Understood: the programs in `COMMANDS` (`sleep`, `true`, `false`, `exit`, `echo`, `cat`,
`stty`, `tty`, `trap`, `wait`, `sh`...), statements joined by `;`, `&&`, `||`, `|` or
newlines, `!` before a pipeline, `&` (a background job: it runs at once, and an exec's
output stays open until it ends), `while`/`until` loops, functions, `sh -c SCRIPT`,
`$(...)`, and an interactive `sh` that reads lines from its input (with a `/ # ` prompt on
a terminal). In a container, the context adds the commands that look into its userland
(sim/userland/) and the programs it knows by name (sim/programs/), and `$VAR`, `>`, `>>` on
its files. In an exec, a busybox program we do not model (`ls`, `touch`...) succeeds
silently and any other name answers as busybox does, `sh: NAME: not found`, exit 127. As a
container's own command, a program we do not model is one we cannot see into (`nginx`,
`tail -f /dev/null`), which runs until stopped. Odd input never raises.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Generator, Mapping, Sequence
from dataclasses import replace

from fakecri.engine.durations import NS
from fakecri.sim.recording import MAX_SLEEP_NS, Trace, record
from fakecri.sim.shell_io import DEFAULT_SIZE, MAX_NESTING, Command, Context, Input, Interrupted, Io, _Exit
from fakecri.sim.shell_syntax import (
    COMPOUND,
    SUB,
    Statement,
    UnknownSyntax,
    cut_functions,
    literal,
    loop_parts,
    split_script,
    strip_prefixes,
)
from fakecri.sim.steps import (
    LOOK,
    NO_NETWORK,
    READ,
    Connect,
    NetResult,
    Process,
    Read,
    Reply,
    Sleep,
    Step,
    Trap,
    Write,
)

# the steps and the recorder, re-exported for the modules that drive processes
__all__ = ["LOOK", "READ", "Connect", "NetResult", "Process", "Read", "Reply", "Sleep", "Step", "Trap", "Trace",
           "Write", "record", "DEFAULT_SIZE", "MAX_NESTING", "Command", "Context", "Input", "Interrupted", "Io"]

SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})
_SLEEP_UNITS = {"s": NS["s"], "m": NS["m"], "h": NS["h"], "d": NS["d"]}
PROMPT = "/ # "  # busybox sh's prompt for root in /


# ---------------------------------------------------------------- commands


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
    raise _Exit(status)


def _echo(args: list[str], io: Io) -> Process:
    newline = True
    while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
        newline = newline and "n" not in args[0]
        args = args[1:]
    yield from io.write(" ".join(args) + ("\n" if newline else ""))
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
    if args and args != ["-"]:
        return 0  # files are not modelled: reading one succeeds with nothing in it
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


def _too_deep(io: Io) -> Process:
    yield from io.error(f"{io.shell}: the script nests shells or $(...) more than {MAX_NESTING} deep\n")
    return 2


def _shell(args: list[str], io: Io) -> Process:
    """`sh -c SCRIPT`, or an interactive shell reading lines from its input."""
    inner = io.nested()
    if inner is None:
        return (yield from _too_deep(io))
    io = inner
    rest = args
    while rest and rest[0].startswith("-") and "c" not in rest[0]:
        rest = rest[1:]  # options such as -e, -x, -i or -s before -c (or none)
    if len(rest) >= 2 and rest[0].startswith("-") and "c" in rest[0]:
        script, functions = cut_functions(rest[1])
        io = replace(io, functions=functions)  # a new shell: its own functions
        try:
            statements = split_script(script)
        except UnknownSyntax:
            return (yield from _unmodelled(io))
        if any(st.argv[:1] and st.argv[0] in COMPOUND for st in statements):
            return (yield from _unmodelled(io))
        try:
            return (yield from run_statements(statements, io))
        except _Exit as ex:
            return ex.code
    if rest and not rest[0].startswith("-"):
        return (yield from _unmodelled(io))  # a script file: not something we can read
    return (yield from _interactive(io))


def _interactive(io: Io) -> Process:
    # What someone types is answered: an unknown program is "not found", even in a container's shell.
    io = Io(replace(io.ctx, main=False), io.stdin, io.out)
    status = 0
    while True:
        if io.ctx.tty:
            yield from io.write(PROMPT)
        try:
            line = yield from io.stdin.readline()
            if line is None:
                return status
            try:
                statements = split_script(line.decode("utf-8", "replace"))
            except UnknownSyntax:
                continue  # syntax we do not model: as with `sh -c`, nothing happens
            status = yield from run_statements(statements, io, status)
        except _Exit as ex:
            return ex.code
        except Interrupted:
            status = 130  # Ctrl-C: the line or the command is abandoned, the shell goes on


def _unmodelled(io: Io) -> Process:
    """A program or script we cannot see into: a container's runs until stopped, an exec succeeds."""
    if io.ctx.main:
        yield Sleep(None)
    return 0


COMMANDS: dict[str, Command] = {
    "trap": lambda args, io: _trap(args, io), "wait": lambda args, io: _wait(args, io),
    "true": _true, ":": _true, "false": _false, "exit": _exit, "echo": _echo, "sleep": _sleep,
    "cat": _cat, "stty": _stty, "tty": _tty, **{name: _shell for name in SHELLS},
}

# Busybox programs and shell builtins that exist in the usual images but are not modelled
# yet: running one succeeds with no output.
APPLETS = frozenset("""
    [ [[ . alias arp awk base64 env basename break brctl cd chgrp chmod chown chroot cksum clear cmp command
    continue cp crond cut date dd df diff dirname dmesg dnsdomainname du eval expand export expr fgrep find
    flock fold free fsync fuser getopt grep egrep groups gunzip gzip hash head hexdump hostid hostname id
    ifconfig install ip ipcmk ipcrm ipcs kill killall less ln local logger login logname ls lsof md5sum
    mkdir mkfifo mknod mktemp more mount mv nc netstat nice nohup nproc nslookup od passwd paste pgrep
    pidof ping pkill printenv printf ps pwd read readlink realpath renice reset return rev rm rmdir route
    sed seq set setsid sha1sum sha256sum sha512sum shift sort source split stat strings su sync sysctl tac
    tail tar tee test time timeout top touch tr traceroute truncate type ulimit umask umount uname
    uniq unset unzip uptime usleep vi watch wc wget which whoami xargs yes zcat
""".split())


MAX_LOOP_ROUNDS = 10_000  # a loop still going after this many rounds is taken to run until stopped


def run_statements(statements: Sequence[Statement], io: Io, status: int = 0) -> Process:
    """Run statements in order with the shell's `&&` / `||` rules, pipelines, background jobs
    and `while`/`until` loops included; the last status."""
    i = 0
    while i < len(statements):
        st = statements[i]
        i += 1
        if (st.connector == "&&" and status != 0) or (st.connector == "||" and status == 0):
            if st.argv and st.argv[0] in ("while", "until"):
                parts = loop_parts(statements, i - 1)
                i = parts[2] if parts else len(statements)
            while i < len(statements) and statements[i].connector == "|":
                i += 1  # the rest of a pipeline goes with its first command
            continue
        negate = bool(st.argv) and st.argv[0] == "!"  # `! PIPELINE`: the status turned over
        if negate:
            st = replace(st, argv=st.argv[1:])
        if not st.argv:
            status = 1 if negate else status
            continue
        if st.argv[0] not in ("while", "until"):  # (a loop's condition takes the pipes after it)
            stages = [st]
            while i < len(statements) and statements[i].connector == "|":
                stages.append(statements[i])
                i += 1
            if stages[-1].background:
                status = yield from _background(stages, io, status)
                continue
            if len(stages) > 1:
                status = yield from _pipeline(stages, io, status)
                status = int(status == 0) if negate else status
                continue
        if st.argv[0] in ("while", "until"):
            parts = loop_parts(statements, i - 1)
            if parts is None:
                yield from io.error(f"{io.shell}: syntax error: unexpected end of file (expecting \"done\")\n")
                return 2
            cond, body, i = parts
            status = 0
            for _ in range(MAX_LOOP_ROUNDS):
                if ((yield from run_statements(cond, io, status)) == 0) == (st.argv[0] == "until"):
                    break
                status = yield from run_statements(body, io, status)
            else:
                yield Sleep(None)
            continue
        if st.subs and any(SUB in w for w in st.argv):
            argv = []
            for word in st.argv:
                substituted = False
                for marker, script in st.subs.items():
                    if marker in word:
                        word = word.replace(marker, (yield from _substitute(script, io, status)))
                        substituted = True
                if word or not substituted:  # an unquoted substitution that gives nothing is no word
                    argv.append(word)
            if not argv:
                continue
            st = replace(st, argv=argv)
        if io.ctx.userland is not None:
            env = io.ctx.userland().env()
            env["?"] = str(status)
            st = replace(st, argv=[_expand(w, env) for w in st.argv], to_file=literal(_expand(st.to_file, env)),
                         err_file=literal(_expand(st.err_file, env)))
            if st.err_file and st.err_file != st.to_file:
                yield LOOK
                try:
                    io.ctx.userland().write(st.err_file, b"")
                except Exception as exc:  # the userland's FileError
                    yield from io.error(f"{io.shell}: can't create {st.err_file}: {getattr(exc, 'reason', exc)}\n")
                    status = 1
                    continue
            if st.to_file:
                yield LOOK  # it opens a file: now, not ahead of time
                try:
                    world = io.ctx.userland()
                    if st.append:
                        world.write(st.to_file, b"", append=True)
                    else:
                        world.write(st.to_file, b"")
                except Exception as exc:  # the userland's FileError: the shell cannot open the file
                    yield from io.error(f"{io.shell}: can't create {st.to_file}: {getattr(exc, 'reason', exc)}\n")
                    status = 1
                    continue
        if posixpath.basename(st.argv[0]) == "exit":
            yield from _exit(st.argv[1:], io.for_statement(st), status)  # raises _Exit
        status = yield from run_argv(st.argv, io.for_statement(st))
        status = int(status == 0) if negate else status
    return status


def _pipeline(stages: Sequence[Statement], io: Io, status: int) -> Process:
    """`a | b | c`: each command's output is the next one's input. One runs to its end before
    the next starts (a command that never ends holds the pipeline); the last one's status."""
    data: bytes | None = None
    for n, st in enumerate(stages):
        captured: list[str] = []
        stdin = io.stdin if data is None else Input(data, empty=True)
        stage = replace(io, stdin=stdin) if n == len(stages) - 1 else io.piped(stdin, captured)
        try:
            status = yield from run_statements([replace(st, connector=";")], stage, status)
        except _Exit as ex:  # `exit` ends only its own part of a pipeline
            status = ex.code
        data = "".join(captured).encode("utf-8", "surrogateescape")
    return status


def _background(stages: Sequence[Statement], io: Io, status: int) -> Process:
    """`a | b &`: what it writes comes now, the shell goes on at once with status 0; when it
    ends is noted (on the process's clock, for `wait` and an exec's end)."""
    job = [*stages[:-1], replace(stages[-1], background=False)]
    done = record(_pipeline(job, replace(io, stdin=Input(empty=True)), status), b"", lambda step: NO_NETWORK)
    for _, stream, text in done.outputs:
        yield Write(stream, text)
    io.jobs.append(float("inf") if done.end_ns is None else io.clock[0] + done.end_ns)
    return 0


def _wait(args: list[str], io: Io) -> Process:
    """`wait`: until the shell's background jobs have ended."""
    left = max(io.jobs, default=0) - io.clock[0]
    if left > 0:
        yield Sleep(None if left == float("inf") else int(left))
    return 0


def _substitute(script: str, io: Io, status: int) -> Generator[Step, Reply, str]:
    """The output of `$(script)`, trailing newlines dropped, as the shell substitutes it."""
    captured: list[str] = []
    if io.depth >= MAX_NESTING:
        yield from _too_deep(io)
        return ""
    try:
        statements = split_script(script)
    except UnknownSyntax:
        return ""
    try:
        yield from run_statements(statements, replace(io.piped(io.stdin, captured), depth=io.depth + 1), status)
    except _Exit:
        pass
    return "".join(captured).rstrip("\n")


_VAR = re.compile(r"\$(?:\{(\w+|\?)\}|(\w+|\?))")


def _expand(word: str, env: Mapping[str, str]) -> str:
    """`$NAME`, `${NAME}` and `$?` replaced from the environment (unset: empty)."""
    if "$" not in word:
        return word
    return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), ""), word)


def run_argv(argv: Sequence[str], io: Io) -> Process:
    """Run one program with its arguments."""
    words = strip_prefixes([literal(str(a)) for a in argv])
    if not words:
        return (yield from _unmodelled(io))
    name, args = posixpath.basename(words[0]), words[1:]
    # (the shell's own commands are not looked up, so `echo` or `sleep` build no userland)
    if name not in COMMANDS and io.ctx.userland is not None and io.ctx.userland().masked_program(words[0]):
        yield from io.error(f"{io.shell}: {words[0]}: Permission denied\n")
        return 126
    if words[0] in io.functions:
        return (yield from _function(words[0], io))
    if name in SHELLS:
        io = replace(io, shell=words[0])
    command = io.ctx.commands.get(name)
    if command is not None:
        io = replace(io, argv0=words[0])
    else:
        command = COMMANDS.get(name)
    if command is not None:
        return (yield from command(args, io))
    if io.ctx.main:
        return (yield from _unmodelled(io))  # as a container's command, whatever it is, it runs on
    if name in APPLETS:
        return 0
    yield from io.error(f"{io.shell}: {words[0]}: not found\n")
    return 127


def _function(name: str, io: Io) -> Process:
    """A call of one of the shell's functions: its body runs in this shell (an `exit` in it ends
    the shell)."""
    inner = io.nested()
    if inner is None:
        return (yield from _too_deep(io))
    try:
        statements = split_script(io.functions[name])
    except UnknownSyntax:
        return (yield from _unmodelled(io))
    return (yield from run_statements(statements, inner))


TERM_SIGNALS = frozenset({"TERM", "SIGTERM", "15"})
AT_SIGNAL = -1  # `$?` in a trap's dry run: the status of the moment the signal comes, not known yet


def _trap(args: list[str], io: Io) -> Process:
    """`trap ACTION SIGNAL...`: for SIGTERM, the process now takes the signal by running ACTION.
    How long that takes and how it exits is worked out here (without touching anything);
    what it does inside runs when the signal comes (the Trap step carries it). Whether the
    signal reaches the shell at all is sim/signals.py's to say."""
    if len(args) < 2 or not TERM_SIGNALS & {a.upper() for a in args[1:]}:
        return 0
    action = args[0]
    if action in ("", "-"):
        yield Trap(None, 0)  # ignored (""), or back to the default, which PID 1 never gets either
        return 0
    dry = Io(Context(), Input(empty=True), None, functions=io.functions)
    exited: list[int] = []
    done = record(_handler(action, dry, exited), b"", lambda step: NO_NETWORK)
    defs = "".join(f"{name}() {{\n{body}\n}}\n" for name, body in io.functions.items())
    # An action that does not exit lets the shell go on: the signal changes nothing but what it did.
    delay = done.end_ns if exited else None
    code = None if not exited or exited[0] == AT_SIGNAL else exited[0] & 0xFF
    yield Trap(delay, code, (io.shell, "-c", defs + action))
    return 0


def _handler(action: str, io: Io, exited: list[int]) -> Process:
    """The trap's action as a process; `exited` gets the code it exits the shell with, if it does."""
    try:
        return (yield from run_statements(split_script(action), io, AT_SIGNAL))
    except _Exit as ex:
        exited.append(ex.code)
        return 0
    except UnknownSyntax:
        return 0


def _run_top(argv: Sequence[str], io: Io) -> Process:
    try:
        return (yield from run_argv(argv, io))
    except _Exit as ex:  # `exit N` given as the command itself
        return ex.code


def _top(argv: Sequence[str], io: Io) -> Process:
    """The process: its steps pass through, its sleeps counted on its clock. When it ends
    with background jobs still running, an exec's output stays open until they end (the
    runtime waits for it); a container's own command ends its jobs with it."""
    inner = _run_top(argv, io)
    try:
        step = inner.send(None)
        while True:
            if isinstance(step, Sleep) and step.ns:
                io.clock[0] += step.ns
            try:
                reply = yield step
            except GeneratorExit:
                inner.close()
                raise
            except BaseException as exc:  # Ctrl-C thrown in by a live driver
                step = inner.throw(exc)
                continue
            step = inner.send(reply)
    except StopIteration as done:
        code = int(done.value or 0)
    left = max(io.jobs, default=0) - io.clock[0]
    if left > 0 and not io.ctx.main:
        yield Sleep(None if left == float("inf") else int(left))
    return code


# ---------------------------------------------------------------- drivers


def spawn(argv: Sequence[str], ctx: Context | None = None) -> Process:
    """The process `argv` would be, reading its input through `READ` steps."""
    return _top(argv, Io(ctx or Context(), Input()))


def trace(argv: Sequence[str], stdin: bytes | None = b"", *, main: bool = False) -> Trace:
    """What `argv` does, at once. `main`: it is a container's own command (see Context)."""
    return record(spawn(argv, Context(main=main)), stdin)
