"""A simulated Linux userland per container: identity, environment, files and sysctls,
derived from the container's config and its sandbox's, built on the first command that
looks into it."""
from fakecri.sim.userland.commands import USERLAND_COMMANDS, looks_inside
from fakecri.sim.userland.hostmounts import HostMounts
from fakecri.sim.userland.spec import MountSpec, UserlandSpec, has_private_host_mount, read_spec
from fakecri.sim.userland.world import FileError, Userland

__all__ = ["USERLAND_COMMANDS", "looks_inside", "FileError", "HostMounts", "MountSpec", "Userland", "UserlandSpec",
           "has_private_host_mount", "read_spec"]
