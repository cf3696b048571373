"""A simple command: its words expanded, its redirections made, its assignments done
(for the shell, or for the one command they prefix), then what its name names run: a
special builtin, a function, a builtin, or a command of the table (the session's lookup).
`set -x` traces it to standard error as ash does."""
from __future__ import annotations

import re
from dataclasses import replace

from fakecri.sim.shell import ast, hooks, redirect
from fakecri.sim.shell.builtins import BUILTINS, SPECIAL
from fakecri.sim.shell.expand import expand_string, expand_words
from fakecri.sim.shell.interp import call_function, run_text
from fakecri.sim.shell.io import CLOSED, Io
from fakecri.sim.shell.parser import RESERVED
from fakecri.sim.shell.state import Shell, ShellError
from fakecri.sim.steps import Process

FAILING = frozenset({CLOSED, "/dev/full"})  # standard outputs whose writes fail
_SAFE = re.compile(r"[\w@%+=:,./-]+")
_KEYWORDS = frozenset({"in", "select", "function", "time", "}", "]]"})


def quote(word: str) -> str:
    """A word as ash's `set -x` shows it (single quotes when it needs any, reserved words too)."""
    if not word or (_SAFE.fullmatch(word) and word not in RESERVED and word not in _KEYWORDS):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def simple(node: ast.Simple, sh: Shell) -> Process:
    sh.line = sh.line_base + node.line
    aliases = sh.aliases if sh.line_aliases is None else sh.line_aliases  # (as the line was read)
    if aliases and node.words and node.words[0].literal() in aliases and not sh.in_alias:
        return (yield from _aliased(node, sh, aliases))
    argv = (yield from expand_words(node.words, sh)) if node.words else []
    # as ash: the redirections are made before the assignments are expanded (`x=$(cmd) 2>/dev/null`
    # quiets cmd), and a `set -x` trace goes to the shell's own standard error
    io = sh.io
    if node.redirs:
        got = yield from redirect.apply(node.redirs, sh, sh.io)
        if got is None:
            return 1
        io = got
    values: list[tuple[str, str]] = []
    had_sub = False
    outer, sh.io = sh.io, io
    try:
        for name, word in node.assigns:
            subs = sh.substitutions
            values.append((name, (yield from expand_string(word, sh))))
            had_sub = had_sub or sh.substitutions != subs
            if not argv:
                sh.set(name, values[-1][1])  # (each is made before the next is expanded)
    except ShellError as exc:
        exc.io = exc.io or io  # (its message goes where the command's errors go)
        raise
    finally:
        if sh.io is io:
            sh.io = outer
    if "x" in sh.options and (values or argv):
        yield from outer.error("+ " + " ".join([f"{n}={quote(v)}" for n, v in values] + [quote(a) for a in argv])
                               + "\n")
    if not argv:
        return sh.sub_status if had_sub else 0
    if io.to_file in FAILING:
        io = replace(io, failed=[])  # (a write there fails: noted, then told as busybox tells it)
        return (yield from _closed_stdout(node, sh, io, argv, values))
    return (yield from _run(node, sh, io, argv, values))


def _run(node: ast.Simple, sh: Shell, io: Io, argv: list[str], values: list[tuple[str, str]]) -> Process:
    """What the command's name names, run with `io` (its redirections made) and its assignments."""
    name = argv[0]
    special = name in SPECIAL
    added = redirect.push(node.redirs, sh) if node.redirs else []
    saved_io, sh.io = sh.io, io
    try:
        if special:
            for var, value in values:
                sh.set(var, value)
            return (yield from BUILTINS[name](argv[1:], sh))
        fn = sh.functions.get(name)
        if fn is not None or name in BUILTINS:
            restore = _prefix(values, sh)
            try:
                if fn is not None:
                    return (yield from call_function(fn, argv[1:], sh))
                return (yield from BUILTINS[name](argv[1:], sh))
            finally:
                _restore(restore, sh)
        env = dict(values)
        if node is sh.in_place and not sh.traps:  # ash runs it in its own place: signals from outside are its
            sh.io.inbox.hand_over(sh.traps)
        return (yield from hooks.run_external(argv, sh, env))
    finally:
        if sh.io is io:
            sh.io = saved_io  # (`exec >file` leaves its descriptors for the rest of the script)
        redirect.pop(added, sh)


def _closed_stdout(node: ast.Simple, sh: Shell, io: Io, argv: list[str], values: list[tuple[str, str]]) -> Process:
    """A command whose standard output fails its writes (closed with `>&-`: EBADF; /dev/full:
    ENOSPC): it exits 1; ash's echo and busybox's applets say `write error` (its other builtins say
    nothing)."""
    status = yield from _run(node, sh, io, argv, values)
    name = argv[0]
    failed = io.failed or (["Bad file descriptor"] if name == "printf" and io.to_file == CLOSED else [])
    if failed:  # (ash's printf fails on a closed output even with nothing to write)
        if name in BUILTINS or name in sh.functions or name == "printf":
            if name == "echo":
                yield from io.error(f"{sh.name}: write error: {failed[0]}\n")
        else:
            words = argv[1:] if name.rsplit("/", 1)[-1] == "busybox" and len(argv) > 1 else argv
            yield from io.error(f"{words[0].rsplit('/', 1)[-1]}: write error: {failed[0]}\n")
        return 1
    return status


def _aliased(node: ast.Simple, sh: Shell, aliases: dict[str, str]) -> Process:
    """A command whose first word is an alias: the alias's text in its place, read again."""
    first = node.words[0].literal() or ""
    text = " ".join([*(f"{n}={w.text}" for n, w in node.assigns), aliases[first], *(w.text for w in node.words[1:])])
    io = sh.io
    if node.redirs:
        got = yield from redirect.apply(node.redirs, sh, sh.io)
        if got is None:
            return 1
        io = got
    saved, sh.io = sh.io, io
    sh.in_alias = True  # (an alias is not expanded again inside itself)
    try:
        return (yield from run_text(text, sh))
    finally:
        sh.in_alias = False
        if sh.io is io:
            sh.io = saved


def _prefix(values: list[tuple[str, str]], sh: Shell) -> list[tuple[str, str | None, bool]]:
    restore = []
    for var, value in values:
        restore.append((var, sh.get(var), var in sh.exported))
        sh.set(var, value)
        sh.exported.add(var)
    return restore


def _restore(restore: list[tuple[str, str | None, bool]], sh: Shell) -> None:
    for var, old, was_exported in reversed(restore):
        if old is None:
            sh.vars.pop(var, None)
        else:
            sh.vars[var] = old
        if not was_exported:
            sh.exported.discard(var)
