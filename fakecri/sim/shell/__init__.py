"""The one command interpreter: what containers, ExecSync, exec, attach, probes and hooks run.

Nothing is executed. A command becomes a *process*: a generator that yields steps
(fakecri.sim.steps: `Write` some text to a stream, `Sleep` for a while or forever, `READ`
input, `Connect` to the network, `LOOK` before it looks at files, `Trap` how it takes
SIGTERM) and returns its exit code. Drivers run processes:

- `record` / `trace` (sim/recording.py, re-exported here) run one to the end at once and
  return a `Trace`. Container main programs use it (a plan), until a `LOOK` after time has
  passed or a network step, where the process goes on live.
- the server's drivers run one live, step by step: over a client's stream, and to its end
  for ExecSync; they carry out its network steps.

A shell script is parsed once into a tree (parser.py, cached by its text) and walked
(interp.py): POSIX sh as busybox's ash has it, with its builtins (builtins.py), expansions
(expand.py, arith.py), redirections (redirect.py), and background jobs and pipelines as
processes that run at the same time on one simulated clock (jobs.py). Programs are looked
up by name (session.py): the context's commands (the container's userland, the programs
fakecri knows), then the shell's own (`COMMANDS`). What fakecri does not model is refused
loudly: docs/shell.md.
"""
from __future__ import annotations

from collections.abc import Sequence

from fakecri.sim.recording import Trace, record
from fakecri.sim.shell.io import (
    DEFAULT_SIZE,
    MAX_NESTING,
    Command,
    Context,
    Input,
    Interrupted,
    Io,
    ShellExit,
)
from fakecri.sim.shell.jobs import schedule
from fakecri.sim.shell.session import COMMANDS, NOT_MODELLED, SHELLS, _top_argv, find_command, refuse, run_argv
from fakecri.sim.shell.tools import sleep_ns
from fakecri.sim.steps import LOOK, NO_NETWORK, READ, Connect, NetResult, Process, Read, Reply, Sleep, Step, Trap, Write

__all__ = ["LOOK", "NO_NETWORK", "READ", "Connect", "NetResult", "Process", "Read", "Reply", "Sleep", "Step", "Trap",
           "Trace", "Write", "record", "DEFAULT_SIZE", "MAX_NESTING", "Command", "Context", "Input", "Interrupted",
           "Io", "ShellExit", "COMMANDS", "NOT_MODELLED", "SHELLS", "find_command", "refuse", "run_argv", "sleep_ns",
           "spawn", "trace"]


def spawn(argv: Sequence[str], ctx: Context | None = None) -> Process:
    """The process `argv` would be, reading its input through `READ` steps. When it ends with
    background jobs still running, an exec's output stays open until they end (the runtime
    waits for it); a container's own command ends its jobs with it."""
    ctx = ctx or Context()
    io = Io(ctx, Input())
    io.inbox.pid1 = ctx.main
    return schedule(_top_argv(argv, io), wait_for_jobs=not ctx.main, clock=io.clock, inbox=io.inbox)


def trace(argv: Sequence[str], stdin: bytes | None = b"", *, main: bool = False) -> Trace:
    """What `argv` does, at once. `main`: it is a container's own command (see Context)."""
    return record(spawn(argv, Context(main=main)), stdin)
