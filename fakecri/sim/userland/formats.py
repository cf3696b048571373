"""How busybox prints what it learns of files: `ls -l` lines, `stat` and `stat -f` formats,
`df` rows and `hexdump -C`. Pure functions over `FileStat` and `FsStat`; times are shown in
UTC (a container's default zone).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from fakecri.sim.userland.fs import (
    BUSYBOX_FS_NAMES,
    FileStat,
    FsStat,
    file_type_name,
    human_size,
    mode_string,
)

TYPE_BITS = {"file": 0o100000, "dir": 0o040000, "link": 0o120000, "char": 0o020000, "other": 0}
IO_BLOCK = 4096
MAX_WIDTH = 4096  # a printf width beyond this is taken as this
_SPEC = re.compile(r"%([#\-+. I0-9]*)(.?)", re.S)


def _utc(ns: int) -> datetime:
    return datetime.fromtimestamp(ns // 1_000_000_000, tz=UTC)


def ls_time(mtime_ns: int) -> str:
    """`ls -l`'s time column: "Nov 26 10:08", or "Jan  1  1970" for a file of unknown age."""
    when = _utc(mtime_ns)
    day = f"{when.strftime('%b')} {when.day:>2}"
    return f"{day}  {when.year}" if mtime_ns == 0 else f"{day} {when.strftime('%H:%M')}"


def human_time(ns: int) -> str:
    """`stat`'s times: "2026-11-26 10:08:51.123456789 +0000"."""
    return _utc(ns).strftime("%Y-%m-%d %H:%M:%S") + f".{ns % 1_000_000_000:09d} +0000"


def ls_line(st: FileStat, name: str, user: str, group: str, *, human: bool = False) -> str:
    """One line of `ls -l` (`user` and `group` as they are shown: names or numbers)."""
    size = human_size(st.size, 1, 0) if human else str(st.size)
    if st.kind == "char":
        size = f"{st.rdev >> 8:4},{st.rdev & 0xFF:4}"  # a device shows its numbers
    line = (f"{mode_string(st.kind, st.mode):<10} {st.nlink:>4} {user:<8} {group:<8} {size:>9} "
            f"{ls_time(st.mtime_ns)} {name}")
    return line + (f" -> {st.target}" if st.kind == "link" else "")


def printf(mods: str, conv: str, value: str | int) -> str:
    """One C printf conversion (`%-10s`, `%04o`, `%lx`...) of `value`, as busybox stat builds them."""
    flags = re.match(r"[#\-+ 0I]*", mods)
    flag = flags.group(0) if flags else ""
    sizes = re.match(r"(\d*)(?:\.(\d*))?", mods[len(flag):])
    width = min(int(sizes.group(1)), MAX_WIDTH) if sizes and sizes.group(1) else 0
    prec = sizes.group(2)[:4] if sizes and sizes.group(2) is not None else None  # None: no precision given
    left = "-" in flag
    if isinstance(value, str):
        text = value[:int(prec or 0)] if prec is not None else value
        return text.ljust(width) if left else text.rjust(width)
    digits = {"o": f"{value:o}", "x": f"{value:x}"}.get(conv, str(abs(value)))
    if prec:
        digits = digits.rjust(int(prec), "0")
    prefix = "-" if conv == "d" and value < 0 else ("+" if "+" in flag else (" " if " " in flag else ""))
    if "#" in flag and value:
        prefix += {"o": "0", "x": "0x"}.get(conv, "")
    if "0" in flag and not left and prec is None:
        return prefix + digits.rjust(width - len(prefix), "0")
    text = prefix + digits
    return text.ljust(width) if left else text.rjust(width)


def expand(fmt: str, field: Callable[[str], tuple[str, str | int] | None]) -> str:
    """busybox stat's `-c` format: each `%X` through `field(X)` -> (conversion, value), None for
    an unknown letter (printed as it is); `%%` is a percent sign; a newline ends it."""
    out = []
    pos = 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        mods, letter = m.group(1), m.group(2)
        if letter in ("%", ""):
            out.append("%")
            continue
        got = field(letter)
        if got is None:
            out.append(printf(mods, "s", letter))
        else:
            out.append(printf(mods, got[0], got[1]))
    out.append(fmt[pos:])
    return "".join(out) + "\n"


Field = Callable[[str], tuple[str, str | int] | None]


def stat_field(st: FileStat, name: str, link: str, user: str, group: str) -> Field:
    """What `stat -c` prints for each letter, of file `name` (`link`: its target, for a symlink)."""
    raw = TYPE_BITS.get(st.kind, 0) | st.mode
    values: dict[str, tuple[str, str | int]] = {
        "n": ("s", name), "N": ("s", f"'{name}' -> '{link}'" if st.kind == "link" else name),
        "d": ("d", st.device), "D": ("x", st.device), "i": ("d", st.inode), "a": ("o", st.mode & 0o7777),
        "A": ("s", mode_string(st.kind, st.mode)), "f": ("x", raw), "F": ("s", file_type_name(st)),
        "h": ("d", st.nlink), "u": ("d", st.uid), "U": ("s", user or "UNKNOWN"), "g": ("d", st.gid),
        "G": ("s", group or "UNKNOWN"), "t": ("x", st.rdev >> 8), "T": ("x", st.rdev & 0xFF), "s": ("d", st.size),
        "B": ("d", 512),
        "b": ("d", st.blocks), "o": ("d", IO_BLOCK), "x": ("s", human_time(st.mtime_ns)),
        "X": ("d", st.mtime_ns // 1_000_000_000), "y": ("s", human_time(st.mtime_ns)),
        "Y": ("d", st.mtime_ns // 1_000_000_000), "z": ("s", human_time(st.mtime_ns)),
        "Z": ("d", st.mtime_ns // 1_000_000_000),
    }
    return values.get


STAT_DEFAULT = ("  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n"
                "Device: %Dh/%dd\tInode: %-10i  Links: %h\n"
                "Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n"
                "Access: %x\nModify: %y\nChange: %z")
STAT_TERSE = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %o"
STATFS_DEFAULT = ("  File: \"%n\"\n    ID: %-8i Namelen: %-7l Type: %T\nBlock size: %-10s\n"
                  "Blocks: Total: %-10b Free: %-10f Available: %a\nInodes: Total: %-10c Free: %d")
STATFS_TERSE = "%n %i %l %t %s %b %f %a %c %d"


def statfs_field(fs: FsStat, name: str) -> Field:
    """What `stat -f -c` prints for each letter."""
    values: dict[str, tuple[str, str | int]] = {
        "n": ("s", name), "i": ("x", 0), "l": ("d", fs.name_max), "t": ("x", fs.magic),
        "T": ("s", BUSYBOX_FS_NAMES.get(fs.magic, "UNKNOWN")), "b": ("d", fs.blocks), "f": ("d", fs.blocks_free),
        "a": ("d", fs.blocks_available), "s": ("d", fs.block_size), "S": ("d", fs.block_size),
        "c": ("d", fs.files), "d": ("d", fs.files_free),
    }
    return values.get


def df_header(unit: int, *, show_type: bool = False, posix: bool = False) -> str:
    """`df`'s first line for sizes in `unit` bytes (0: human-readable)."""
    units = "     Size" if unit == 0 else f"{human_size(unit, 0, 1 if posix else 0)}-blocks"
    return (f"Filesystem           {'Type       ' if show_type else ''}{units:<15}Used Available "
            f"{'Capacity' if posix else 'Use%'} Mounted on\n")


def df_row(fs: FsStat, unit: int, *, show_type: bool = False) -> str:
    """One `df` line; a long device name goes on a line of its own."""
    used = fs.blocks - fs.blocks_free
    total = used + fs.blocks_available
    percent = (used * 100 + total // 2) // total if total else 0
    device = fs.source if len(fs.source) <= 20 else fs.source + "\n" + " " * 20
    kind = f" {fs.fs_type:<10}" if show_type else ""
    return (f"{device:<20}{kind} {human_size(fs.blocks, fs.block_size, unit):>9} "
            f"{human_size(used, fs.block_size, unit):>9} {human_size(fs.blocks_available, fs.block_size, unit):>9} "
            f"{percent:>3}% {fs.point}\n")


def hexdump_canonical(data: bytes) -> str:
    """`hexdump -C`: offset, sixteen bytes in hex in two groups, the printable ones; a run of lines
    like the one before is one `*`."""
    out = []
    previous: bytes | None = None
    starred = False
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        if chunk == previous and len(chunk) == 16:
            if not starred:
                out.append("*\n")
                starred = True
            continue
        previous, starred = chunk, False
        cells = [f" {b:02x}" for b in chunk] + ["   "] * (16 - len(chunk))
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        out.append(f"{off:08x} {''.join(cells[:8])} {''.join(cells[8:])}  |{text}|\n")
    out.append(f"{len(data):08x}\n")
    return "".join(out)
