"""busybox's applets as busybox 1.35 behaves: `APPLET_COMMANDS`, the table the shell's command
tables take them from (a container's, through the simulation's INSIDE_COMMANDS): the text and
system applets, and `awk` (fakecri.sim.applets.awk).

The text filters read standard input when they are given no file, so they work where no
userland exists; with one, they read and write the container's files. What they do not
model fails loudly (`APPLET: -X: not modelled by fakecri`, exit 1); docs/applets.md lists
what is modelled.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from fakecri.sim.applets.awk import AWK_COMMANDS
from fakecri.sim.applets.counts import COUNT_COMMANDS
from fakecri.sim.applets.date import DATE_COMMANDS
from fakecri.sim.applets.expr import EXPR_COMMANDS
from fakecri.sim.applets.grep import GREP_COMMANDS
from fakecri.sim.applets.printf import PRINTF_COMMANDS
from fakecri.sim.applets.run import RUN_COMMANDS
from fakecri.sim.applets.sed import SED_COMMANDS
from fakecri.sim.applets.seq import SEQ_COMMANDS
from fakecri.sim.applets.sort import SORT_COMMANDS
from fakecri.sim.applets.sums import SUM_COMMANDS
from fakecri.sim.applets.system import SYSTEM_COMMANDS
from fakecri.sim.applets.text import TEXT_COMMANDS
from fakecri.sim.shell import Command

APPLET_COMMANDS: dict[str, Command] = {
    **PRINTF_COMMANDS, **SED_COMMANDS, **GREP_COMMANDS, **TEXT_COMMANDS, **SORT_COMMANDS, **COUNT_COMMANDS,
    **SEQ_COMMANDS, **EXPR_COMMANDS, **SUM_COMMANDS, **DATE_COMMANDS,
    **RUN_COMMANDS, **SYSTEM_COMMANDS, **AWK_COMMANDS,
}
# realpath is the file tools' (sim/userland/file_tools.py: a missing path fails, as busybox's does)
del APPLET_COMMANDS["realpath"]

_WORD = re.compile(r"[\w\[.-]+")


def names_applet(argv: Sequence[str]) -> bool:
    """Whether a command line names one of the applets (which may read the container's files,
    environment or clock: a container's own command that does gets a plan built with its userland)."""
    text = " ".join(argv).replace("/", " /")
    return any(word.rsplit("/", 1)[-1] in APPLET_COMMANDS for word in _WORD.findall(text))
