"""A simulated Linux userland per container: identity, environment, files and sysctls,
derived from the container's config and its sandbox's, built on the first command that
looks into it."""
from fakecri.core.userland.commands import USERLAND_COMMANDS, looks_inside
from fakecri.core.userland.spec import MountSpec, UserlandSpec, read_spec
from fakecri.core.userland.world import FileError, Userland

__all__ = ["USERLAND_COMMANDS", "looks_inside", "FileError", "MountSpec", "Userland", "UserlandSpec", "read_spec"]
