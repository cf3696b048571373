"""Applets a container's shell runs, beyond the userland's file and identity commands
(fakecri.sim.userland): `awk`. The simulation adds them to what runs inside a container."""
from __future__ import annotations

import re
from collections.abc import Sequence

from fakecri.sim.applets.awk import AWK_COMMANDS
from fakecri.sim.shell import Command

APPLET_COMMANDS: dict[str, Command] = {**AWK_COMMANDS}
_WORD = re.compile(r"[\w\[.-]+")


def names_applet(argv: Sequence[str]) -> bool:
    """Whether a command line names one of the applets (which may read the container's files,
    environment or clock: a container's own command that does gets a plan built with its userland)."""
    text = " ".join(argv).replace("/", " /")
    return any(word.rsplit("/", 1)[-1] in APPLET_COMMANDS for word in _WORD.findall(text))
