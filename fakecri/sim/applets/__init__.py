"""busybox's applets a container's shell runs, beyond the userland's file and identity commands
(fakecri.sim.userland), as busybox 1.35 behaves: `awk` (applets/awk/) and the text and system
applets (printf, sed, grep, cut, sort, date, xargs...). `APPLET_COMMANDS` is their table; the
simulation adds it to what runs inside a container.

The text filters read standard input when they are given no file, so they work where no
userland exists; with one, they read and write the container's files. What they do not
model fails loudly (`APPLET: -X: not modelled by fakecri`, exit 1); docs/applets.md lists
what is modelled.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from fakecri.sim.applets.awk import AWK_COMMANDS
from fakecri.sim.applets.compare import COMPARE_COMMANDS
from fakecri.sim.applets.conditions import CONDITION_COMMANDS
from fakecri.sim.applets.counts import COUNT_COMMANDS
from fakecri.sim.applets.date import DATE_COMMANDS
from fakecri.sim.applets.expr import EXPR_COMMANDS
from fakecri.sim.applets.grep import GREP_COMMANDS
from fakecri.sim.applets.nmeter import NMETER_COMMANDS
from fakecri.sim.applets.od import OD_COMMANDS
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
    **AWK_COMMANDS,
    **PRINTF_COMMANDS, **SED_COMMANDS, **GREP_COMMANDS, **TEXT_COMMANDS, **SORT_COMMANDS, **COUNT_COMMANDS,
    **SEQ_COMMANDS, **EXPR_COMMANDS, **SUM_COMMANDS, **DATE_COMMANDS, **NMETER_COMMANDS,
    **RUN_COMMANDS, **SYSTEM_COMMANDS, **OD_COMMANDS, **CONDITION_COMMANDS, **COMPARE_COMMANDS,
}
_WORD = re.compile(r"[\w\[.-]+")


def names_applet(argv: Sequence[str]) -> bool:
    """Whether a command line names one of the applets (which may read the container's files,
    environment or clock: a container's own command that does gets a plan built with its userland)."""
    text = " ".join(argv).replace("/", " /")
    return any(word.rsplit("/", 1)[-1] in APPLET_COMMANDS for word in _WORD.findall(text))
