"""What a file and a file system look like from inside a container, and who may do what to a file.

`FileStat` is stat(2) as the container sees it (owners in the container's own ids), `FsStat`
statfs(2) and the mount table's line for the file system holding a path. The permission
rule is the kernel's (`may`): the owner's, the group's or the others' bits, with
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH bypassing them as they do. The mode strings are
`ls -l`'s and Go's `os.FileMode`'s. File system magic numbers are those of linux/magic.h.
"""
from __future__ import annotations

from dataclasses import dataclass

from fakecri.sim.userland.privilege import BIT

R, W, X = 4, 2, 1  # what a check wants, as the permission bits say it
SETUID, SETGID, STICKY = 0o4000, 0o2000, 0o1000
OVERFLOW_ID = 65534  # how an id the user namespace does not map shows inside


@dataclass(frozen=True, slots=True)
class FileStat:
    kind: str  # "file", "dir", "link", "char" (a character device), "other"
    mode: int  # permission bits with setuid/setgid/sticky
    uid: int
    gid: int
    size: int = 0
    mtime_ns: int = 0
    nlink: int = 1
    blocks: int = 0  # 512-byte units
    inode: int = 0
    device: int = 0
    target: str = ""  # a symlink's target
    rdev: int = 0  # a device's number (major << 8 | minor)


@dataclass(frozen=True, slots=True)
class FsStat:
    """A mounted file system as the container's mount table and statfs(2) show it."""

    source: str  # /proc/mounts' first field ("overlay", "tmpfs", "/dev/vda")
    point: str  # where it is mounted in the container
    fs_type: str  # its type name ("tmpfs", "ext4")
    options: str  # "rw,relatime,size=10240k"
    block_size: int = 4096
    blocks: int = 0
    blocks_free: int = 0
    blocks_available: int = 0
    files: int = 0
    files_free: int = 0
    name_max: int = 255

    @property
    def magic(self) -> int:
        return MAGIC.get(self.fs_type, 0)


# statfs(2)'s f_type of the file system types a container meets (linux/magic.h)
MAGIC = {
    "tmpfs": 0x01021994, "devtmpfs": 0x01021994, "ramfs": 0x858458F6, "ext2": 0xEF53, "ext3": 0xEF53,
    "ext4": 0xEF53, "xfs": 0x58465342, "btrfs": 0x9123683E, "overlay": 0x794C7630, "proc": 0x9FA0,
    "sysfs": 0x62656572, "devpts": 0x1CD1, "cgroup2": 0x63677270, "cgroup": 0x27E0EB, "mqueue": 0x19800202,
    "nfs": 0x6969, "nfs4": 0x6969, "squashfs": 0x73717368, "zfs": 0x2FC12FC1, "fuse": 0x65735546,
    "fuseblk": 0x65735546, "virtiofs": 0x6A656A63, "9p": 0x01021997, "vfat": 0x4D44, "msdos": 0x4D44,
    "f2fs": 0xF2F52010, "hugetlbfs": 0x958458F6, "bpf": 0xCAFE4A11, "securityfs": 0x73636673,
    "debugfs": 0x64626720, "tracefs": 0x74726163, "nsfs": 0x6E736673, "configfs": 0x62656570,
}
# busybox stat's names for the magic numbers it knows (everything else is UNKNOWN)
BUSYBOX_FS_NAMES = {
    0xADFF: "affs", 0x1CD1: "devpts", 0x137D: "ext", 0xEF51: "ext2", 0xEF53: "ext2/ext3", 0x3153464A: "jfs",
    0x58465342: "xfs", 0xF995E849: "hpfs", 0x9660: "isofs", 0x137F: "minix", 0x4D44: "msdos", 0x6969: "nfs",
    0x9FA0: "proc", 0x517B: "smb", 0x5346544E: "ntfs", 0x01021994: "tmpfs", 0x52654973: "reiserfs",
    0x28CD3D45: "cramfs", 0x7275: "romfs", 0x858458F6: "ramfs", 0x73717368: "squashfs", 0x62656572: "sysfs",
}

_TYPE_CHAR = {"file": "-", "dir": "d", "link": "l", "char": "c", "other": "?"}


def mode_string(kind: str, mode: int) -> str:
    """`ls -l`'s ten characters: "-rw-r--r--", "drwxrwsrwt", "lrwxrwxrwx"."""
    out = [_TYPE_CHAR.get(kind, "?")]
    for shift, special, on, off in ((6, SETUID, "s", "S"), (3, SETGID, "s", "S"), (0, STICKY, "t", "T")):
        bits = (mode >> shift) & 7
        out += ["r" if bits & R else "-", "w" if bits & W else "-"]
        if mode & special:
            out.append(on if bits & X else off)
        else:
            out.append("x" if bits & X else "-")
    return "".join(out)


def go_mode_string(kind: str, mode: int, *, perm_only: bool = False) -> str:
    """Go's `os.FileMode.String()` of a stat: type and special letters ("d", "L", "u", "g", "t")
    before the nine permission characters, or "-" when there is none ("dgtrwxrwxrwx")."""
    letters = ""
    if not perm_only:
        letters += {"dir": "d", "link": "L"}.get(kind, "")
        letters += ("u" if mode & SETUID else "") + ("g" if mode & SETGID else "") + ("t" if mode & STICKY else "")
    perms = "".join(c if mode & (1 << (8 - i)) else "-" for i, c in enumerate("rwxrwxrwx"))
    return (letters or "-") + perms


def file_type_name(st: FileStat) -> str:
    """`stat -c %F`."""
    if st.kind == "file":
        return "regular empty file" if st.size == 0 else "regular file"
    return {"dir": "directory", "link": "symbolic link", "char": "character special file"}.get(st.kind, "weird file")


@dataclass(frozen=True, slots=True)
class Who:
    """Who asks: the process's file system ids and its effective capabilities."""

    uid: int
    gids: frozenset[int]
    caps: int

    def has(self, capability: str) -> bool:
        return bool(self.caps & BIT[capability])


def may(who: Who, st: FileStat, want: int) -> bool:
    """Whether `who` may read (R), write (W) or execute/search (X) what `st` describes, as the
    kernel decides (generic_permission): CAP_DAC_OVERRIDE passes reads and writes and the search
    of a directory, and the execution of a file with any x bit; CAP_DAC_READ_SEARCH passes
    reads and the search of a directory."""
    is_dir = st.kind == "dir"
    if who.has("DAC_OVERRIDE") and (not want & X or is_dir or st.mode & 0o111):
        return True
    if who.has("DAC_READ_SEARCH") and not want & W and (is_dir or not want & X):
        return True
    if who.uid == st.uid:
        bits = st.mode >> 6
    elif st.gid in who.gids:
        bits = st.mode >> 3
    else:
        bits = st.mode
    return bits & want == want


def to_container(host_id: int, mapping: tuple[tuple[int, int, int], ...] | None) -> int:
    """A host uid or gid as the container's user namespace shows it (None: the host's own)."""
    if mapping is None:
        return host_id
    for inside, outside, length in mapping:
        if outside <= host_id < outside + length:
            return inside + host_id - outside
    return OVERFLOW_ID


def to_host(inside_id: int, mapping: tuple[tuple[int, int, int], ...] | None) -> int:
    """A container uid or gid as the host sees it (-1 when the namespace does not map it)."""
    if mapping is None:
        return inside_id
    for inside, outside, length in mapping:
        if inside <= inside_id < inside + length:
            return outside + inside_id - inside
    return -1


def shown_id(disk_id: int, mount_map: tuple[tuple[int, int, int], ...],
             ns_map: tuple[tuple[int, int, int], ...] | None) -> int:
    """A file's on-disk uid or gid as the container sees it: through the mount's idmap first
    (an idmapped mount, the kubelet's `uid_mappings`/`gid_mappings`: the on-disk id is read as
    an id of that map), then through the container's user namespace."""
    host = to_host(disk_id, mount_map) if mount_map else disk_id
    return OVERFLOW_ID if host < 0 else to_container(host, ns_map)


def disk_id(inside_id: int, mount_map: tuple[tuple[int, int, int], ...],
            ns_map: tuple[tuple[int, int, int], ...] | None) -> int:
    """The on-disk id a container's uid or gid is written as on a (possibly idmapped) mount; -1: none."""
    host = to_host(inside_id, ns_map)
    if host < 0 or not mount_map:
        return host
    for inside, outside, length in mount_map:
        if outside <= host < outside + length:
            return inside + host - outside
    return -1


def human_size(value: int, block_size: int, unit: int) -> str:
    """busybox's make_human_readable_str: `value` blocks of `block_size` bytes in units of `unit`
    bytes, rounded; unit 0 picks a suffix (K, M, G...) and shows one decimal ("10.0M")."""
    if value == 0:
        return "0"
    val = value * block_size if block_size > 1 else value
    if unit:
        return str((val + unit // 2) // unit)
    suffixes = "KMGTPEZY"
    n, frac = -1, 0
    while val >= 1024:
        n += 1
        frac = ((val % 1024) * 10 + 512) // 1024
        val //= 1024
    if frac >= 10:
        val, frac = val + 1, 0
    if n < 0:
        return str(val)
    if block_size == 0:
        return f"{val + (1 if frac >= 5 else 0)}{suffixes[n]}"
    return f"{val}.{frac}{suffixes[n]}"
