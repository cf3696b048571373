"""How a container's main process takes the stop signal, as PID 1 of its PID namespace.

A runtime stops a container by sending SIGTERM (or the image's stop signal) to its main
process, waiting the grace period, then sending SIGKILL (exit 137). The kernel gives
PID 1 of a PID namespace only the signals it installed a handler for: the default action
of SIGTERM (die) never reaches it. So what a stop does depends on the program:

| program (as PID 1) | on SIGTERM |
|---|---|
| a shell running a script or a loop, or reading its input | ignores it (no handler): killed at the timeout, 137 |
| a shell whose script is one command, or ends in `exec CMD` | what CMD does (the shell replaced itself) |
| a shell with `trap '...; exit N' TERM` and a loop or `wait` | exits N at once (a bare `exit` after a `wait`: 143) |
| `top`, `less` (busybox catches it to restore the terminal, then cannot die of it) | exits 143 at once |
| `sleep`, `cat`, `tail` and the other busybox programs | ignores it: killed at the timeout, 137 |
| `nginx`, `httpd`, `httpd-foreground`, `apache2` | shuts down: exits 0 at once |
| `pause`, `/pause` | exits 0 at once |
| `agnhost` | exits 2 at once (the Go runtime's exit when PID 1 cannot die of the signal) |
| any other program, or none | exits 0 at once (a server written for Kubernetes handles SIGTERM) |

`on_sigterm` answers this from the command line alone (the same argv, the same answer);
the `fakecri.io/stop-delay` and `stop-exit-code` annotations change it (sim/behaviour.py).
"""
from __future__ import annotations

import posixpath
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from fakecri.sim.shell import APPLETS, COMMANDS, SHELLS
from fakecri.sim.shell_syntax import OPERATORS, UnknownSyntax, split_script, strip_prefixes

# busybox programs that catch SIGTERM, then re-raise it with the default action, which PID 1
# does not get, and so _exit(128 + 15)
CATCH_AND_EXIT = frozenset({"top", "less"})
WEB_SERVERS = frozenset({"nginx", "httpd", "httpd-foreground", "apache2", "apache2-foreground"})
PAUSE = frozenset({"pause"})
GO_PID1_EXIT = 2  # a Go program without a SIGTERM handler of its own, as PID 1, exits 2
TERM_NAMES = frozenset({"TERM", "SIGTERM", "15"})
MAX_DEPTH = 10  # shells inside shells, at most, before we stop looking


@dataclass(frozen=True, slots=True)
class OnTerm:
    """What the program does on SIGTERM: `delay_ns` None ignores it (the runtime's SIGKILL
    ends it at the timeout); otherwise it exits `exit_code` that long after the signal."""

    delay_ns: int | None
    exit_code: int
    program: str  # which row of the table decided: "shell", "busybox", "web server", ...


IGNORES_SHELL = OnTerm(None, 0, "shell")
IGNORES_BUSYBOX = OnTerm(None, 0, "busybox")
TERMINAL = OnTerm(0, 128 + 15, "busybox terminal program")
WEB_SERVER = OnTerm(0, 0, "web server")
PAUSES = OnTerm(0, 0, "pause")
AGNHOST = OnTerm(0, GO_PID1_EXIT, "agnhost")
UNKNOWN = OnTerm(0, 0, "unknown")


def on_sigterm(argv: Sequence[str]) -> OnTerm:
    """What the program `argv` (a container's whole command line) does on SIGTERM as PID 1."""
    return _program([str(a) for a in argv], 0)


def _program(argv: list[str], depth: int) -> OnTerm:
    words = strip_prefixes(argv)
    if not words:
        return UNKNOWN
    name = posixpath.basename(words[0])
    if name in SHELLS:
        return _shell(words[1:], depth)
    if name in WEB_SERVERS:
        return WEB_SERVER
    if name in PAUSE:
        return PAUSES
    if name == "agnhost":
        return AGNHOST
    if name in CATCH_AND_EXIT:
        return TERMINAL
    if name in COMMANDS or name in APPLETS:
        return IGNORES_BUSYBOX
    return UNKNOWN


def _shell(args: list[str], depth: int) -> OnTerm:
    rest = args
    while rest and rest[0].startswith("-") and "c" not in rest[0]:
        rest = rest[1:]
    if len(rest) < 2 or not rest[0].startswith("-"):
        return IGNORES_SHELL  # reading its input, or a script file we cannot read
    script = rest[1]
    trapped = _trap(script)
    if trapped is not None:
        return trapped
    try:
        statements = split_script(script)
    except UnknownSyntax:
        return IGNORES_SHELL
    if not statements or depth >= MAX_DEPTH:
        return IGNORES_SHELL
    last = statements[-1]
    if len(statements) == 1 and last.argv[0] not in ("while", "until"):
        return _program(last.argv, depth + 1)  # `sh -c CMD` execs CMD
    if last.execs and last.connector == ";" and last.argv[0] not in ("while", "until", "done"):
        return _program(last.argv, depth + 1)
    return IGNORES_SHELL


def _trap(script: str) -> OnTerm | None:
    """What `trap ACTION TERM` in `script` makes of SIGTERM; None when the script sets no
    handler for it. The shell runs the action only between commands (once its foreground
    command ends), so it is taken at once only when the script loops or `wait`s."""
    lexer = shlex.shlex(script.replace("\n", ";"), posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    handler: str | None = None
    for i, tok in enumerate(tokens):
        if tok != "trap" or (i and tokens[i - 1] not in OPERATORS | {"&", "(", ")", "do", "then"}):
            continue
        signals = []
        for word in tokens[i + 2:]:
            if word in OPERATORS or word in ("&", "(", ")"):
                break
            signals.append(word)
        if i + 1 < len(tokens) and any(s.upper() in TERM_NAMES for s in signals):
            handler = tokens[i + 1]  # the last trap for TERM wins
    if handler is None:
        return None
    # A bare `exit` keeps `$?`: 143 from a `wait` the signal cut short, else the last command's 0.
    code = _exit_code(handler, 128 + 15 if "wait" in tokens else 0)
    if code is None:  # `trap '' TERM`, `trap - TERM`, or an action that does not exit
        return IGNORES_SHELL
    if not ({"while", "until", "wait"} & set(tokens)):
        return IGNORES_SHELL  # its foreground command holds the trap until the kill
    return OnTerm(0, code, "shell with a trap")


def _exit_code(action: str, status: int) -> int | None:
    """The code `action` exits with (`exit N`; a bare `exit`: `status`), None when it does not exit."""
    if action.strip() in ("", "-"):
        return None
    try:
        statements = split_script(action)
    except UnknownSyntax:
        return None
    for st in statements:
        if st.argv and st.argv[0] == "exit":
            if len(st.argv) == 1:
                return status
            return int(st.argv[1]) & 0xFF if st.argv[1].isdigit() else 2
    return None
