"""agnhost mounttest: print what a path is, as Kubernetes' volume tests read it from the log.

In its order: `--fs_type` (the file system type: "tmpfs", else statfs's magic number in
decimal), `--new_file_0644` / `0666` / `0660` / `0777` (write "mount-tester new file\\n" with
that mode, umask 0, then print it), `--file_mode` (Go's FileMode string, "-rw-r--r--"),
`--file_perm` (its permission part), `--file_owner` (uid and gid), `--file_content`, and
`--file_content_in_loop` (read every 2 s for `--retry_time` seconds, 180 by default; with
`--break_on_expected_content`, true by default, it stops once the content is the new-file
text). Each failure is printed as Go prints the error; any failure makes the exit code 1.
Flags take `--name=value` or `--name value`, `-` and `_` alike; an unknown flag or an
argument fails as cobra fails (usage, then `Error: ...`, exit 1).
"""
from __future__ import annotations

from collections.abc import Generator

from fakecri.engine.durations import NS
from fakecri.sim.shell import Io, Process, Sleep, Step
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.fs import go_mode_string
from fakecri.sim.userland.world import FileError, Userland

NEW_CONTENT = "mount-tester new file\n"
LOOP_PERIOD_NS = 2 * NS["s"]
STRINGS = ("fs_type", "file_mode", "file_perm", "file_owner", "new_file_0644", "new_file_0666", "new_file_0660",
           "new_file_0777", "file_content", "file_content_in_loop")
NEW_FILES = (("new_file_0644", 0o644), ("new_file_0666", 0o666), ("new_file_0660", 0o660), ("new_file_0777", 0o777))
USAGE = "Usage:\n  app mounttest [flags]\n\n"


class _Usage(Exception):
    """A command line cobra refuses; `usage`: whether it prints the usage first (a flag error)."""

    def __init__(self, message: str, usage: bool = True) -> None:
        super().__init__(message)
        self.usage = usage


def _go_error(reason: str) -> str:
    """An errno's text as Go prints it ("no such file or directory")."""
    return reason[:1].lower() + reason[1:]


def _q(text: str) -> str:
    """Go's %q of a string."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _bool(name: str, text: str) -> bool:
    if text in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if text in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise _Usage(f'invalid argument "{text}" for "--{name}" flag: strconv.ParseBool: parsing "{text}": '
                 "invalid syntax")


def parse(args: list[str]) -> tuple[dict[str, str], int, bool]:
    """(the string flags given, retry_time, break_on_expected_content); _Usage for a bad command line."""
    values: dict[str, str] = {}
    retry, brk = 180, True
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            operands += args[i:]
            break
        if not a.startswith("-") or a == "-":
            operands.append(a)
            continue
        if not a.startswith("--"):
            raise _Usage(f"unknown shorthand flag: '{a[1:2]}' in {a}")
        name, eq, value = a[2:].partition("=")
        key = name.replace("-", "_")
        if key == "break_on_expected_content":
            brk = _bool(name, value) if eq else True
            continue
        if key not in STRINGS and key != "retry_time":
            raise _Usage(f"unknown flag: --{name}")
        if not eq:
            if i >= len(args):
                raise _Usage(f"flag needs an argument: --{name}")
            value = args[i]
            i += 1
        if key == "retry_time":
            try:
                retry = int(value, 0)
            except ValueError:
                raise _Usage(f'invalid argument "{value}" for "--{name}" flag: strconv.ParseInt: parsing '
                             f'"{value}": invalid syntax') from None
        else:
            values[key] = value
    if operands:
        raise _Usage(f"accepts at most 0 arg(s), received {len(operands)}", usage=False)
    return values, retry, brk


def _read(world: Userland, path: str) -> str:
    try:
        return world.read(path).decode("utf-8", "surrogateescape")
    except FileError as exc:
        verb = "read" if exc.reason == "Is a directory" else "open"
        raise FileError(f"{verb} {path}: {_go_error(exc.reason)}") from None


def _content(world: Userland, path: str) -> tuple[str, bool]:
    try:
        return f"content of file {_q(path)}: {_read(world, path)}\n", True
    except FileError as exc:
        return f"error reading file content for {_q(path)}: {exc.reason}\n", False


def _checks(world: Userland, values: dict[str, str]) -> Generator[tuple[str, bool], None, None]:
    """(what each check before the loop prints, whether it passed), in mounttest's order."""
    if path := values.get("fs_type"):
        try:
            fs = world.statfs(path)
            yield f"mount type of {_q(path)}: {'tmpfs' if fs.fs_type == 'tmpfs' else fs.magic}\n", True
        except FileError as exc:
            yield f"error from statfs({_q(path)}): {_go_error(exc.reason)}\n", False
    for key, perm in NEW_FILES:
        if path := values.get(key):
            try:
                world.write(path, NEW_CONTENT.encode(), mode=perm)
            except FileError as exc:
                yield f"error writing new file {_q(path)}: open {path}: {_go_error(exc.reason)}\n", False
                continue
            yield _content(world, path)
    for key in ("file_mode", "file_perm"):
        if path := values.get(key):
            try:
                st = world.stat(path)
            except FileError as exc:
                yield f"error from Stat({_q(path)}): stat {path}: {_go_error(exc.reason)}\n", False
                continue
            label = "mode of file" if key == "file_mode" else "perms of file"
            yield f"{label} {_q(path)}: {go_mode_string(st.kind, st.mode, perm_only=key == 'file_perm')}\n", True
    if path := values.get("file_owner"):
        try:
            st = world.stat(path)
            yield f"owner UID of {_q(path)}: {st.uid}\nowner GID of {_q(path)}: {st.gid}\n", True
        except FileError as exc:
            yield f"error from stat({_q(path)}): {_go_error(exc.reason)}\n", False
    if path := values.get("file_content"):
        yield _content(world, path)


def _loop(io: Io, path: str, retry_s: int, brk: bool) -> Generator[Step, bytes | None, bool]:
    """--file_content_in_loop: True when the last read worked."""
    elapsed, ok = 0, True
    while elapsed < retry_s * NS["s"]:
        world = yield from looking(io)
        try:
            text = _read(world, path)
        except FileError as exc:
            ok = False
            yield from io.write(f"Error reading file {path}: {exc.reason}, retrying\n")
        else:
            ok = True
            yield from io.write(f"content of file {_q(path)}: {text}\n")
            if brk and text == NEW_CONTENT:
                break
            if brk:
                yield from io.write(f"Unexpected content. Expected: {NEW_CONTENT}. Retrying\n")
        yield Sleep(LOOP_PERIOD_NS)
        elapsed += LOOP_PERIOD_NS
    return ok


def run(args: list[str], io: Io) -> Process:
    try:
        values, retry, brk = parse(args)
    except _Usage as bad:
        yield from io.error((USAGE if bad.usage else "") + f"Error: {bad}\n")
        return 1
    world = yield from looking(io)
    failed = False
    for line, ok in _checks(world, values):
        failed = failed or not ok
        yield from io.write(line)
    if path := values.get("file_content_in_loop"):
        failed = not (yield from _loop(io, path, retry, brk)) or failed
    return 1 if failed else 0
