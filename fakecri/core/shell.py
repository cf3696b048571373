"""A tiny interpreter for the commands containers usually run.

It does not execute anything: it works out what the command would do over time,
as a `Trace` (lines written at offsets, then an exit, or "runs until stopped").
Understood: `sleep N`, `true`, `false`, `exit N`, `echo X`, `cat` (in exec: echoes
stdin), statements joined by `;`, `&&`, `||` or newlines, and all of it through
`sh -c` / `bash -c`. Anything else is a program we do not model: as a container it
runs until stopped, as an exec command it succeeds silently. Odd input never raises.
"""
from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass
from typing import Sequence

from fakecri.core.durations import NS

SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})
_OPERATORS = frozenset({";", "&&", "||"})
MAX_SLEEP_NS = 100 * 365 * 86_400 * NS["s"]
_SLEEP_UNITS = {"s": NS["s"], "m": NS["m"], "h": NS["h"], "d": NS["d"]}


@dataclass(frozen=True, slots=True)
class Trace:
    """What a command does.

    `outputs` are (offset_ns, stream, text), text as written (echo's newline included);
    `end_ns` is when it exits (None: it never does), with `exit_code`.
    """

    outputs: tuple[tuple[int, str, str], ...]
    end_ns: int | None
    exit_code: int
    modelled: bool  # False when some part was a program we do not model
    # A `while true; do echo X; sleep N; done` loop: (period_ns, stream, text) written every
    # period after the first time (which is in `outputs`), until stopped.
    repeat: tuple[int, str, str] | None = None


class _Unknown(Exception):
    """The command is outside what the interpreter models."""


_TO_STDOUT = frozenset({"1", "/dev/stdout", "/proc/1/fd/1", "/proc/self/fd/1"})
_TO_STDERR = frozenset({"2", "/dev/stderr", "/proc/1/fd/2", "/proc/self/fd/2"})


@dataclass(slots=True)
class Statement:
    connector: str  # ";", "&&" or "||": how it joins the previous statement
    argv: list[str]
    stdout: str | None = "stdout"  # where its output goes after redirections; None: a file


def _split_script(script: str) -> list[Statement]:
    """Split a shell script into statements; raise _Unknown on what we can't read."""
    lexer = shlex.shlex(script.replace("\n", ";"), posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError as exc:  # unbalanced quotes and the like
        raise _Unknown(str(exc)) from None
    statements: list[Statement] = []
    current = Statement(";", [])
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok in _OPERATORS:
            if current.argv:
                statements.append(current)
            elif tok != ";":
                raise _Unknown(f"operator {tok} without a command")
            current = Statement(tok, [])
        elif tok and set(tok) <= set("<>&") and tok != "&":
            target = tokens[i] if i < len(tokens) else ""
            i += 1
            if ">" in tok:
                current.stdout = "stdout" if target in _TO_STDOUT else "stderr" if target in _TO_STDERR else None
        elif tok and set(tok) <= set(";&|<>()"):
            raise _Unknown(f"unsupported shell syntax {tok!r}")
        else:
            current.argv.append(tok)
    if current.argv:
        statements.append(current)
    return statements


def _strip_prefixes(argv: list[str]) -> list[str]:
    """Drop `exec`, `env`, VAR=value assignments and a leading `busybox`."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in ("exec", "env", "busybox", "/bin/busybox") or ("=" in word and word.split("=", 1)[0].isidentifier()):
            i += 1
            continue
        break
    return argv[i:]


def parse(argv: Sequence[str]) -> list[Statement]:
    """The statements of `argv` (unwrapping `sh -c`); raise _Unknown when not modelled."""
    words = _strip_prefixes([str(a) for a in argv])
    if not words:
        raise _Unknown("no command")
    name = posixpath.basename(words[0])
    if name in SHELLS:
        rest = words[1:]
        while rest and rest[0].startswith("-") and "c" not in rest[0]:
            rest = rest[1:]  # options such as -e or -x before -c
        if len(rest) >= 2 and rest[0].startswith("-") and "c" in rest[0]:
            statements = _split_script(rest[1])
            for st in statements:
                st.argv = _strip_prefixes(st.argv)
            return statements
        raise _Unknown("an interactive shell or a script file")
    return [Statement(";", words)]


def _sleep_ns(args: list[str]) -> int | None:
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


def _logging_loop(statements: list[Statement]) -> Trace | None:
    """`while true; do echo X; sleep N; done` (also `while :`, and sleep before echo): a
    line every N seconds, forever. None for any other script."""
    if len(statements) < 3 or statements[0].argv not in (["while", "true"], ["while", ":"]):
        return None
    if statements[-1].argv != ["done"] or not statements[1].argv or statements[1].argv[0] != "do":
        return None
    body = [statements[1].argv[1:], *[st.argv for st in statements[2:-1]]]
    echoes = [(i, argv) for i, argv in enumerate(body) if argv and argv[0] == "echo"]
    sleeps = [argv for argv in body if argv and argv[0] == "sleep"]
    if len(echoes) != 1 or len(sleeps) != 1 or len(body) != 2:
        return None
    index, echo = echoes[0]
    stream = statements[1 + index].stdout
    try:
        period = _sleep_ns(sleeps[0][1:])
    except ValueError:
        return None
    args = echo[1:]
    if stream is None or not period or (args and args[0].startswith("-")):
        return None
    text = " ".join(args) + "\n"
    if "{n}" in text:  # the tick line would number it
        return None
    # Echo first: a line at once, then one every period; sleep first: the first after a period.
    outputs = ((0, stream, text),) if index == 0 else ()
    return Trace(outputs, None, 0, True, repeat=(period, stream, text))


def simulate(argv: Sequence[str], stdin: bytes = b"", *, in_exec: bool = False) -> Trace:
    """Work out what `argv` does. `in_exec`: unknown programs succeed instead of running forever."""
    try:
        statements = parse(argv)
    except _Unknown:
        return Trace((), 0 if in_exec else None, 0, False)
    loop = None if in_exec else _logging_loop(statements)
    if loop is not None:
        return loop
    t = 0
    status = 0
    outputs: list[tuple[int, str, str]] = []
    for st in statements:
        if (st.connector == "&&" and status != 0) or (st.connector == "||" and status == 0):
            continue
        if not st.argv:
            continue
        cmd, args = posixpath.basename(st.argv[0]), st.argv[1:]
        if cmd in ("true", ":"):
            status = 0
        elif cmd == "false":
            status = 1
        elif cmd == "exit":
            code = status
            if args:
                try:
                    code = int(args[0]) & 0xFF
                except ValueError:
                    outputs.append((t, "stderr", f"exit: {args[0]}: numeric argument required\n"))
                    code = 2
            return Trace(tuple(outputs), t, code, True)
        elif cmd == "echo":
            newline = True
            while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
                newline = newline and "n" not in args[0]
                args = args[1:]
            text = " ".join(args) + ("\n" if newline else "")
            if text and st.stdout is not None:
                outputs.append((t, st.stdout, text))
            status = 0
        elif cmd == "sleep":
            try:
                ns = _sleep_ns(args)
            except ValueError:
                outputs.append((t, "stderr", f"sleep: invalid time interval {' '.join(args)!r}\n"))
                status = 1
                continue
            if ns is None:
                return Trace(tuple(outputs), None, 0, True)
            t += ns
            status = 0
        elif cmd == "cat" and in_exec:
            if not args and stdin and st.stdout is not None:
                outputs.append((t, st.stdout, stdin.decode("utf-8", "replace")))
            status = 0
        elif in_exec:
            status = 0  # a program we do not model: pretend it worked, silently
        else:
            return Trace(tuple(outputs), None, 0, False)
    return Trace(tuple(outputs), t, status, True)
