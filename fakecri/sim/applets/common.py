"""What the applets share: their option parsing (busybox's getopt, with its messages), the
one wording for an option we do not model, and reading their input (standard input, or
the container's files when there is a userland).

Text is carried as `str` decoded with `surrogateescape`, so bytes that are not UTF-8 come
out as they went in.
"""
from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field

from fakecri.sim.shell import Io, Process, Reply, Step
from fakecri.sim.usage import usage_text
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.world import FileError

Gen = Generator[Step, Reply, object]


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


class BadUsage(Exception):
    """The command line is wrong: `message` (with the usage after it when `usage`) and the exit code."""

    def __init__(self, message: str, usage: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage


@dataclass(slots=True)
class Options:
    """A parsed command line: each option in order with its value ("" for a flag), and the operands."""

    given: list[tuple[str, str]] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)

    def has(self, ch: str) -> bool:
        return any(c == ch for c, _ in self.given)

    def count(self, ch: str) -> int:
        return sum(1 for c, _ in self.given if c == ch)

    def last(self, ch: str, default: str | None = None) -> str | None:
        values = [v for c, v in self.given if c == ch]
        return values[-1] if values else default

    def all(self, ch: str) -> list[str]:
        return [v for c, v in self.given if c == ch]


def getopt(applet: str, args: list[str], spec: str, *, permute: bool = True,
           longs: dict[str, str] | None = None) -> Options:
    """Parse `args` as busybox's getopt does with `spec` ("d:f:s": `d` and `f` take a value).
    `permute`: options may follow operands (GNU style), else the first operand ends them (the
    applets that run a command). `longs`: long option names, each to the letter it stands for
    (a long option with a value takes it after `=` or as the next word)."""
    opts = Options()
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            opts.operands += args[i:]
            break
        if a.startswith("--") and longs is not None:
            name, eq, value = a[2:].partition("=")
            matches = [n for n in longs if n.startswith(name)]
            exact = name if name in longs else (matches[0] if len(matches) == 1 else None)
            if exact is None:
                raise BadUsage(f"{applet}: unrecognized option '{a}'")
            ch = longs[exact]
            if ch + ":" in spec or (ch in spec and spec[spec.index(ch) + 1:spec.index(ch) + 2] == ":"):
                if not eq:
                    if i >= len(args):
                        raise BadUsage(f"{applet}: option '--{exact}' requires an argument")
                    value = args[i]
                    i += 1
                opts.given.append((ch, value))
            else:
                opts.given.append((ch, ""))
            continue
        if a.startswith("--"):
            raise BadUsage(f"{applet}: unrecognized option '{a}'")
        if not a.startswith("-") or a == "-":
            opts.operands.append(a)
            if not permute:
                opts.operands += args[i:]
                break
            continue
        j = 1
        while j < len(a):
            ch = a[j]
            at = spec.find(ch)
            if at < 0 or ch == ":":
                raise BadUsage(f"{applet}: invalid option -- '{ch}'")
            if spec[at + 1:at + 3] == "::":  # an optional value: only the rest of the same word
                opts.given.append((ch, a[j + 1:]))
                break
            if spec[at + 1:at + 2] == ":":
                value = a[j + 1:]
                if not value:
                    if i >= len(args):
                        raise BadUsage(f"{applet}: option requires an argument -- '{ch}'")
                    value = args[i]
                    i += 1
                opts.given.append((ch, value))
                break
            opts.given.append((ch, ""))
            j += 1
    return opts


def usage_error(io: Io, applet: str, synopsis: str, exc: BadUsage, code: int = 1) -> Process:
    """Report a bad command line as busybox does (the message, then the usage), exit `code`."""
    usage = usage_text(applet, synopsis) if exc.usage else ""
    yield from io.error((f"{exc.message}\n" if exc.message else "") + usage)
    return code


def not_modelled(io: Io, applet: str, what: str, code: int = 1) -> Process:
    """Something busybox's APPLET does that fakecri does not model: say so, fail (never a silent success)."""
    yield from io.error(f"{applet}: {what}: not modelled by fakecri\n")
    return code


def fail(io: Io, text: str, code: int = 1) -> Process:
    yield from io.error(text + "\n")
    return code


def read_stdin(io: Io) -> Generator[Step, Reply, bytes]:
    chunks = []
    while (chunk := (yield from io.stdin.read())) is not None:
        chunks.append(chunk)
    return b"".join(chunks)


def read_path(io: Io, path: str) -> Generator[Step, Reply, bytes]:
    """The bytes of `path` ("-": standard input); FileError when it cannot be read (no userland:
    files are not modelled, said as the reason)."""
    if path in ("-", "/dev/stdin"):
        return (yield from read_stdin(io))
    if path == "/dev/null":
        return b""
    if io.ctx.userland is None:
        raise FileError("files are not modelled outside a container by fakecri")
    world = yield from looking(io)
    return world.read(path)


def read_inputs(io: Io, applet: str, paths: list[str], *, style: str = "plain") -> Generator[
        Step, Reply, tuple[list[tuple[str, bytes]], int]]:
    """The inputs of a filter: each path's bytes (standard input when there are none), and 1 when
    one could not be read, which was reported (`style` "plain": `APPLET: PATH: reason`; "open":
    `APPLET: can't open 'PATH': reason`)."""
    found: list[tuple[str, bytes]] = []
    status = 0
    for path in paths or ["-"]:
        try:
            found.append((path, (yield from read_path(io, path))))
        except FileError as exc:
            where = f"can't open '{path}'" if style == "open" else path
            yield from io.error(f"{applet}: {where}: {exc.reason}\n")
            status = 1
    return found, status


def write_path(io: Io, path: str, data: bytes, *, append: bool = False) -> Generator[Step, Reply, None]:
    """Write `data` to the container's `path` (FileError as for reading)."""
    if path == "/dev/null":
        return
    if path in ("/dev/stdout", "-"):
        yield from io.write(decode(data))
        return
    if path == "/dev/stderr":
        yield from io.error(decode(data))
        return
    if io.ctx.userland is None:
        raise FileError("files are not modelled outside a container by fakecri")
    world = yield from looking(io)
    world.write(path, data, append=append)


def replace_path(io: Io, path: str, data: bytes, backup: str = "") -> Generator[Step, Reply, None]:
    """`path` replaced by a new file holding `data`, with the old one's mode, as busybox's `sed -i`
    does (a temporary file renamed over it): another hard link of the old file keeps the old bytes,
    and a symlink there becomes a file. With `backup`, the old file is renamed to `path + backup`."""
    if io.ctx.userland is None:
        raise FileError("files are not modelled outside a container by fakecri")
    world = yield from looking(io)
    mode = world.stat(path).mode & 0o7777
    if backup:
        if world.lexists(path + backup):
            world.remove(path + backup)
        if not world.rename(path, path + backup):
            world.write(path + backup, world.read(path))
    if world.lexists(path):
        world.remove(path)
    world.write(path, data, mode=mode)


def lines_of(text: str, sep: str = "\n") -> list[str]:
    """The lines of `text` without their separators (a last one without a separator counts)."""
    if not text:
        return []
    parts = text.split(sep)
    if parts[-1] == "":
        parts.pop()
    return parts


def number(text: str) -> int | None:
    """A decimal integer as busybox's xatoi reads it (surrounding blanks are not allowed), or None."""
    t = text
    if not t or t != t.strip():
        return None
    sign = 1
    if t[0] in "+-":
        sign, t = (-1 if t[0] == "-" else 1), t[1:]
    return sign * int(t) if t.isdigit() else None


def options(io: Io, applet: str, args: list[str], spec: str, synopsis: str, *, code: int = 1,
            permute: bool = True, longs: dict[str, str] | None = None) -> Generator[Step, Reply, Options | int]:
    """`getopt`, a bad command line reported (the exit code returned instead of the options)."""
    try:
        return getopt(applet, args, spec, permute=permute, longs=longs)
    except BadUsage as exc:
        return (yield from usage_error(io, applet, synopsis, exc, code))
