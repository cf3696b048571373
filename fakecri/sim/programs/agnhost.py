"""agnhost, Kubernetes' test image of many programs: `/agnhost SUBCOMMAND [flags]`.

Each subcommand acted out is one line of `SUBCOMMANDS`. One that is not (yet) runs as a
program we cannot see into: a container's runs until stopped, an exec succeeds silently.
"""
from __future__ import annotations

from fakecri.sim.programs import mounttest
from fakecri.sim.shell import Command, Io, Process, Sleep

SUBCOMMANDS: dict[str, Command] = {
    "mounttest": mounttest.run,
}


def agnhost(args: list[str], io: Io) -> Process:
    if args and args[0] in SUBCOMMANDS:
        return (yield from SUBCOMMANDS[args[0]](args[1:], io))
    if io.ctx.main:
        yield Sleep(None)
    return 0
