"""How a container's main process takes the stop signal, as PID 1 of its PID namespace.

A runtime stops a container by sending SIGTERM (or the image's stop signal) to its main
process, waiting the grace period, then sending SIGKILL (exit 137). The kernel gives
PID 1 of a PID namespace only the signals it installed a handler for: the default action
of SIGTERM (die) never reaches it. So what a stop does depends on the program:

| program (as PID 1) | on SIGTERM |
|---|---|
| a shell running a script, a loop or its input, no trap for TERM | ignores it (no handler): killed at the timeout |
| a shell whose script ends in `exec CMD`, or in CMD and traps nothing | what CMD does (the shell replaced itself) |
| a shell with `trap ACTION TERM` | the signal goes into it: it runs on from there, as ash does (below) |
| `top`, `less` (busybox catches it to restore the terminal, then cannot die of it) | exits 143 at once |
| `sleep`, `cat`, `tail` and the other busybox programs | ignores it: killed at the timeout, 137 |
| `nginx`, `httpd`, `httpd-foreground`, `apache2` | shuts down: exits 0 at once |
| `pause`, `/pause` | exits 0 at once |
| `agnhost` | exits 2 at once (Go's exit when PID 1 cannot die of the signal) unless its subcommand handles it |
| any other program, or none | exits 0 at once (a server written for Kubernetes handles SIGTERM) |

A program says how it takes the signal by a `Trap` step (fakecri.sim.steps): agnhost's
subcommands that handle it (`netexec --delay-shutdown`, `serve-hostname`...), the pause image's
`/pause`, and a shell's `trap ACTION TERM`, which says the signal is `delivered`: nothing is
decided up front. When the stop comes, the simulation runs the shell's command on to that
moment, throws the signal into the interpreter there, and runs it on to see what it does
(`Simulation.signalled`): a `wait` returns 143 and the script goes on after the trap's action;
a foreground command finishes first (the signal went to PID 1 alone), then the action runs;
an action's bare `exit` exits with the status the trap began with. The shell ends when its
script does, or the kill at the timeout ends it. `on_sigterm` answers from the command line
and the program's trace (traced here when the caller has none); the `fakecri.io/stop-delay`
and `stop-exit-code` annotations change it (sim/behaviour.py).
"""
from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

from fakecri.sim.programs import COMMANDS as PROGRAM_COMMANDS
from fakecri.sim.recording import Trace, record
from fakecri.sim.shell import COMMANDS, SHELLS, Context, spawn
from fakecri.sim.shell import static as syntax
from fakecri.sim.shell.ast import Sequence as Sequence_
from fakecri.sim.shell.ast import Simple
from fakecri.sim.shell.builtins import BUILTINS
from fakecri.sim.shell.names import BUSYBOX_APPLETS
from fakecri.sim.steps import Trap

# busybox programs that catch SIGTERM, then re-raise it with the default action, which PID 1
# does not get, and so _exit(128 + 15)
CATCH_AND_EXIT = frozenset({"top", "less"})
WEB_SERVERS = frozenset({"nginx", "httpd", "httpd-foreground", "apache2", "apache2-foreground"})
PAUSE = frozenset({"pause"})
GO_PID1_EXIT = 2  # a Go program without a SIGTERM handler of its own, as PID 1, exits 2
MAX_DEPTH = 10  # shells inside shells, at most, before we stop looking


@dataclass(frozen=True, slots=True)
class OnTerm:
    """What the program does on SIGTERM: `delay_ns` None ignores it (the runtime's SIGKILL
    ends it at the timeout); otherwise it exits `exit_code` that long after the signal.
    `delivered`: the signal goes into the program (a shell's trap), which decides as it comes."""

    delay_ns: int | None
    exit_code: int
    program: str  # which row of the table decided: "shell", "busybox", "web server", ...
    delivered: bool = False


IGNORES_SHELL = OnTerm(None, 0, "shell")
IGNORES_BUSYBOX = OnTerm(None, 0, "busybox")
TERMINAL = OnTerm(0, 128 + 15, "busybox terminal program")
WEB_SERVER = OnTerm(0, 0, "web server")
PAUSES = OnTerm(0, 0, "pause")
AGNHOST = OnTerm(0, GO_PID1_EXIT, "agnhost")
UNKNOWN = OnTerm(0, 0, "unknown")


def on_sigterm(argv: Sequence[str], traced: Trace | None = None) -> OnTerm:
    """What the program `argv` (a container's whole command line) does on SIGTERM as PID 1.
    `traced`: what the command did in its plan (its last `Trap` step counts); without it the
    command is traced here, outside any container."""
    words = [str(a) for a in argv]
    if traced is None:
        traced = record(spawn(words, Context(main=True, commands=PROGRAM_COMMANDS)), None)
    return _program(words, traced.trap, 0)


def _program(argv: list[str], trap: Trap | None, depth: int) -> OnTerm:
    words = syntax.strip_prefixes(argv)
    if not words:
        return UNKNOWN
    name = posixpath.basename(words[0])
    if name in SHELLS:
        return _shell(words[1:], trap, depth)
    row = (WEB_SERVER if name in WEB_SERVERS else PAUSES if name in PAUSE else AGNHOST if name == "agnhost"
           else TERMINAL if name in CATCH_AND_EXIT else IGNORES_BUSYBOX if name in COMMANDS or name in BUSYBOX_APPLETS
           else UNKNOWN)
    if trap is not None and not trap.delivered:  # the program's own handler (a shell's trap is delivered)
        return OnTerm(trap.delay_ns, trap.exit_code or 0, row.program)
    return row


def _shell(args: list[str], trap: Trap | None, depth: int) -> OnTerm:
    rest = args
    while rest and rest[0].startswith("-") and "c" not in rest[0]:
        rest = rest[1:]
    if len(rest) < 2 or not rest[0].startswith("-"):
        return IGNORES_SHELL  # reading its input, or a script file
    node = syntax.tree(rest[1])
    if node is None or depth >= MAX_DEPTH:
        return IGNORES_SHELL
    top = syntax.items(node)
    if not top:
        return IGNORES_SHELL
    last = top[-1]
    if len(top) == 1 and isinstance(last, Simple) and last.words:
        return _program(syntax.argv_of(last), trap, depth + 1)  # `sh -c CMD` execs CMD
    background = isinstance(node, Sequence_) and node.items[-1][1]
    if isinstance(last, Simple) and last.words and not background and (
            syntax.argv_of(last)[0] == "exec" or (trap is None and syntax.argv_of(last)[0] not in BUILTINS)):
        return _program(syntax.argv_of(last), trap, depth + 1)  # (ash runs its last command in its place)
    if trap is None or not trap.delivered:
        return IGNORES_SHELL  # no trap for TERM, or one that ignores it
    return TRAPPED


TRAPPED = OnTerm(None, 0, "shell with a trap", delivered=True)
