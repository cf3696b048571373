"""The file systems a container sees: its mount table (/proc/mounts, `mount`, `df`) and what
statfs(2) answers for a path (`stat -f`, `df FILE`, agnhost mounttest's `--fs_type`).

A CRI mount shows the host file system its host path lies on, as the host's mount table
and statfs say (a kubelet's memory-backed emptyDir, secret and projected volumes are
tmpfs there, sized by the kubelet's `size=` option); the rest is what containerd and runc
mount for every container: the overlay root, /proc, /dev, /dev/pts, /dev/mqueue, /sys, the
cgroup file system and the pod's /dev/shm. Mounts made inside follow the config's.
"""
from __future__ import annotations

import re
from typing import Protocol

from fakecri.engine.specs import Mount
from fakecri.sim.host_view import HostError, HostFs, HostView
from fakecri.sim.userland.cgroupfs import Cgroup, mount_lines
from fakecri.sim.userland.fs import FsStat
from fakecri.sim.userland.image_volumes import mount_line as image_mount_line
from fakecri.sim.userland.masks import mount_lines as mask_lines
from fakecri.sim.userland.shared_mounts import SharedMount
from fakecri.sim.userland.spec import UserlandSpec
from fakecri.sim.userland.tmpfs_options import PAGE, read_only, shown_options, tmpfs_size

TMPFS_PREFIX = "\0tmpfs"  # (inside_mounts.TMPFS) where a tmpfs mounted inside keeps its files
BLOCK = 4096
SMALL_TMPFS = 64 * 1024 * 1024  # /dev and the pod's /dev/shm: containerd's 65536k
_SIZE = re.compile(r"size=(\d+)([kKmMgG]?)(?:,|$)")
_UNITS = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}


class World(Protocol):
    """What of a userland its mount table is made from (fakecri.sim.userland.world.Userland has it)."""

    spec: UserlandSpec
    host: HostView
    cgroup: Cgroup

    def mounts_made_inside(self) -> list[tuple[str, str]]: ...

    def tmpfs_options(self, target: str) -> str: ...

    def tmpfs_name(self, target: str) -> str: ...

    def shared_seen(self) -> list[tuple[str, SharedMount, bool]]: ...

    def shared_holding(self, path: str) -> tuple[str, SharedMount, bool] | None: ...

    def backing(self, path: str) -> tuple[Mount, str] | None: ...

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...


def size_option(options: str) -> int | None:
    """The bytes a tmpfs's `size=` mount option gives (None: no such option)."""
    m = _SIZE.search(options)
    return int(m.group(1)) * _UNITS[m.group(2).lower()] if m else None


def _tmpfs(source: str, point: str, options: str, size: int) -> FsStat:
    blocks = max(1, size // BLOCK)
    return FsStat(source, point, "tmpfs", options, BLOCK, blocks, blocks, blocks, blocks, blocks - 1)


def _memory_total(world: World) -> int:
    """The host's memory (0: unknown)."""
    for line in world.host.proc_file("/proc/meminfo").decode("ascii", "replace").splitlines():
        if line.startswith("MemTotal:"):
            parts = line.split()
            return int(parts[1]) * 1024 if len(parts) > 1 and parts[1].isdigit() else 0
    return 0


def _memory_default(world: World) -> int:
    """The size of a tmpfs mounted without `size=`: the kernel's default, half of the host's
    memory, within the container's memory limit, which its pages are charged to."""
    half = _memory_total(world) // 2 or SMALL_TMPFS
    limit = world.cgroup.now().resources.memory_limit_in_bytes
    return min(half, limit) if limit > 0 else half


def _rest(options: str) -> list[str]:
    return [o for o in options.split(",") if o and o not in ("rw", "ro")]


def _from_host(world: World, m: Mount, fs: HostFs, point: str) -> FsStat:
    options = ",".join(["ro" if m.readonly else "rw"] + _rest(fs.options))
    blocks, free, available = fs.blocks, fs.blocks_free, fs.blocks_available
    if fs.fs_type == "tmpfs" and not blocks:  # the host's numbers are missing: the size it was given
        size = size_option(fs.options) or _memory_default(world)
        blocks = free = available = max(1, size // (fs.block_size or BLOCK))
    return FsStat(fs.source or m.host_path, point, fs.fs_type or "none", options, fs.block_size or BLOCK,
                  blocks, free, available, fs.files, fs.files_free, fs.name_max)


def _host_backed(world: World, m: Mount, host_path: str) -> FsStat:
    """The file system a host path of mount `m` lies on, where the container sees it mounted."""
    point = m.container_path
    try:
        fs = world.host.statfs(host_path)
    except HostError:
        return FsStat(m.host_path, point, "none", "ro" if m.readonly else "rw")
    root = m.host_path.rstrip("/")
    if fs.mount_point.startswith(root + "/"):  # a file system the host mounted under the mount's path
        point = point.rstrip("/") + fs.mount_point[len(root):]
    return _from_host(world, m, fs, point)


def _root(world: World) -> FsStat:
    spec = world.spec
    options = ("ro" if spec.readonly_rootfs else "rw") + ",relatime"
    try:
        fs = world.host.statfs("/")
    except HostError:
        blocks = 64 * 1024 * 1024 * 1024 // BLOCK
        return FsStat("overlay", "/", "overlay", options, BLOCK, blocks, blocks, blocks, 1 << 22, 1 << 22)
    return FsStat("overlay", "/", "overlay", options, fs.block_size, fs.blocks, fs.blocks_free,
                  fs.blocks_available, fs.files, fs.files_free, fs.name_max)


def _kernel(world: World) -> list[FsStat]:
    """What runc mounts in every container, after its root."""
    privileged = world.spec.privileged
    sys_opts = ("rw" if privileged else "ro") + ",nosuid,nodev,noexec,relatime"
    return [
        FsStat("proc", "/proc", "proc", "rw,nosuid,nodev,noexec,relatime"),
        _tmpfs("tmpfs", "/dev", "rw,nosuid,size=65536k,mode=755", SMALL_TMPFS),
        FsStat("devpts", "/dev/pts", "devpts", "rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=666"),
        FsStat("mqueue", "/dev/mqueue", "mqueue", "rw,nosuid,nodev,noexec,relatime"),
        FsStat("sysfs", "/sys", "sysfs", sys_opts),
        *(_cgroup_fs(*line) for line in mount_lines(world.cgroup, sys_opts)),
    ]


def _cgroup_fs(source: str, point: str, fs_type: str, options: str) -> FsStat:
    if fs_type == "tmpfs":
        return _tmpfs(source, point, options, SMALL_TMPFS)
    return FsStat(source, point, fs_type, options)


def _shm() -> FsStat:
    return _tmpfs("shm", "/dev/shm", "rw,nosuid,nodev,noexec,relatime,size=65536k", SMALL_TMPFS)


def _a_tmpfs(world: World, name: str, target: str, options: str, *, readonly: bool = False) -> FsStat:
    """A tmpfs mounted in a container, its options as the kernel shows them (tmpfs_options.py)."""
    pages = _memory_total(world) // PAGE
    half = pages // 2 * PAGE or SMALL_TMPFS  # the kernel's default: half the memory's pages
    given = tmpfs_size(options, pages * PAGE)
    shown = shown_options(options, readonly=readonly or read_only(options), size=given, default_size=half)
    return _tmpfs(name, target, shown, given or _memory_default(world))


def _shared(world: World, point: str, mount: SharedMount, readonly: bool) -> FsStat:
    """A tmpfs on the host's side, where the container sees it (`readonly`: through a recursive
    read-only mount)."""
    return _a_tmpfs(world, mount.source, point, mount.options, readonly=readonly)


def _made_inside(world: World, source: str, target: str) -> FsStat:
    if source == "tmpfs":
        return _a_tmpfs(world, world.tmpfs_name(target), target, world.tmpfs_options(target))
    under = statfs_of(world, source)
    return FsStat(under.source, target, under.fs_type, under.options, under.block_size, under.blocks,
                  under.blocks_free, under.blocks_available, under.files, under.files_free, under.name_max)


def table(world: World) -> list[FsStat]:
    """The container's mounts in the order they were made."""
    out = [_root(world)] + _kernel(world)
    for m in world.spec.mounts:
        if m.host_path and m.container_path:
            out.append(_host_backed(world, m, m.host_path))
        elif m.image and m.container_path:
            out.append(image_mount_line(m))
    out.append(_shm())
    spec = world.spec
    if spec.readonly_paths or spec.masked_paths:
        out += mask_lines(spec, world.exists, world.is_dir, lambda path: statfs_of(world, path))
    out += [_shared(world, point, mount, readonly) for point, mount, readonly in world.shared_seen()]
    out += [_made_inside(world, source, target) for source, target in world.mounts_made_inside()]
    return out


def statfs_of(world: World, path: str) -> FsStat:
    """The file system holding the resolved path `path`."""
    if path.startswith(TMPFS_PREFIX):
        target = path[len(TMPFS_PREFIX):]
        for source, point in world.mounts_made_inside():
            if source == "tmpfs" and (target == point or target.startswith(point.rstrip("/") + "/")):
                return _made_inside(world, "tmpfs", point)
    mounted = world.backing(path)
    if mounted is not None:
        seen = world.shared_holding(path)
        if seen is not None:
            return _shared(world, *seen)
        return _host_backed(world, mounted[0], mounted[1])
    for fs in reversed(_kernel(world) + [_shm()]):
        if path == fs.point or path.startswith(fs.point + "/"):
            return fs
    return _root(world)


def _escape(text: str) -> str:
    return text.replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011").replace("\n", "\\012")


def proc_mounts(world: World) -> bytes:
    """/proc/mounts as the container reads it."""
    return "".join(f"{_escape(fs.source)} {_escape(fs.point)} {fs.fs_type} {fs.options} 0 0\n"
                   for fs in table(world)).encode()
