"""`test EXPRESSION` and `[ EXPRESSION ]` as applets (`busybox test`, `env [ ... ]`, `find -exec
test`, `xargs test`): busybox's one test_main, which is also ash's builtin, so the evaluation is
the shell's (fakecri/sim/shell/testing.py); only the name its errors start with differs
(`test: X: bad number`, `[: missing ]`).
"""
from __future__ import annotations

from fakecri.sim.shell import Command, Io, Process
from fakecri.sim.shell.testing import evaluate_in


def _named(name: str) -> Command:
    def test(args: list[str], io: Io) -> Process:
        if name == "[":
            if not args or args[-1] != "]":
                yield from io.error("[: missing ]\n")
                return 2
            args = args[:-1]
        return (yield from evaluate_in(args, io, name, io.cwd))
    return test


CONDITION_COMMANDS: dict[str, Command] = {"test": _named("test"), "[": _named("[")}
