"""The tree walk: each node of a parsed script run as a process (a generator of steps)
against a `Shell`'s state. `run(node, sh)` gives the node's exit status and leaves it in
`sh.status`. Builtins (fakecri.sim.shell.builtins) and the commands of the table
(fakecri.sim.shell.session.find_command) are what simple commands run.
"""
from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import replace

from fakecri.sim.shell import ast, hooks, jobs, redirect
from fakecri.sim.shell import expand as expansion
from fakecri.sim.shell.expand import expand_pattern, expand_string, expand_words
from fakecri.sim.shell.io import IGNORED_BY_DEFAULT, KILLED, MAX_NESTING, Input, Io, ShellExit
from fakecri.sim.shell.pattern import matches
from fakecri.sim.shell.state import Break, Continue, Return, Shell, ShellError
from fakecri.sim.steps import LOOK, Process, Reply, Sleep, Step

MAX_LOOP_ROUNDS = 100_000  # a loop still going after this many rounds without time passing: taken as endless
Runner = Callable[[ast.Node, Shell], Process]


def run(node: ast.Node, sh: Shell) -> Process:
    status = yield from _RUN[type(node)](node, sh)
    sh.status = status
    if sh.signals and not sh.subshell:
        yield from take_signals(sh)
    return status


def take_signals(sh: Shell) -> Process:
    """The signals the shell's subshells sent it, once its command is done (as ash runs a trap after
    its foreground command): each one's trap, or the shell dies of it."""
    while sh.signals:
        name, number = sh.signals.pop(0)
        yield from take_signal(sh, name, number)
    return 0


def take_signal(sh: Shell, name: str, number: int) -> Process:
    """Signal `name` (number `number`) reaches the shell: its trap runs with `$?` kept, an empty
    trap ignores it, and with no trap the shell dies of it (but of CHLD, URG, WINCH and CONT,
    which are ignored by default)."""
    action = sh.traps.get(name)
    if action == "" or (action is None and name in IGNORED_BY_DEFAULT):
        return 0
    if action is None:
        raise ShellExit(KILLED | 128 + number)  # (it dies of the signal: its parent says so)
    saved, outer = sh.status, sh.trap_status
    sh.trap_status = saved
    try:
        yield from run_text(action, sh)
    finally:
        sh.status, sh.trap_status = saved, outer
    return 0


def run_guarded(node: ast.Node, sh: Shell) -> Process:
    """`run` for a whole script: a fatal error ends it with its message and status."""
    try:
        return (yield from run(node, sh))
    except ShellError as exc:
        yield from (exc.io or sh.io).error(f"{sh.name}: {exc.message}\n")
        raise ShellExit(exc.code) from None


def _sequence(node: ast.Sequence, sh: Shell) -> Process:
    status = sh.status
    for item, background in node.items:
        if background:
            status = yield from _background(item, sh)
        else:
            status = yield from run(item, sh)
    return status


def _background(node: ast.Node, sh: Shell) -> Process:
    child = sh.copy()
    child.io = replace(sh.io, stdin=Input(empty=True))
    child.job_command = isinstance(node, ast.Simple)
    pid = yield from jobs.ask(jobs.spawn_step(subshell(node, child), background=True))
    if pid > 0:
        sh.last_bg = pid
        sh.jobs.append(pid)
        taken = set(sh.job_numbers.values())
        sh.job_numbers[pid] = next(n for n in range(1, len(taken) + 2) if n not in taken)
        return 0
    yield from sh.io.error(f"{sh.name}: can't fork\n")
    return 2


def subshell(node: ast.Node, sh: Shell) -> Process:
    """`node` run in `sh` (already a copy) as a process of its own: `exit` ends only it."""
    try:
        status = yield from run_guarded(node, sh)
    except ShellExit as ex:
        status = ex.code & 0xFF
    except (Break, Continue):
        status = sh.status
    except Return as r:
        status = r.code
    except RecursionError:
        yield from sh.io.error(f"{sh.name}: the script nests too deep\n")
        status = 2
    if sh.pushed and sh.traps.get("EXIT"):
        sh.io = redirect.unwound(sh)
    status = yield from run_exit_trap(sh, status)
    return status & 0xFF


def run_exit_trap(sh: Shell, status: int) -> Generator[Step, Reply, int]:
    action = sh.traps.pop("EXIT", "")
    if not action:
        return status
    from fakecri.sim.shell.parser import parse

    sh.status, sh.trap_status = status, status
    try:
        yield from run(parse(action), sh)
    except ShellExit as ex:
        return ex.code
    except Exception:  # a syntax error in the action, or a fatal error in it: the status stays
        return status
    return status


def _and_or(node: ast.AndOr, sh: Shell) -> Process:
    sh.errexit_off += 1
    try:
        status = yield from run(node.first, sh)
    finally:
        sh.errexit_off -= 1
    for n, (op, item) in enumerate(node.rest):
        if (op == "&&") != (status == 0):
            continue
        last = n == len(node.rest) - 1
        if not last:
            sh.errexit_off += 1
        try:
            status = yield from run(item, sh)
        finally:
            if not last:
                sh.errexit_off -= 1
    return status


def _pipeline(node: ast.Pipeline, sh: Shell) -> Process:
    if node.negate:
        sh.errexit_off += 1
    try:
        if len(node.commands) == 1:
            status = yield from run(node.commands[0], sh)
        else:
            status = yield from _stages(node.commands, sh)
    finally:
        if node.negate:
            sh.errexit_off -= 1
    if node.negate:
        return int(status == 0)
    _errexit(sh, status)
    return status


def _stages(commands: tuple[ast.Node, ...], sh: Shell) -> Process:
    """`a | b | c`: each stage a process of its own, running at the same time; each reads
    what the one before writes. The status is the last one's (with pipefail: the last
    failing one's)."""
    pids: list[int] = []
    pipe_in: jobs.Pipe | None = None
    for n, command in enumerate(commands):
        last = n == len(commands) - 1
        pipe_out = None if last else jobs.Pipe()
        child = sh.copy()
        child.jobs, child.job_numbers = list(sh.jobs), dict(sh.job_numbers)  # (ash: `jobs | cat` lists them)
        io = sh.io
        if pipe_in is not None:
            io = replace(io, stdin=Input())
        if pipe_out is not None:
            io = replace(io, out="stdout", to_file="", capture=jobs.PipeWriter(pipe_out))
        child.io = io
        pid = yield from jobs.ask(jobs.spawn_step(subshell(command, child), pipe_in, pipe_out))
        if pid <= 0:
            yield from sh.io.error(f"{sh.name}: can't fork\n")
            return 2
        pids.append(pid)
        pipe_in = pipe_out
    statuses = []
    for pid in pids:
        statuses.append(max(0, (yield from jobs.ask(jobs.WaitFor(0, (pid,))))))
    if "pipefail" in sh.options:
        return next((s for s in reversed(statuses) if s), 0)
    return statuses[-1]


def _errexit(sh: Shell, status: int) -> None:
    if status and "e" in sh.options and not sh.errexit_off:
        raise ShellExit(status)


def _subshell(node: ast.Subshell, sh: Shell) -> Process:
    child = sh.copy()
    status = yield from subshell(node.body, child)
    _errexit(sh, status)
    return status


def _group(node: ast.Group, sh: Shell) -> Process:
    return (yield from run(node.body, sh))


def _condition(node: ast.Node, sh: Shell) -> Process:
    sh.errexit_off += 1
    try:
        return (yield from run(node, sh))
    finally:
        sh.errexit_off -= 1


def _if(node: ast.If, sh: Shell) -> Process:
    for cond, body in node.branches:
        if (yield from _condition(cond, sh)) == 0:
            return (yield from run(body, sh))
    if node.otherwise is not None:
        return (yield from run(node.otherwise, sh))
    return 0


def _loop(node: ast.Loop, sh: Shell) -> Process:
    status = 0
    sh.loops += 1
    since = -1  # when time last passed, on the process's clock
    try:
        rounds = 0
        while rounds < MAX_LOOP_ROUNDS:
            if rounds:
                yield LOOK  # between rounds: a plan worked out ahead goes on live here once time has passed
            if rounds % 1000 == 0:
                now = yield from jobs.ask(jobs.Now(0))
                if now != since:
                    since, rounds = now, 0  # time passes: the loop is no busy one
            rounds += 1
            if ((yield from _condition(node.cond, sh)) == 0) == node.until:
                break
            try:
                status = yield from run(node.body, sh)
            except Continue as c:
                if c.n > 1:
                    c.n -= 1
                    raise
            except Break as b:
                if b.n > 1:
                    b.n -= 1
                    raise
                break
        else:
            yield from sh.io.error(f"{sh.name}: a loop ran {MAX_LOOP_ROUNDS} rounds in no time: taken as endless\n")
            yield Sleep(None)
    finally:
        sh.loops -= 1
    return status


def _for(node: ast.For, sh: Shell) -> Process:
    values = list(sh.positional) if node.words is None else (yield from expand_words(node.words, sh))
    status = 0
    sh.loops += 1
    try:
        for value in values:
            sh.set(node.name, value)
            try:
                status = yield from run(node.body, sh)
            except Continue as c:
                if c.n > 1:
                    c.n -= 1
                    raise
            except Break as b:
                if b.n > 1:
                    b.n -= 1
                    raise
                break
    finally:
        sh.loops -= 1
    return status


def _case(node: ast.Case, sh: Shell) -> Process:
    subject = yield from expand_string(node.word, sh)
    for pats, body in node.items:
        for pat in pats:
            if matches((yield from expand_pattern(pat, sh)), subject):
                return (yield from run(body, sh)) if body is not None else 0
    return 0


def _test(node: ast.Test, sh: Shell) -> Process:
    from fakecri.sim.shell.testing import double_bracket

    if not node.closed:
        yield from sh.io.error(f"{sh.name}: missing ]]\n")
        return 2
    return (yield from double_bracket(node.words, sh))


def _funcdef(node: ast.FuncDef, sh: Shell) -> Process:
    sh.functions[node.name] = node
    sh.function_aliases[node.name] = sh.line_aliases
    return 0
    yield


def _redirected(node: ast.Redirected, sh: Shell) -> Process:
    io = yield from redirect.apply(node.redirs, sh, sh.io)
    if io is None:
        return 1
    # (a subshell's own redirections are made in it, not pushed: nothing to put back)
    added = [] if isinstance(node.body, ast.Subshell) else redirect.push(node.redirs, sh)
    saved, sh.io = sh.io, io
    try:
        return (yield from run(node.body, sh))
    finally:
        sh.io = saved
        redirect.pop(added, sh)


def _simple(node: ast.Simple, sh: Shell) -> Process:
    run_simple: Callable[[ast.Simple, Shell], Process] = hooks.get("simple")
    status = yield from run_simple(node, sh)
    _errexit(sh, status)
    return status


def call_function(fn: ast.FuncDef, args: list[str], sh: Shell) -> Process:
    if sh.depth >= MAX_NESTING:
        raise ShellError(f"the script nests functions, eval or $(...) more than {MAX_NESTING} deep")
    saved = sh.positional
    sh.positional = list(args)
    saved_getopts = sh.optind, sh.optoff  # ash's evalfun: getopts starts afresh in a function
    sh.optind, sh.optoff = 1, -1
    sh.locals.append({"FUNCNAME": sh.vars.get("FUNCNAME")})
    sh.vars["FUNCNAME"] = fn.name
    sh.calls += 1
    sh.depth += 1
    loops, sh.loops = sh.loops, 0
    line_aliases, sh.line_aliases = sh.line_aliases, sh.function_aliases.get(fn.name, sh.line_aliases)
    try:
        status = yield from run(fn.body, sh)
    except Return as r:
        status = r.code
    finally:
        sh.line_aliases = line_aliases
        sh.positional = saved
        sh.calls -= 1
        sh.depth -= 1
        sh.loops = loops
        sh.optind, sh.optoff = saved_getopts
        for name, value in sh.locals.pop().items():
            if value is None:
                sh.vars.pop(name, None)
            else:
                sh.vars[name] = value
            if name == "OPTIND":  # (a local OPTIND put back resets getopts, after the rest)
                sh.reset_getopts(value or "")
    return status


def command_substitution(body: ast.Node, sh: Shell) -> Generator[Step, Reply, str]:
    """The output of `$(...)`, its trailing newlines dropped; `$?` becomes its status."""
    if sh.depth >= MAX_NESTING:
        raise ShellError(f"the script nests functions, eval or $(...) more than {MAX_NESTING} deep")
    captured: list[str] = []
    child = sh.copy()
    if isinstance(body, ast.Simple) and body.words and body.words[0].literal() == "jobs":
        child.jobs, child.job_numbers = list(sh.jobs), dict(sh.job_numbers)  # ash's "job hack": `$(jobs)`
    child.depth += 1
    # ash's evalbackcmd turns `set -e` off in it (as bash does), and a condition outside does not carry in
    child.options.discard("e")
    child.errexit_off = 0
    child.io = replace(sh.io, out="stdout", to_file="", capture=captured)
    status = yield from subshell(body, child)
    sh.sub_status = status  # (`$?` changes only once the command is done: an assignment's status)
    sh.substitutions += 1
    return "".join(captured).rstrip("\n")


expansion.substitute = command_substitution

_RUN: dict[type, Callable[..., Process]] = {
    ast.Sequence: _sequence, ast.AndOr: _and_or, ast.Pipeline: _pipeline, ast.Subshell: _subshell,
    ast.Group: _group, ast.If: _if, ast.Loop: _loop, ast.For: _for, ast.Case: _case, ast.Test: _test,
    ast.FuncDef: _funcdef, ast.Redirected: _redirected, ast.Simple: _simple,
}


def run_text(text: str, sh: Shell, source: str = "") -> Process:
    """Parse and run a script's text in `sh` (eval, `.`, a trap's action) line by line, as ash
    reads it: the lines before a syntax error run. The error names `source` as ash does
    (`eval: line N:`, counted from the eval's own line; `FILE: line N:` for `.`)."""
    from fakecri.sim.shell.parser import parse_lines

    nodes, error = parse_lines(text)
    first = sh.line
    status = 0
    outer = sh.line_aliases, sh.source, sh.line_base
    if source:
        sh.source, sh.line_base = source, first if source == "eval" else 1
    try:
        for node in nodes:
            sh.line_aliases = dict(sh.aliases)
            status = yield from run(node, sh)
    except ShellError as exc:
        if source and not exc.placed:  # (its message says where, as ash's does inside eval and `.`)
            exc.message, exc.placed = sh.where() + exc.message, True
        raise
    finally:
        sh.line_aliases, sh.source, sh.line_base = outer
    if error is not None:
        where = f"eval: line {first + error.line - 1}: " if source == "eval" else \
            f"{source}: line {error.line}: " if source else ""
        raise ShellError(f"{where}syntax error: {error.message}")
    return status


def as_io(sh: Shell) -> Io:
    return sh.io
