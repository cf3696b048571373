"""A tmpfs's mount options as the kernel takes them and shows them in /proc/mounts: the
mount's own flags (ro/rw, nosuid, noatime...) and the tmpfs's (size, nr_inodes, mode, uid,
gid...), each shown only where it differs from the default (a size of half the memory,
mode 1777, owner 0), in the kernel's order."""
from __future__ import annotations

# the mount's own flags, in the order the kernel shows them after ro/rw (the superblock's, then the mount's)
SHOWN_FLAGS = ("sync", "dirsync", "mand", "lazytime", "nosuid", "nodev", "noexec", "noatime", "nodiratime")
TAKEN_BACK = {"async": "sync", "suid": "nosuid", "dev": "nodev", "exec": "noexec", "atime": "noatime",
              "diratime": "nodiratime", "nomand": "mand", "nolazytime": "lazytime"}
MOUNT_FLAGS = frozenset({"ro", "rw", "relatime", "norelatime", "strictatime", *SHOWN_FLAGS, *TAKEN_BACK})
QUIET = frozenset({"loop", "defaults", "bind", "rbind"})  # taken, and nothing to show
TMPFS_OPTIONS = ("size", "nr_blocks", "nr_inodes", "mode", "uid", "gid", "huge", "mpol")
TMPFS_FLAGS = ("inode32", "inode64", "noswap")
HUGE = ("never", "always", "within_size", "advise", "deny", "force")
PAGE = 4096
_UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50, "e": 1 << 60}


def _number(value: str, *, percent: bool) -> bool:
    digits = value[:-1] if value[-1:].lower() in _UNITS or (percent and value.endswith("%")) else value
    return digits.isdigit()


def tmpfs_options_ok(options: list[str]) -> bool:
    """Whether the kernel's tmpfs takes these options (the mount's own flags left out)."""
    for o in options:
        name, eq, value = o.partition("=")
        if name in TMPFS_OPTIONS:
            if not eq or not value:
                return False
            if name in ("size", "nr_blocks", "nr_inodes") and not _number(value, percent=name != "nr_blocks"):
                return False
            if name == "mode" and (not value.isdigit() or any(ch > "7" for ch in value) or int(value, 8) > 0o7777):
                return False
            if name in ("uid", "gid") and not value.isdigit():
                return False
            if name == "huge" and value not in HUGE:
                return False
        elif o not in TMPFS_FLAGS:
            return False
    return True


def read_only(options: str) -> bool:
    """Whether the options make the mount read-only (the last of ro and rw wins)."""
    state = False
    for o in options.split(","):
        if o in ("ro", "rw"):
            state = o == "ro"
    return state


def tmpfs_size(options: str, memory: int) -> int | None:
    """The bytes a tmpfs's last `size=` gives (`N%` of `memory`; a whole number of pages), or None."""
    size = None
    for o in options.split(","):
        if o.startswith("size="):
            value = o[5:]
            if value.endswith("%") and value[:-1].isdigit():
                size = memory // PAGE * int(value[:-1]) // 100 * PAGE  # in whole pages, as the kernel counts
            elif value[-1:].lower() in _UNITS and value[:-1].isdigit():
                size = int(value[:-1]) * _UNITS[value[-1:].lower()]
            elif value.isdigit():
                size = int(value)
    return None if size is None else (size + PAGE - 1) // PAGE * PAGE


def shown_options(options: str, *, readonly: bool, size: int | None, default_size: int) -> str:
    """A tmpfs's options as /proc/mounts shows them, from those it was mounted with."""
    flags: set[str] = set()
    atime = "relatime"
    own: dict[str, str] = {}
    for o in options.split(","):
        name, _, value = o.partition("=")
        if o in SHOWN_FLAGS:
            flags.add(o)
        elif o in TAKEN_BACK:
            flags.discard(TAKEN_BACK[o])
        elif o in ("strictatime", "norelatime"):
            atime = ""
        elif o == "relatime":
            atime = "relatime"
        elif name in TMPFS_OPTIONS or o in TMPFS_FLAGS:
            own[name] = value
    out = ["ro" if readonly else "rw"] + [f for f in SHOWN_FLAGS if f in flags]
    if atime and "noatime" not in flags:
        out.append(atime)
    if size is not None and size != default_size:
        out.append(f"size={size // 1024}k")
    if own.get("nr_inodes"):
        out.append(f"nr_inodes={own['nr_inodes']}")
    if own.get("mode") and int(own["mode"], 8) != 0o1777:
        out.append(f"mode={int(own['mode'], 8):o}")
    out += [f"{name}={int(own[name])}" for name in ("uid", "gid") if own.get(name) and int(own[name]) != 0]
    if own.get("huge") and own["huge"] != "never":
        out.append(f"huge={own['huge']}")
    out += [f for f in TMPFS_FLAGS if f in own and f != "inode64"]
    return ",".join(out)
