"""The masked and read-only paths of a container's security context, mounted as runc mounts
them after the config's mounts: a masked file gets /dev/null bound over it (it reads empty
and swallows writes), a masked directory an empty read-only tmpfs; a read-only path is bound
onto itself and remounted read-only (writes: "Read-only file system"). Each is a line of the
mount table. A path that is not there is skipped, as runc skips it; under /proc and /sys the
kernel's files are taken to be there (the ones the kubelet and containerd name by default).
"""
from __future__ import annotations

from collections.abc import Callable

from fakecri.sim.userland.fs import FileStat, FsStat
from fakecri.sim.userland.spec import UserlandSpec

# The kernel directories among the paths the kubelet and containerd mask or make read-only.
KERNEL_DIRS = frozenset({"/proc/acpi", "/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/scsi",
                         "/proc/sys", "/proc/driver", "/sys/firmware", "/sys/devices/virtual/powercap"})
DEV_TMPFS = "rw,nosuid,size=65536k,mode=755"  # the container's /dev, where /dev/null lives
NULL_DEVICE = FileStat("char", 0o666, 0, 0, rdev=(1 << 8) | 3)  # /dev/null: a device anyone may read and write


def _kernel(path: str) -> bool:
    return path.startswith(("/proc/", "/sys/"))


def is_dir(path: str, exists: Callable[[str], bool], is_dir: Callable[[str], bool]) -> bool | None:
    """Whether the masked or read-only `path` is a directory (None: it is not there)."""
    if _kernel(path):
        return path in KERNEL_DIRS
    return is_dir(path) if exists(path) else None


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def masked_dir(spec: UserlandSpec, path: str) -> str | None:
    """The masked kernel directory `path` is in or is (None: none)."""
    return next((m for m in spec.masked_paths if m in KERNEL_DIRS and within(path, m)), None)


def masked_file(spec: UserlandSpec, path: str) -> bool:
    """Whether `path` is a masked file of the kernel's (/dev/null is bound over it)."""
    return _kernel(path) and path in spec.masked_paths and path not in KERNEL_DIRS


def mount_lines(spec: UserlandSpec, exists: Callable[[str], bool], dir_at: Callable[[str], bool],
                fs_of: Callable[[str], FsStat]) -> list[FsStat]:
    """The table's lines for the read-only paths, then the masked ones, in runc's order."""
    out: list[FsStat] = []
    for path in spec.readonly_paths:
        kind = is_dir(path, exists, dir_at)
        if kind is None:
            continue
        if path.startswith("/proc/"):
            out.append(FsStat("proc", path, "proc", "ro,nosuid,nodev,noexec,relatime"))
        elif path.startswith("/sys/"):
            out.append(FsStat("sysfs", path, "sysfs", "ro,nosuid,nodev,noexec,relatime"))
        else:
            under = fs_of(path)
            rest = [o for o in under.options.split(",") if o not in ("rw", "ro")]
            out.append(FsStat(under.source, path, under.fs_type, ",".join(["ro", *rest]), under.block_size,
                              under.blocks, under.blocks_free, under.blocks_available, under.files,
                              under.files_free, under.name_max))
    for path in spec.masked_paths:
        kind = is_dir(path, exists, dir_at)
        if kind is None:
            continue
        if kind:
            out.append(FsStat("tmpfs", path, "tmpfs", "ro,relatime"))
        else:
            out.append(FsStat("tmpfs", path, "tmpfs", DEV_TMPFS))
    return out
