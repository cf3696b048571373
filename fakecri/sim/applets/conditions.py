"""`test EXPRESSION` and `[ EXPRESSION ]` as busybox 1.35's (the applet; inside a script the
shell's builtin answers): `! ( ) -a -o`, the string tests `-z -n = == != < >`, the integer
tests `-eq -ne -lt -le -gt -ge`, and the file tests `-e -f -d -s -r -w -x -L -h -b -c -p -S
-u -g -k -O -G` on the container's files. Exit 0 true, 1 false, 2 on an error
(`test: X: bad number`, `X: unknown operand`, `OP: argument expected`, `[: missing ]`).
"""
from __future__ import annotations

import re
from collections.abc import Callable

from fakecri.sim.shell import Command, Io, Process
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.fs import R, W, X
from fakecri.sim.userland.world import FileError, Userland

_BINARY = frozenset({"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-ef", "-nt", "-ot"})
_UNARY = frozenset("-" + c for c in "zneafdsrwxLhbcpSugkOGt")


class _Error(Exception):
    pass


def _int(text: str) -> int:
    if re.fullmatch(r"\s*[-+]?\d+\s*", text):
        return int(text)
    raise _Error(f"{text}: bad number")


class _Test:
    def __init__(self, args: list[str], world: Callable[[], Userland | None]) -> None:
        self.args = args
        self.i = 0
        self.world = world

    def peek(self, k: int = 0) -> str | None:
        return self.args[self.i + k] if self.i + k < len(self.args) else None

    def expr(self) -> bool:
        value = self.conj()
        while self.peek() == "-o":
            self.i += 1
            value = self.conj() or value
        return value

    def conj(self) -> bool:
        value = self.negation()
        while self.peek() == "-a":
            self.i += 1
            value = self.negation() and value
        return value

    def negation(self) -> bool:
        if self.peek() == "!" and self.peek(1) is not None:
            self.i += 1
            return not self.negation()
        return self.primary()

    def primary(self) -> bool:
        word = self.peek()
        if word is None:
            raise _Error("argument expected")
        if word == "(" and self.peek(1) is not None and self.peek(1) not in _BINARY:
            self.i += 1
            value = self.expr()
            if self.peek() != ")":
                raise _Error("closing paren expected" if self.peek() is None else f"{self.peek()}: unknown operand")
            self.i += 1
            return value
        if word in _UNARY and self.peek(1) is not None and not (self.peek(1) in _BINARY and self.peek(2) is not None):
            self.i += 2
            return self.unary(word, self.args[self.i - 1])
        op = self.peek(1)
        if op in _BINARY:
            if self.peek(2) is None:
                raise _Error(f"{op}: argument expected")
            self.i += 3
            return self.binary(word, op, self.args[self.i - 1])
        self.i += 1
        return word != ""

    def binary(self, a: str, op: str, b: str) -> bool:
        if op in ("=", "=="):
            return a == b
        if op == "!=":
            return a != b
        if op in ("<", ">"):
            return a < b if op == "<" else a > b
        if op in ("-ef", "-nt", "-ot"):
            world = self.world()
            try:
                sa, sb = (world.stat(a), world.stat(b)) if world is not None else (None, None)
            except FileError:
                return False
            if sa is None or sb is None:
                return False
            if op == "-ef":
                return world is not None and world.resolve(a) == world.resolve(b)
            return sa.mtime_ns > sb.mtime_ns if op == "-nt" else sa.mtime_ns < sb.mtime_ns
        x, y = _int(a), _int(b)
        return {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]

    def unary(self, op: str, arg: str) -> bool:
        if op == "-z":
            return arg == ""
        if op == "-n":
            return arg != ""
        if op == "-t":
            return False  # no descriptor of an exec is a terminal here
        world = self.world()
        if world is None:
            return False
        if op in ("-L", "-h"):
            try:
                return world.lexists(arg) and world.stat(arg, follow=False).kind == "link"
            except FileError:
                return False
        if not world.exists(arg):
            return False
        if op in ("-r", "-w", "-x"):
            return world.may(arg, {"-r": R, "-w": W, "-x": X}[op])
        try:
            st = world.stat(arg)
        except FileError:
            return False
        kinds = {"-f": "file", "-d": "dir", "-b": "block", "-c": "char", "-p": "fifo", "-S": "socket"}
        if op in kinds:
            return st.kind == kinds[op]
        if op == "-s":
            return st.size > 0
        bits = {"-u": 0o4000, "-g": 0o2000, "-k": 0o1000}
        if op in bits:
            return bool(st.mode & bits[op])
        if op == "-O":
            return st.uid == world.uid
        if op == "-G":
            return st.gid == world.gid
        return True  # -e, -a


def _named(name: str) -> Command:
    def test(args: list[str], io: Io) -> Process:
        if name == "[":
            if not args or args[-1] != "]":
                yield from io.error("[: missing ]\n")
                return 2
            args = args[:-1]
        cached: list[Userland | None] = []
        looked = False
        if io.ctx.userland is not None:
            cached.append((yield from looking(io)))
            looked = True
        parser = _Test(args, lambda: cached[0] if looked else None)
        if not args:
            return 1
        try:
            value = parser.expr()
            if parser.peek() is not None:
                raise _Error(f"{parser.peek()}: unknown operand")
        except _Error as exc:
            yield from io.error(f"{name}: {exc}\n")
            return 2
        return 0 if value else 1
    return test


CONDITION_COMMANDS: dict[str, Command] = {"test": _named("test"), "[": _named("[")}
