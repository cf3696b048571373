"""A simulated Linux userland per container: identity, environment, files and sysctls,
derived from the container's config and its sandbox's, built on the first command that
looks into it."""
from fakecri.sim.userland.commands import USERLAND_COMMANDS, looks_inside
from fakecri.sim.userland.spec import UserlandSpec, has_private_host_mount, userland_spec
from fakecri.sim.userland.world import FileError, Userland

__all__ = ["USERLAND_COMMANDS", "looks_inside", "FileError", "Userland", "UserlandSpec", "has_private_host_mount",
           "userland_spec"]
