"""The commands that look at and change a container's files: `cat`, `stat`, `df`, `mount` and
`umount` (mount_cmd.py), `mkdir`, `rm`, `ln`, `readlink`, `chmod`, `chown`, `chgrp`, `hexdump` (`test` and
`[` are sim/applets/conditions.py's).

Messages and exit codes are busybox's. Each one yields `LOOK` before it looks, so a
container's own command that does so after time has passed is run on live and sees the
files as they are at that moment.
"""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Generator

from fakecri.sim.shell import COMMANDS, LOOK, Command, Io, Process, Step
from fakecri.sim.usage import bad_command_line, usage_text
from fakecri.sim.userland.formats import (
    STAT_DEFAULT,
    STAT_TERSE,
    STATFS_DEFAULT,
    STATFS_TERSE,
    df_header,
    df_row,
    expand,
    hexdump_canonical,
    stat_field,
    statfs_field,
)
from fakecri.sim.userland.modes import parse_mode
from fakecri.sim.userland.mount_cmd import mount_cmd, umount_cmd
from fakecri.sim.userland.world import FileError, Userland


def world_of(io: Io) -> Userland:
    if io.ctx.userland is None:
        raise RuntimeError("a userland command runs only inside a container")
    world: Userland = io.ctx.userland()
    world.umask = io.umask  # (what it makes now gets this process's umask)
    return world


def looking(io: Io) -> Generator[Step, bytes | None, Userland]:
    """The container's userland, at the moment the command looks at it."""
    yield LOOK
    return world_of(io)


def split_flags(args: list[str], with_value: str = "") -> tuple[set[str], dict[str, str], list[str]]:
    """(flags, values of the options in `with_value`, operands), getopt-style: flags before the
    first operand, `--` ends them."""
    flags: set[str] = set()
    values: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if rest or not a.startswith("-") or a == "-":
            rest.append(a)
            continue
        if a == "--":
            rest += args[i:]
            break
        for j, ch in enumerate(a[1:], 1):
            if ch in with_value:
                values[ch] = a[j + 1:] or (args[i] if i < len(args) else "")
                i += 0 if a[j + 1:] else 1
                break
            flags.add(ch)
    return flags, values, rest


def checked(applet: str, known: str, run: Command, *, with_value: str = "", modelled: str | None = None,
            longs: dict[str, str] | None = None, operands: tuple[int, int | None] = (0, None),
            quiet_none: str = "") -> Command:
    """`run` behind busybox's getopt for `applet`: an option it lacks is its `invalid option`
    (or `unrecognized option`) with the usage after it, exit 1; one of `known` that fakecri does
    not model (not in `modelled`) says so, exit 2; fewer or more operands than `operands` allows
    is the usage, exit 1 (no operand with flag `quiet_none` is a quiet success: `rm -f`). Long
    options in `longs` are given to `run` as their letters."""
    def command(args: list[str], io: Io) -> Process:
        problem = bad_command_line(applet, args, known, with_value, tuple(longs or ()))
        if problem:
            yield from io.error(problem)
            return 1
        given = _short(args, longs or {})
        flags, _, rest = split_flags(given, with_value)
        for flag in sorted(flags):
            if modelled is not None and flag not in modelled:
                yield from io.error(f"{applet}: -{flag} is not modelled by fakecri\n")
                return 2
        low, high = operands
        if quiet_none and not rest and flags & set(quiet_none):
            return 0
        if len(rest) < low or (high is not None and len(rest) > high):
            yield from io.error(usage_text(applet))
            return 1
        return (yield from run(given, io))
    return command


def _short(args: list[str], longs: dict[str, str]) -> list[str]:
    """`--name[=VALUE]` (a prefix of one of `longs`) as its letter, before the first operand."""
    out: list[str] = []
    for i, a in enumerate(args):
        if a == "--" or not a.startswith("-") or a == "-":
            return out + args[i:]
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            letter = next(letter for long, letter in longs.items() if long.startswith(name))
            out.append("-" + letter)
            if eq:
                out.append(value)
            continue
        out.append(a)
    return out


def _cat(args: list[str], io: Io) -> Process:
    if all(a in ("-", "/dev/stdin") for a in args):  # standard input, as the shell's own cat reads it
        return (yield from COMMANDS["cat"]([], io))
    world = yield from looking(io)
    status = 0
    for path in args:
        try:
            data = world.read(path)
        except FileError as exc:
            yield from io.error(f"cat: can't open '{path}': {exc.reason}\n")
            status = 1
            continue
        yield from io.write(data.decode("utf-8", "surrogateescape"))
    return status


def _stat(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, values, paths = split_flags(args, "c")
    if not paths:
        yield from io.error("stat: missing operand\n")
        return 1
    status = 0
    for path in paths:
        try:
            if "f" in flags:
                fmt = values.get("c") or (STATFS_TERSE if "t" in flags else STATFS_DEFAULT)
                yield from io.write(expand(fmt, statfs_field(world.statfs(path), path)))
                continue
            st = world.stat(path, follow="L" in flags)
        except FileError as exc:
            what = "read file system information for" if "f" in flags else "stat"
            yield from io.error(f"stat: can't {what} '{path}': {exc.reason}\n")
            status = 1
            continue
        fmt = values.get("c") or (STAT_TERSE if "t" in flags else STAT_DEFAULT)
        user, group = world.user_named(st.uid), world.group_named(st.gid)
        yield from io.write(expand(fmt, stat_field(st, path, st.target, user, group)))
    return status


def _df(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, values, paths = split_flags(args, "tB")
    environ = io.environ() if io.environ is not None else world.env()  # (the process's own environment)
    # 1 KiB blocks, 512-byte ones only under POSIXLY_CORRECT (busybox's df; -P alone does not change them)
    unit = 0 if flags & {"h", "H"} else 1024 * 1024 if "m" in flags else 512 if "POSIXLY_CORRECT" in environ \
        else 1024
    out = [df_header(unit, show_type="T" in flags, posix="P" in flags)]
    status = 0
    if paths:
        for path in paths:
            try:
                out.append(df_row(world.statfs(path), unit, show_type="T" in flags))
            except FileError:
                yield from io.error(f"df: {path}: can't find mount point\n")
                status = 1
    else:
        for fs in world.mount_table():
            if (fs.blocks > 0 or "a" in flags) and fs.fs_type == values.get("t", fs.fs_type):
                out.append(df_row(fs, unit, show_type="T" in flags))
    yield from io.write("".join(out))
    return status


def _each(verb: str, action: Callable[[Userland, str, set[str], dict[str, str]], None], *, with_value: str = "",
          what: Callable[[str], str] = lambda path: path, quiet: str = "") -> Command:
    """A command that acts on each operand, reporting each failure as `verb: WHAT: reason`;
    with flag `quiet` a missing operand is no failure (`rm -f`)."""
    def run(args: list[str], io: Io) -> Process:
        world = yield from looking(io)
        flags, values, paths = split_flags(args, with_value)
        if not paths:
            yield from io.error(f"{verb}: missing operand\n")
            return 1
        status = 0
        for path in paths:
            try:
                action(world, path, flags, values)
            except FileError as exc:
                if not (quiet and quiet in flags and exc.reason.startswith("No such")):
                    yield from io.error(f"{verb}: {what(path)}: {exc.reason}\n")
                    status = 1
        return status
    return run


def _mkdir(world: Userland, path: str, flags: set[str], values: dict[str, str]) -> None:
    try:
        mode = parse_mode(values["m"], 0o777) if "m" in values else None
    except ValueError:
        raise FileError(f"invalid mode '{values['m']}'") from None
    world.mkdir(path, parents="p" in flags)
    if mode is not None:
        world.chmod(path, mode)


def _rm(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, _, paths = split_flags(args)
    if not paths:
        if "f" in flags:
            return 0
        yield from io.error("rm: missing operand\n")
        return 1
    status = 0
    for path in paths:
        if not flags & {"r", "R"} and world.lexists(path) and world.stat(path, follow=False).kind == "dir":
            yield from io.error(f"rm: '{path}' is a directory\n")
            status = 1
            continue
        try:
            world.remove(path, recursive=bool(flags & {"r", "R"}))
        except FileError as exc:
            if not ("f" in flags and exc.reason.startswith("No such")):
                yield from io.error(f"rm: can't remove '{path}': {exc.reason}\n")
                status = 1
    return status


def _ln(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, _, paths = split_flags(args)
    if len(paths) < 2:  # one TARGET: a link of its name in the current directory
        paths = [*paths, "."]
    *targets, link = paths
    status = 0
    for target in targets:
        where = posixpath.join(link, posixpath.basename(target)) if len(targets) > 1 or (
            world.is_dir(link) and "n" not in flags) else link
        if "s" not in flags and not world.lexists(target):
            yield from io.error(f"ln: {target}: No such file or directory\n")  # (busybox stats it first)
            status = 1
            continue
        try:
            if "f" in flags and world.lexists(where) and not world.is_dir(where):
                world.remove(where)
            if "s" in flags:
                world.symlink(target, where)
            else:
                world.link(target, where)
        except FileError as exc:
            yield from io.error(f"ln: {where}: {exc.reason}\n")
            status = 1
    return status


def _readlink(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, _, paths = split_flags(args)
    status = 0
    for path in paths:
        try:
            shown = world.resolve(path) if "f" in flags else world.readlink(path)
            if "f" in flags and not world.is_dir(posixpath.dirname(shown) or "/"):
                raise FileError("No such file or directory")  # only the last name may be missing
        except FileError:
            status = 1
            continue
        yield from io.write(shown + ("" if "n" in flags else "\n"))
    return status


def _chmod_one(world: Userland, path: str, spec: str, recursive: bool) -> None:
    st = world.stat(path)
    world.chmod(path, parse_mode(spec, st.mode, is_dir=st.kind == "dir"))
    if recursive and st.kind == "dir":
        for name in world.listdir(path):
            _chmod_one(world, posixpath.join(path, name), spec, True)


def _chmod(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, _, rest = split_flags([a for a in args if not (a[:1] == "-" and a[1:2] in "rwxXst")])
    spec_at = next((i for i, a in enumerate(args) if a[:1] == "-" and a[1:2] in "rwxXst"), None)
    if spec_at is not None:  # a mode such as -w, given where an option could be
        rest = [args[spec_at]] + rest
    if len(rest) < 2:
        yield from io.error(usage_text("chmod"))
        return 1
    spec, paths = rest[0], rest[1:]
    try:
        parse_mode(spec, 0)
    except ValueError:
        yield from io.error(f"chmod: invalid mode '{spec}'\n")
        return 1
    status = 0
    for path in paths:
        try:
            _chmod_one(world, path, spec, "R" in flags)
        except FileError as exc:
            yield from io.error(f"chmod: {path}: {exc.reason}\n")
            status = 1
    return status


def _owner(verb: str) -> Command:
    def run(args: list[str], io: Io) -> Process:
        world = yield from looking(io)
        flags, _, rest = split_flags(args)
        if len(rest) < 2:
            yield from io.error(f"{verb}: missing operand\n")
            return 1
        spec, paths = rest[0], rest[1:]
        user, _, group = spec.partition(":") if verb == "chown" else ("", "", spec)
        uid = _id_of(user, world.content.passwd) if user else -1
        gid = _id_of(group, world.content.group) if group else -1
        if uid is None or gid is None:
            kind, name = ("user", user) if uid is None else ("group", group)
            yield from io.error(f"{verb}: unknown {kind} {name}\n")
            return 1
        status = 0
        todo = list(reversed(paths))
        while todo:
            path = todo.pop()
            try:
                world.chown(path, uid, gid, follow="h" not in flags)
                if "R" in flags and world.stat(path, follow=False).kind == "dir":  # -R: what is under it,
                    todo += reversed([posixpath.join(path, n) for n in world.listdir(path)])  # links not followed
            except FileError as exc:
                if "f" not in flags:
                    yield from io.error(f"{verb}: {path}: {exc.reason}\n")
                status = 1
        return status
    return run


def _id_of(name: str, table: str) -> int | None:
    if name.isdigit():
        return int(name)
    for line in table.splitlines():
        parts = line.split(":")
        if len(parts) > 2 and parts[0] == name and parts[2].isdigit():
            return int(parts[2])
    return None


def _hexdump(args: list[str], io: Io) -> Process:
    """`hexdump -C [FILE]...`: the canonical dump of the files, or of standard input without one."""
    flags, _, paths = split_flags(args)
    if flags != {"C"}:
        yield from io.error("hexdump: only -C is modelled by fakecri\n")
        return 2
    data = b""
    status = 0
    if not paths or paths == ["-"]:
        while (chunk := (yield from io.stdin.read())) is not None:
            data += chunk
        paths = []
    world = (yield from looking(io)) if paths else None
    for path in paths:
        try:
            assert world is not None
            data += world.read(path)
        except FileError as exc:
            yield from io.error(f"hexdump: {path}: {exc.reason}\n")
            status = 1
    if data:
        yield from io.write(hexdump_canonical(data))
    return status


FILE_COMMANDS: dict[str, Command] = {
    "cat": _cat, "stat": checked("stat", "cftL", _stat, with_value="c", operands=(1, None)),
    "df": checked("df", "ahikmtBHPT", _df, with_value="tB", modelled="ahkmtHPT"),
    "mount": mount_cmd, "umount": umount_cmd,
    "mkdir": checked("mkdir", "mpv", _each("mkdir", _mkdir, with_value="m", what=lambda p: f"can't create directory "
                                                                                        f"'{p}'"),
                     with_value="m", modelled="mp", longs={"mode": "m", "parents": "p", "verbose": "v"},
                     operands=(1, None)),
    "rm": checked("rm", "firvR", _rm, modelled="frR", operands=(1, None), quiet_none="f"),
    "ln": checked("ln", "bfnsvST", _ln, with_value="S", modelled="fns", operands=(1, None)),
    "readlink": checked("readlink", "fnqsv", _readlink, modelled="fnqs", operands=(1, 1)),
    "chmod": _chmod,
    "chown": checked("chown", "cfhvHLPR", _owner("chown"), modelled="fhR", operands=(2, None)),
    "chgrp": checked("chgrp", "cfhvHLPR", _owner("chgrp"), modelled="fhR", operands=(2, None)),
    "hexdump": _hexdump,
}
