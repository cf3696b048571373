"""Where a process starts: the shell as a program (`sh -c SCRIPT`, `sh FILE`, an
interactive `sh` reading lines), the table of commands the shell itself provides
(`COMMANDS`), how a name is looked up (`find_command`, `run_argv`), and the refusal of
what fakecri does not model.

Lookup of a program name: the context's commands (the container's userland commands and
the programs fakecri knows, fakecri.sim.programs), then `COMMANDS`. A name neither
names fails as busybox would: a busybox applet fakecri does not model is refused
(`sh: NAME: not modelled by fakecri`, 127, counted by `Context.refused`), any other name is
`sh: NAME: not found`, 127. A container's own command is the exception for programs that
are not busybox's: fakecri cannot see into them (`nginx`, the user's app), so they run
until stopped.
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
import posixpath
from collections.abc import Generator, Mapping, Sequence
from dataclasses import replace

from fakecri.sim.shell import ast, hooks, search, simple
from fakecri.sim.shell.builtins import BUILTINS, SPECIAL
from fakecri.sim.shell.builtins_jobs import DEAD
from fakecri.sim.shell.interp import run, run_exit_trap, run_guarded
from fakecri.sim.shell.io import KILLED, MAX_NESTING, Command, Interrupted, Io, ShellExit
from fakecri.sim.shell.lexer import ShellSyntaxError, is_name
from fakecri.sim.shell.names import BUSYBOX_APPLETS
from fakecri.sim.shell.parser import parse_incremental, parse_lines
from fakecri.sim.shell.state import Break, Return, Shell, ShellError
from fakecri.sim.shell.tools import COMMANDS as TOOLS
from fakecri.sim.steps import LOOK, Process, Reply, Sleep, Step

SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})
PROMPT = "/ # "  # busybox sh's prompt for root in /
PS2 = "> "
NOT_MODELLED = "not modelled by fakecri"  # the one wording of a refusal
# ash builtins fakecri does not model: refused as applets are
UNMODELLED_BUILTINS = frozenset({"help"})


def refuse(name: str, io: Io, shell: str = "") -> Process:
    """A program, builtin or construct fakecri does not model: one line on stderr, 127, counted."""
    if io.ctx.refused is not None:
        try:
            io.ctx.refused(name)
        except Exception:  # a counter that fails must not end the process
            pass
    yield from io.error(f"{shell or io.shell}: {name}: {NOT_MODELLED}\n")
    return 127


def find_command(name: str, io: Io) -> Command | None:
    base = posixpath.basename(name)
    command = io.ctx.commands.get(base)
    if command is not None:
        return command
    return COMMANDS.get(base) or _applets().get(base)


@functools.cache
def _applets() -> Mapping[str, Command]:
    """busybox's applets as fakecri.sim.applets models them (they work outside a container too),
    once that package is there."""
    if importlib.util.find_spec("fakecri.sim.applets") is None:
        return {}
    table: Mapping[str, Command] = getattr(importlib.import_module("fakecri.sim.applets"), "APPLET_COMMANDS", {})
    return table


NOT_FOUND = "No such file or directory"
DENIED = "Permission denied"


def cannot_run(io: Io, name: str, reason: str) -> str:
    """What is said of a program that cannot be run: the shell's `sh: NAME: not found` (or
    `Permission denied`), or the message of the applet that execs it itself (`env: can't execute
    'NAME': No such file or directory`, xargs' `xargs: NAME: ...`)."""
    if io.exec_by == "xargs":
        return f"xargs: {name}: {reason}\n"
    if io.exec_by:
        return f"{io.exec_by}: can't execute '{name}': {reason}\n"
    return f"{io.shell}: {io.where}{name}: {'not found' if reason == NOT_FOUND else reason}\n"


def run_argv(argv: Sequence[str], io: Io) -> Process:
    """Run one program with its arguments, looked up by name (the context's commands, the
    shell's table); not the shell's functions or builtins."""
    return (yield from _program([str(a) for a in argv], io, top=False))


def _top_argv(argv: Sequence[str], io: Io) -> Process:
    try:
        status = yield from _program([a if isinstance(a, str) else str(a) for a in argv], io, top=True)
        return status & 0xFF
    except ShellExit as ex:
        return ex.code & 0xFF


def _strip(words: list[str]) -> tuple[list[str], dict[str, str], str]:
    """`env [NAME=V]... CMD`, `busybox CMD`, `exec CMD` as the program they run (and the env it
    gets, and "env" when env is the one that execs it)."""
    env: dict[str, str] = {}
    by = ""
    while words:
        head = posixpath.basename(words[0])
        if head in ("busybox", "exec") and len(words) > 1:
            words = words[1:]
            continue
        if head == "env" and len(words) > 1:
            i = 1
            while i < len(words) and "=" in words[i] and is_name(words[i].split("=", 1)[0]):
                i += 1
            # options (-i, -u NAME, ...) are the env applet's own to read: only a plain `env NAME=V... CMD` is a prefix
            if i < len(words) and not words[i].startswith("-"):
                for w in words[1:i]:
                    k, _, v = w.partition("=")
                    env[k] = v
                words = words[i:]
                by = "env"
                continue
        break
    return words, env, by


def _program(words: list[str], io: Io, top: bool, in_script: bool = False,
             path: str | None = None, sh: Shell | None = None) -> Process:
    """`words` run as a program: by its name from the tables, else from the container's files (a
    path, or a search of `path`: the environment's PATH when None; `sh`: the shell whose `hash`
    table the search uses)."""
    words, env, by = _strip(words)
    if by:
        io = replace(io, exec_by=by)
    if not words:
        if io.ctx.main:
            yield Sleep(None)
        return 0
    if env and io.environ is not None:
        base = io.environ
        io = replace(io, environ=lambda: {**base(), **env})
    elif env:
        io = replace(io, environ=lambda: {**_container_env(io), **env})
    name = posixpath.basename(words[0])
    if name not in COMMANDS and io.ctx.userland is not None and io.ctx.userland().masked_program(words[0]):
        yield from io.error(cannot_run(io, words[0], DENIED))
        return 126
    command = io.ctx.commands.get(name)
    if command is not None:
        io = replace(io, argv0=words[0])
    else:
        command = COMMANDS.get(name) or _applets().get(name)
    if command is not None and "/" in words[0] and (name in COMMANDS or name in BUSYBOX_APPLETS) \
            and not _applet_path(words[0], io):
        command = None  # (`./ls`, `/opt/x/ls`: a path that leads to no file runs no applet)
    if name in SHELLS:
        io = replace(io, shell=words[0])
    if command is not None:
        if io.exec_by:
            io = replace(io, exec_by="")
        return (yield from command(words[1:], io))
    if "/" in words[0] and io.ctx.userland is not None:
        ran = yield from _file_program(words, io)
        if ran is not None:
            return ran
    elif io.ctx.userland is not None:
        along = env["PATH"] if "PATH" in env else path if path is not None else _environ(io).get("PATH", "")
        ran = yield from _path_program(words, io, along, None if "PATH" in env else sh)
        if ran is not None:
            return ran
    if "/" in words[0] and name in BUSYBOX_APPLETS and not (io.ctx.main and top):
        yield from io.error(cannot_run(io, words[0], NOT_FOUND))
        return 127
    if io.ctx.main and (top or name not in BUSYBOX_APPLETS):
        yield Sleep(None)  # a program fakecri cannot see into: as a container's command, it runs on
        return 0
    if name in BUSYBOX_APPLETS or name in UNMODELLED_BUILTINS:
        return (yield from refuse(name, io))
    yield from io.error(cannot_run(io, words[0], NOT_FOUND))
    return 127


# where an image keeps its programs: a path there to one of busybox's applets is the applet, whether
# or not the container's files show it
SYSTEM_BIN = frozenset({"/bin", "/sbin", "/usr/bin", "/usr/sbin"})


def _applet_path(path: str, io: Io) -> bool:
    """Whether `path` leads to a program of the tables: one of the system's bin directories, or a
    file the container has there (a link to busybox, a copy)."""
    if posixpath.dirname(posixpath.normpath(path)) in SYSTEM_BIN or io.ctx.userland is None:
        return True
    cwd = io.cwd or getattr(getattr(io.ctx.userland(), "spec", None), "working_dir", "") or "/"
    return search.kind(path, io, cwd) != ""


def path_of(name: str, sh: Shell) -> str | None:
    """Where a search of the shell's PATH finds `name` (noted in its `hash` table), for `type`,
    `command -v` and `hash`; None when no directory holds it."""
    if sh.io.ctx.userland is None or "/" in name:
        return None
    path = sh.get("PATH") or ""
    start = search.find(name, sh.io, sh.cwd(), path, sh)
    return None if start is None else search.joined(search.directories(path)[start], name)


def _environ(io: Io) -> dict[str, str]:
    return io.environ() if io.environ is not None else _container_env(io)


def _path_program(words: list[str], io: Io, path: str | None, sh: Shell | None) -> Generator[Step, Reply, int | None]:
    """A name no table knows, searched for along `path` in the container's files (search.py): what
    running the file it finds gives, None when no directory holds one."""
    name = words[0]
    yield LOOK
    cwd = io.cwd or (sh.cwd() if sh is not None else "") or "/"
    start = search.find(name, io, cwd, path, sh)
    if start is None:
        return None
    full, denied = search.runnable(name, start, io, cwd, path)
    if full is None:
        if not denied:
            return None
        yield from io.error(cannot_run(io, name, DENIED))
        return 126
    ran = yield from _file_program([full, *words[1:]], io)
    if ran is not None:
        return ran
    if io.ctx.main:
        yield Sleep(None)  # a binary fakecri cannot see into: as a container's command, it runs on
        return 0
    return (yield from refuse(name, io))


def _file_program(words: list[str], io: Io) -> Generator[Step, Reply, int | None]:
    """A path to one of the container's files that no table names: a script runs (`#!` a shell,
    or no `#!` line: as sh does); a file it may not execute is `Permission denied` (126); None
    when there is no such file (or a binary fakecri cannot see into)."""
    assert io.ctx.userland is not None
    yield LOOK
    world = io.ctx.userland()
    path = words[0]
    try:
        if not world.exists(path) or world.is_dir(path):
            if world.is_dir(path):
                yield from io.error(cannot_run(io, path, DENIED))
                return 126
            return None
        if not world.may(path, 1):
            yield from io.error(cannot_run(io, path, DENIED))
            return 126
        text = world.read(path).decode("utf-8", "surrogateescape")
    except Exception:  # the userland's FileError: as a file not there
        return None
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        # (as the kernel reads the line: the interpreter, then at most one argument, all the rest)
        interpreter = first[2:].strip().split(None, 1)
        if not interpreter or posixpath.basename(interpreter[0]) not in SHELLS or len(interpreter) > 1:
            return (yield from _program([*interpreter, *words], io, top=False))
    elif "\x00" in text[:512]:
        return None  # a binary
    sh = new_shell(io, path)
    sh.positional = words[1:]
    return (yield from run_script(text, sh))


def _container_env(io: Io) -> dict[str, str]:
    if io.ctx.userland is None:
        return {}
    env: dict[str, str] = io.ctx.userland().env()
    return env


# applets that ash runs as builtins of its own when a command names them (busybox's printf,
# echo and test are both): their messages then start with the shell's name
ASH_BUILTIN_APPLETS = frozenset({"printf", "echo", "test", "["})


def external(argv: list[str], sh: Shell, env: Mapping[str, str], replacing: bool = False) -> Process:
    """A simple command's program (not a builtin or function), from the interpreter."""
    name = posixpath.basename(argv[0])
    if name in UNMODELLED_BUILTINS and name not in sh.io.ctx.commands:
        return (yield from refuse(name, sh.io, sh.name))
    cwd = sh.vars.get("PWD", sh.io.cwd)
    io = replace(sh.io, shell=sh.name, environ=lambda: {**sh.environ(), **env}, cwd=cwd,
                 builtin=argv[0] in ASH_BUILTIN_APPLETS, umask=sh.umask(),
                 where=f"exec: line {sh.line}: " if replacing else sh.where())  # (ash: exec's own message)
    own = not any(k == "PATH" for k in env)
    proc = _program(argv, io, top=False, in_script=True, path=(sh.get("PATH") or "") if own else env["PATH"],
                    sh=sh if own else None)
    if cwd and io.ctx.userland is not None:
        proc = in_directory(proc, io, cwd)
    status = yield from proc
    if status & KILLED:  # as ash reports a foreground command a signal ended (not INT, not PIPE)
        status &= 0xFF
        if status - 128 not in (2, 13) and not sh.job_command:
            yield from io.error(DEAD.get(status, f"Signal {status - 128}") + "\n")
    return status


def in_directory(proc: Process, io: Io, cwd: str) -> Process:
    """`proc` with the container's relative paths taken from `cwd` (the shell's directory after a
    `cd`): around each of its steps, the userland's working directory is `cwd`. (Steps of other
    processes never run in between: each step is one call.)"""
    assert io.ctx.userland is not None
    world = io.ctx.userland()
    spec = getattr(world, "spec", None)
    if spec is None or getattr(spec, "working_dir", "") == cwd:
        return (yield from proc)
    moved = replace(spec, working_dir=cwd)
    reply: Reply = None
    while True:
        before = world.spec
        world.spec = moved
        try:
            step = proc.send(reply)
        except StopIteration as done:
            return int(done.value or 0)
        finally:
            world.spec = before
        try:
            reply = yield step
        except GeneratorExit:
            proc.close()
            raise
        except BaseException as exc:  # Ctrl-C: into the program, in its directory
            world.spec = moved
            try:
                step = proc.throw(exc)
            except StopIteration as done:
                return int(done.value or 0)
            finally:
                world.spec = before
            reply = yield step


# ---------------------------------------------------------------- the shell as a program


def _too_deep(io: Io) -> Process:
    yield from io.error(f"{io.shell}: the script nests shells or $(...) more than {MAX_NESTING} deep\n")
    return 2


def new_shell(io: Io, name: str) -> Shell:
    environ = io.environ
    loader = environ if environ is not None else (
        (lambda: _container_env(io)) if io.ctx.userland is not None else None)
    pid = 1 if io.ctx.main and io.depth <= 1 else 10 + io.depth  # (its jobs get 101 and up)
    sh = Shell(io=io, name=name, env_loader=loader, pid=pid)
    sh.vars["PPID"] = "0" if pid == 1 or io.depth <= 1 else str(10 + io.depth - 1)  # (the runtime is outside)
    sh.vars["OPTIND"] = "1"  # (ash's varinit)
    return sh


def shell(args: list[str], io: Io) -> Process:
    """`sh [-eux...] -c SCRIPT [NAME [ARGS...]]`, `sh FILE [ARGS...]`, or `sh` / `sh -s` reading
    its input."""
    inner = io.nested()
    if inner is None:
        return (yield from _too_deep(io))
    io = inner
    options: set[str] = set()
    command_mode = False
    rest = list(args)
    while rest and len(rest[0]) > 1 and rest[0][0] in "-+" and rest[0] != "--":
        arg = rest.pop(0)
        if arg in ("-o", "+o") and rest:
            opt = rest.pop(0)
            if opt == "pipefail" and arg == "-o":
                options.add("pipefail")
            continue
        for c in arg[1:]:
            if c == "c":
                command_mode = True
            elif c in "efuxvnaCs" and arg[0] == "-":
                options.add(c)
    if rest and rest[0] == "--":
        rest.pop(0)
    sh = new_shell(io, io.shell)
    if io.inbox.traps is None:  # the process's own shell: a signal from outside comes to it
        io.inbox.traps, io.inbox.pending = sh.traps, sh.signals
    sh.options |= options
    if command_mode:
        if not rest:
            yield from io.error(f"{io.shell}: -c requires an argument\n")
            return 2
        script = rest[0]
        if len(rest) > 1:
            sh.name = rest[1]
            sh.positional = rest[2:]
        sh.command_mode = True
        return (yield from run_script(script, sh, last_in_place=True))
    if rest and "s" not in options:
        return (yield from _script_file(rest[0], rest[1:], sh))
    sh.positional = rest
    return (yield from interactive(sh))


def run_script(script: str, sh: Shell, last_in_place: bool = False) -> Process:
    """A whole script in `sh`: parse errors as ash reports them (exit 2), its EXIT trap at its end.
    `last_in_place`: the script's last command, a simple one that runs a program, runs it in the
    shell's place when the shell traps nothing then (ash's `sh -c` forks none for it), so a signal
    from outside goes to that program."""
    nodes, error = parse_lines(script)
    if last_in_place and nodes and error is None:
        last = nodes[-1]
        while isinstance(last, ast.Sequence) and not last.items[-1][1]:
            last = last.items[-1][0]
        sh.in_place = last if isinstance(last, ast.Simple) else None
    try:
        status = 0
        for node in nodes:
            if "n" in sh.options:  # -n (or `set -n`): commands are read, not run
                continue
            sh.line_aliases = dict(sh.aliases)
            status = yield from run_guarded(node, sh)
        if error is not None:
            # (a script file's message says the line, as ash's does; `sh -c`'s does not)
            where = "" if sh.command_mode else f"line {error.line}: "
            yield from sh.io.error(f"{sh.name}: {where}syntax error: {error.message}\n")
            status = 2
    except ShellExit as ex:
        status = ex.code
    except RecursionError:
        yield from sh.io.error(f"{sh.name}: the script nests too deep\n")
        status = 2
    killed = status & KILLED  # (a signal killed it: the shell that runs it reports that)
    status = yield from run_exit_trap(sh, status & 0xFF)
    return status & 0xFF | killed


def _script_file(path: str, args: list[str], sh: Shell) -> Process:
    io = sh.io
    if io.ctx.userland is None:
        if io.ctx.main:
            yield Sleep(None)  # a script file of a container fakecri cannot read here: it runs on
            return 0
        yield from io.error(f"{sh.name}: can't open '{path}': No such file or directory\n")
        return 2
    yield LOOK
    try:
        text = io.ctx.userland().read(path).decode("utf-8", "surrogateescape")
    except Exception:  # the userland's FileError
        yield from io.error(f"{sh.name}: can't open '{path}': No such file or directory\n")
        return 2
    sh.name = path
    sh.positional = args
    sh.line_base = 1  # (ash counts a file's lines from 1, `sh -c`'s from 0)
    return (yield from run_script(text, sh))


def _prompt(sh: Shell) -> str:
    """busybox's default prompt: the directory (HOME as ~), then `#`."""
    cwd = sh.vars.get("PWD")
    if not cwd:
        return PROMPT
    home = sh.get("HOME")
    if home and home != "/" and (cwd == home or cwd.startswith(home + "/")):
        cwd = "~" + cwd[len(home):]
    return f"{cwd} # "


def interactive(sh: Shell) -> Process:
    """Lines from the input, each complete command run as it arrives; on a terminal, the `/ # `
    prompt, and `> ` while a command is not complete yet."""
    # What someone types is answered: an unknown program is "not found", even in a container's shell.
    sh.io = Io(replace(sh.io.ctx, main=False), sh.io.stdin, sh.io.out, shell=sh.io.shell, depth=sh.io.depth,
               environ=sh.io.environ, inbox=sh.io.inbox)
    sh.interactive = sh.io.ctx.tty
    pending = ""
    status = 0
    while True:
        if sh.io.ctx.tty:
            yield from sh.io.write(PS2 if pending else _prompt(sh))
        try:
            line = yield from sh.io.stdin.readline()
            if line is None:
                if pending:
                    yield from sh.io.error(f"{sh.name}: syntax error: unexpected end of file\n")
                    status = 2
                break
            pending += line.decode("utf-8", "replace")
            try:
                node = parse_incremental(pending)
            except ShellSyntaxError as exc:
                if exc.at_end and pending.endswith("\n"):
                    continue  # more to come
                pending = ""
                yield from sh.io.error(f"{sh.name}: syntax error: {exc.message}\n")
                status = sh.status = 2
                continue
            pending = ""
            sh.line_aliases = dict(sh.aliases)
            try:
                status = yield from run(node, sh)
            except ShellError as exc:  # a fatal error ends the command, not an interactive shell
                yield from (exc.io or sh.io).error(f"{sh.name}: {exc.message}\n")
                status = sh.status = exc.code
            except (Break, Return):
                status = sh.status
        except ShellExit as ex:
            status = ex.code & 0xFF
            break
        except Interrupted:
            pending = ""
            # Ctrl-C: the line or the command is abandoned, the shell goes on (the terminal's line
            # discipline has already echoed `^C` and the new line: the shell adds none of its own)
            status = sh.status = 130
    status = yield from run_exit_trap(sh, status)
    return status & 0xFF


COMMANDS: dict[str, Command] = {**TOOLS, **{name: shell for name in SHELLS}}
# the builtins are the shell's, but a program can run `echo`, `true`... by name too


def _builtin_program(name: str) -> Command:
    return lambda args, io: _as_program(name, args, io)


for _name in ("echo", "true", "false", "kill", "test", "[", "pwd"):
    COMMANDS.setdefault(_name, TOOLS.get(_name) or _builtin_program(_name))


def _as_program(name: str, args: list[str], io: Io) -> Process:
    sh = new_shell(io, io.shell)
    try:
        return (yield from BUILTINS[name](args, sh))
    except ShellExit as ex:
        return ex.code & 0xFF
    except ShellError as exc:
        yield from io.error(f"{io.shell}: {exc.message}\n")
        return 2


hooks.simple = simple.simple
hooks.external = external
hooks.find_command = find_command
hooks.path_of = path_of
hooks.applet_path = _applet_path
hooks.builtins = BUILTINS
hooks.special = SPECIAL
