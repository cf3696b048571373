"""Applets a container's shell runs, beyond the userland's file and identity commands."""
from __future__ import annotations

from fakecri.sim.applets.awk import AWK_COMMANDS
from fakecri.sim.shell import Command

APPLET_COMMANDS: dict[str, Command] = {**AWK_COMMANDS}
