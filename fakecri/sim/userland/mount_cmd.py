"""`mount` and `umount` inside a container, as busybox 1.35 runs them: the options it takes,
its messages and exit codes (a failed mount exits 255), and the options of a tmpfs as the
kernel takes and shows them. What the mounts do is the userland's (inside_mounts.py)."""
from __future__ import annotations

from collections.abc import Generator

from fakecri.sim.shell import LOOK, Io, Process, Step
from fakecri.sim.userland.tmpfs_options import MOUNT_FLAGS, QUIET, tmpfs_options_ok
from fakecri.sim.userland.world import FileError, Userland

MOUNT_USAGE = """BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.

Usage: mount [OPTIONS] [-o OPT] DEVICE NODE

Mount a filesystem. Filesystem autodetection requires /proc.

\t-a\t\tMount all filesystems in fstab
\t-f\t\tDry run
\t-i\t\tDon't run mount helper
\t-r\t\tRead-only mount
\t-t FSTYPE[,...]\tFilesystem type(s)
\t-T FILE\t\tRead FILE instead of /etc/fstab
\t-O OPT\t\tMount only filesystems with option OPT (-a only)
-o OPT:
\tloop\t\tIgnored (loop devices are autodetected)
\t[a]sync\t\tWrites are [a]synchronous
\t[no]atime\tDisable/enable updates to inode access times
\t[no]diratime\tDisable/enable atime updates to directories
\t[no]relatime\tDisable/enable atime updates relative to modification time
\t[no]dev\t\t(Dis)allow use of special device files
\t[no]exec\t(Dis)allow use of executable files
\t[no]suid\t(Dis)allow set-user-id-root programs
\t[r]shared\tConvert [recursively] to a shared subtree
\t[r]slave\tConvert [recursively] to a slave subtree
\t[r]private\tConvert [recursively] to a private subtree
\t[un]bindable\tMake mount point [un]able to be bind mounted
\t[r]bind\t\tBind a file or directory [recursively] to another location
\tmove\t\tRelocate an existing mount point
\tremount\t\tRemount a mounted filesystem, changing flags
\tro\t\tSame as -r

There are filesystem-specific -o flags.
"""
UMOUNT_USAGE = """BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.

Usage: umount [-rlfda] [-t FSTYPE] FILESYSTEM|DIRECTORY

Unmount filesystems

\t-a\tUnmount all filesystems
\t-r\tRemount devices read-only if mount is busy
\t-l\tLazy umount (detach filesystem)
\t-f\tForce umount (i.e., unreachable NFS server)
\t-d\tFree loop device if it has been used
\t-t FSTYPE[,...]\tUnmount only these filesystem type(s)
"""
MOUNT_FAILED = 255  # busybox's exit when the mount call fails
NOT_MODELLED = ("remount", "move", "shared", "rshared", "slave", "rslave", "private", "rprivate", "unbindable",
                "runbindable", "bindable")


def _looking(io: Io) -> Generator[Step, bytes | None, Userland]:
    yield LOOK
    if io.ctx.userland is None:
        raise RuntimeError("a userland command runs only inside a container")
    world: Userland = io.ctx.userland()
    world.umask = io.umask
    return world


def mount_cmd(args: list[str], io: Io) -> Process:
    world = yield from _looking(io)
    options: list[str] = []
    fstype = ""
    places: list[str] = []
    flags: set[str] = set()
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a.startswith("--") and len(a) > 2:  # busybox takes --NAME as -o NAME
            options.append(a[2:])
        elif a.startswith("-") and len(a) > 1:
            chars = a[1:]
            while chars:
                ch, chars = chars[0], chars[1:]
                if ch in "toTO":
                    value = chars or (rest.pop(0) if rest else "")
                    chars = ""
                    if ch == "t":
                        fstype = value
                    elif ch == "o":
                        options += [o for o in value.split(",") if o]
                    else:
                        yield from io.error(f"mount: -{ch}: not modelled by fakecri\n")
                        return 1
                elif ch in "rw":
                    options.append("ro" if ch == "r" else "rw")
                elif ch in "fnvsi":
                    flags.add(ch)
                elif ch == "a":
                    yield from io.error("mount: -a: not modelled by fakecri\n")
                    return 1
                else:
                    yield from io.error(f"mount: invalid option -- '{ch}'\n" + MOUNT_USAGE)
                    return 1
        else:
            places.append(a)
    if not places:
        yield from io.write("".join(f"{fs.source} on {fs.point} type {fs.fs_type} ({fs.options})\n"
                                    for fs in world.mount_table() if fstype in ("", fs.fs_type)))
        return 0
    if len(places) > 2:
        yield from io.error(MOUNT_USAGE)
        return 1
    refused = next((o for o in options if o in NOT_MODELLED or o.startswith("make-")), None)
    if refused is not None:
        yield from io.error(f"mount: -o {refused}: not modelled by fakecri\n")
        return 1
    if len(places) == 1:
        yield from io.error(f"mount: can't find {places[0]} in /etc/fstab\n")
        return 1
    if not world.privilege.may("SYS_ADMIN"):
        yield from io.error("mount: permission denied (are you root?)\n")
        return 1
    source, target = places
    bind = bool({"bind", "rbind"} & set(options))
    if not bind and fstype != "tmpfs":
        yield from io.error(f"mount: -t {fstype or 'auto'}: not modelled by fakecri (tmpfs and binds are)\n")
        return 1
    own = [o for o in options if o not in MOUNT_FLAGS and o not in QUIET]
    if not bind and not tmpfs_options_ok(own):
        yield from io.error(f"mount: mounting {source} on {target} failed: Invalid argument\n")
        return MOUNT_FAILED
    if "f" in flags:  # a dry run
        return 0
    try:
        # (a bind ignores ro, as the kernel does without a remount)
        world.mount(source, target, tmpfs=not bind, options="" if bind else ",".join(options))
    except FileError as exc:
        yield from io.error(f"mount: mounting {source} on {target} failed: {exc.reason}\n")
        return MOUNT_FAILED
    return 0


def umount_cmd(args: list[str], io: Io) -> Process:
    world = yield from _looking(io)
    targets: list[str] = []
    for a in args:
        if a.startswith("-") and len(a) > 1:
            for ch in a[1:]:
                if ch in "rat":
                    yield from io.error(f"umount: -{ch}: not modelled by fakecri\n")
                    return 1
                if ch not in "lfdn":
                    yield from io.error(f"umount: invalid option -- '{ch}'\n" + UMOUNT_USAGE)
                    return 1
        else:
            targets.append(a)
    if not targets:
        yield from io.error(UMOUNT_USAGE)
        return 1
    status = 0
    for target in targets:
        if not world.privilege.may("SYS_ADMIN"):
            yield from io.error(f"umount: can't unmount {target}: Operation not permitted\n")
            status = 1
            continue
        try:
            world.unmount(target)
        except FileError as exc:
            yield from io.error(f"umount: can't unmount {target}: {exc.reason}\n")
            status = 1
    return status
