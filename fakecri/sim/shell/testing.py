"""`test`, `[` and `[[ ]]`, as busybox has them: strings, integers (64 bits), and the container's
files (looked at through its userland, at the moment the test runs). Its errors are
busybox's: `sh: x: bad number`, `sh: x: out of range`, `sh: missing ]`, status 2. The one
implementation: ash's builtins and the applets (`busybox test`, `env [ ... ]`,
fakecri/sim/applets/conditions.py) are busybox's one test_main, which names its errors by the
shell or by the applet."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Generator
from typing import Any

from fakecri.sim.shell.ast import Word
from fakecri.sim.shell.io import Io
from fakecri.sim.shell.pattern import matches
from fakecri.sim.shell.state import Shell
from fakecri.sim.steps import LOOK, Process, Reply, Step

R, W, X = 4, 2, 1
UNARY_FILE = frozenset("efdsrwxLhbcpSgukOGNt")
UNARY = frozenset({"-z", "-n", *(f"-{c}" for c in UNARY_FILE)})
BINARY = frozenset({"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef", "=~"})


class TestError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _int(text: str) -> int:
    t = text.strip()
    if re.fullmatch(r"[-+]?\d+", t):
        value = int(t)
        if not -(1 << 63) <= value < 1 << 63:
            raise TestError(f"{text}: out of range")
        return value
    raise TestError(f"{text}: bad number" if text else "bad number")


class _Eval:
    def __init__(self, args: list[str], world: Callable[[], Any], patterns: bool, cwd: str = "/") -> None:
        self.args, self.i, self.world, self.patterns, self.cwd = args, 0, world, patterns, cwd

    def path(self, arg: str) -> str:
        return arg if arg.startswith("/") or not arg else posixpath.join(self.cwd, arg)

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.args[j] if j < len(self.args) else None

    def run(self) -> bool:
        if not self.args:
            return False
        value = self.or_()
        if self.i < len(self.args):
            raise TestError(f"{self.args[self.i]}: unknown operand")
        return value

    def or_(self) -> bool:
        value = self.and_()
        while self.peek() in ("-o", "||"):
            self.i += 1
            right = self.and_()
            value = value or right
        return value

    def and_(self) -> bool:
        value = self.not_()
        while self.peek() in ("-a", "&&"):
            self.i += 1
            right = self.not_()
            value = value and right
        return value

    def not_(self) -> bool:
        if self.peek() == "!" and self.peek(1) is not None:
            self.i += 1
            return not self.not_()
        return self.primary()

    def primary(self) -> bool:
        a = self.peek()
        if a is None:
            raise TestError("argument expected")
        b, c = self.peek(1), self.peek(2)
        if a == "(" and not (b in BINARY and c is not None):
            self.i += 1
            value = self.or_()
            if self.peek() != ")":
                raise TestError("closing paren expected" if self.peek() is None else f"{self.peek()}: unknown operand")
            self.i += 1
            return value
        if b is not None and b in BINARY:
            if c is None:
                raise TestError(f"{b}: argument expected")
            self.i += 3
            return self.binary(a, b, c)
        if a in UNARY and b is not None:
            self.i += 2
            return self.unary(a, b)
        self.i += 1
        return a != ""

    def unary(self, op: str, arg: str) -> bool:
        if op == "-z":
            return arg == ""
        if op == "-n":
            return arg != ""
        if op == "-t":
            return False
        world = self.world()
        if world is None:
            return False
        arg = self.path(arg)
        try:
            if op == "-e":
                return bool(world.exists(arg))
            if op in ("-L", "-h"):
                return bool(world.lexists(arg)) and world.stat(arg, follow=False).kind == "link"
            if not world.exists(arg):
                return False
            st = world.stat(arg)
            checks: dict[str, Callable[[], bool]] = {
                "-f": lambda: st.kind == "file", "-d": lambda: st.kind == "dir", "-s": lambda: st.size > 0,
                "-r": lambda: world.may(arg, R), "-w": lambda: world.may(arg, W), "-x": lambda: world.may(arg, X),
                "-b": lambda: False, "-c": lambda: st.kind in ("char", "other"), "-p": lambda: False,
                "-S": lambda: False,
                "-u": lambda: bool(st.mode & 0o4000), "-g": lambda: bool(st.mode & 0o2000),
                "-k": lambda: bool(st.mode & 0o1000), "-O": lambda: st.uid == world.uid,
                "-G": lambda: st.gid == world.gid, "-N": lambda: False}
            return bool(checks[op]())
        except Exception:  # the userland's FileError: as a file that is not there
            return False

    def binary(self, a: str, op: str, b: str) -> bool:
        if op in ("=", "=="):
            return matches(b, a) if self.patterns else a == b
        if op == "!=":
            return not matches(b, a) if self.patterns else a != b
        if op == "<":
            return a < b
        if op == ">":
            return a > b
        if op == "=~":
            try:
                return re.search(b, a) is not None
            except re.error:
                raise TestError(f"{b}: invalid regular expression") from None
        if op in ("-nt", "-ot", "-ef"):
            world = self.world()
            if world is None:
                return False
            try:
                sa, sb = world.stat(self.path(a)), world.stat(self.path(b))
            except Exception:  # a file that is not there
                return False
            if op == "-ef":
                return bool(sa.inode == sb.inode and sa.device == sb.device)
            a_s, b_s = sa.mtime_ns // 1_000_000_000, sb.mtime_ns // 1_000_000_000  # (busybox: st_mtime, seconds)
            return bool(a_s > b_s if op == "-nt" else a_s < b_s)
        x, y = _int(a), _int(b)
        return {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]


def _posix(args: list[str], ev: _Eval) -> bool:
    """busybox's test_main: POSIX's rules by the number of arguments, leading `!`s taken off one
    at a time, before the general parser. As in busybox, `( A B )` as the four left (after any
    `!`) becomes `A B` by cutting the argument list at the `)`, while the general parser still
    reads from the first argument: `[ ( -n x ) ]` and `[ ! ( -n x ) ]` are "closing paren
    expected", and a `!` taken off before the general parser runs is not applied twice."""
    negate = False
    start, end = 0, len(args)
    while True:
        a = args[start:end]
        if not a:
            return negate
        if len(a) == 1:
            return (a[0] != "") != negate
        if len(a) == 3 and a[1] in BINARY:
            return ev.binary(a[0], a[1], a[2]) != negate
        if len(a) == 4 and a[0] == "(" and a[3] == ")":
            start, end = start + 1, start + 3
            a = args[start:end]
        if a[0] != "!":
            break
        start += 1
        negate = not negate
    ev.args = args[:end]
    return ev.run()


def _needs_files(args: list[str]) -> bool:
    return any(a in ("-nt", "-ot", "-ef") or (len(a) == 2 and a[0] == "-" and a[1] in UNARY_FILE and a != "-t")
               for a in args)


def evaluate(args: list[str], sh: Shell, patterns: bool = False) -> Generator[Step, Reply, int]:
    """0 true, 1 false, 2 an error (its message written)."""
    return (yield from evaluate_in(args, sh.io, sh.name, sh.cwd(), patterns))


def evaluate_in(args: list[str], io: Io, name: str, cwd: str, patterns: bool = False) -> Generator[Step, Reply, int]:
    """`evaluate` for whoever runs it: its errors start `NAME: `; relative paths are from `cwd`
    ("": the container's working directory)."""
    if _needs_files(args) and io.ctx.userland is not None:
        yield LOOK  # it looks at files: now, not ahead of time
    ctx = io.ctx
    ev = _Eval(args, lambda: ctx.userland() if ctx.userland is not None else None, patterns, cwd)
    try:
        return 0 if (ev.run() if patterns else _posix(args, ev)) else 1
    except TestError as exc:
        yield from io.error(f"{name}: {exc.message}\n")
        return 2
    except Exception as exc:  # odd input: never raise out of the shell
        yield from io.error(f"{name}: {exc}\n")
        return 2


def test(args: list[str], sh: Shell) -> Process:
    return (yield from evaluate(args, sh))


def bracket(args: list[str], sh: Shell) -> Process:
    if not args or args[-1] != "]":
        yield from sh.io.error(f"{sh.name}: missing ]\n")
        return 2
    return (yield from evaluate(args[:-1], sh))


def double_bracket(words: tuple[Word, ...], sh: Shell) -> Process:
    """`[[ ... ]]`: its words expanded as a command's are (ash globs them too), then read as
    `test` reads its arguments, with && and ||, and `==` matching a pattern."""
    from fakecri.sim.shell.expand import expand_words

    args = yield from expand_words(words, sh)
    return (yield from evaluate(args, sh, patterns=True))
