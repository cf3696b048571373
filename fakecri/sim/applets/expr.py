"""`expr EXPRESSION` as busybox 1.35's: `| & = != < <= > >= + - * / % :`, `( )`, `match`,
`substr`, `index`, `length`. Numbers are 64-bit (a bigger one is taken as the largest, and
sums wrap, as C's strtoll and long arithmetic do). The exit code is 1 when the result is ""
or 0, 2 on a syntax error, a division by zero or a non-numeric argument.
"""
from __future__ import annotations

import re

from fakecri.sim.applets.regex import RegexError, compile_posix
from fakecri.sim.shell import Command, Io, Process

_MIN, _MAX = -(1 << 63), (1 << 63) - 1
Value = int | str


class _Error(Exception):
    pass


def _int(v: Value) -> int | None:
    if isinstance(v, int):
        return v
    if re.fullmatch(r"\s*[-+]?\d+", v):
        return max(_MIN, min(_MAX, int(v)))
    return None


def _wrap(n: int) -> int:
    return (n - _MIN) % (1 << 64) + _MIN


def _null(v: Value) -> bool:
    return v == 0 if isinstance(v, int) else v in ("", "0")


class _Parser:
    def __init__(self, words: list[str]) -> None:
        self.warnings: list[str] = []  # busybox's about a leading ^, said as the match is made
        self.words = words
        self.i = 0

    def peek(self) -> str | None:
        return self.words[self.i] if self.i < len(self.words) else None

    def take(self) -> str:
        if self.i >= len(self.words):
            raise _Error("syntax error")
        self.i += 1
        return self.words[self.i - 1]

    def expr(self) -> Value:
        left = self.conj()
        while self.peek() == "|":
            self.take()
            right = self.conj()
            left = right if _null(left) else left  # busybox: the right one whenever the left is null
        return left

    def conj(self) -> Value:
        left = self.comparison()
        while self.peek() == "&":
            self.take()
            right = self.comparison()
            left = 0 if _null(left) or _null(right) else left
        return left

    def comparison(self) -> Value:
        left = self.sum()
        while self.peek() in ("=", "==", "!=", "<", "<=", ">", ">="):
            op = self.take()
            right = self.sum()
            a, b = _int(left), _int(right)
            x: int | str
            y: int | str
            x, y = (a, b) if a is not None and b is not None else (str(left), str(right))
            result = {"=": x == y, "==": x == y, "!=": x != y, "<": x < y, "<=": x <= y,  # type: ignore[operator]
                      ">": x > y, ">=": x >= y}[op]  # type: ignore[operator]
            left = int(result)
        return left

    def sum(self) -> Value:
        left = self.product()
        while self.peek() in ("+", "-"):
            op = self.take()
            a, b = self.numbers(left, self.product())
            left = _wrap(a + b if op == "+" else a - b)
        return left

    def product(self) -> Value:
        left = self.colon()
        while self.peek() in ("*", "/", "%"):
            op = self.take()
            a, b = self.numbers(left, self.colon())
            if op == "*":
                left = _wrap(a * b)
            elif b == 0:
                raise _Error("division by zero")
            else:
                q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
                left = _wrap(q) if op == "/" else _wrap(a - q * b)
        return left

    @staticmethod
    def numbers(a: Value, b: Value) -> tuple[int, int]:
        x, y = _int(a), _int(b)
        if x is None or y is None:
            raise _Error("non-numeric argument")
        return x, y

    def colon(self) -> Value:
        left = self.primary()
        while self.peek() == ":":
            self.take()
            left = self.match(str(left), str(self.primary()))
        return left

    def primary(self) -> Value:
        word = self.take()
        if word == "(":
            value = self.expr()
            if self.take() != ")":
                raise _Error("syntax error")
            return value
        if word == ")":  # (any other operator where an operand goes is that string, as in busybox's eval7)
            raise _Error("syntax error")
        if word == "quote":  # busybox's: the next word as it is, a keyword or not
            if self.peek() is None:
                raise _Error("syntax error")
            return self.take()
        if word == "length":
            return len(str(self.primary()))
        if word == "match":
            s = str(self.primary())
            return self.match(s, str(self.primary()))
        if word == "index":
            s, chars = str(self.primary()), str(self.primary())
            return next((n + 1 for n, c in enumerate(s) if c in chars), 0)
        if word == "substr":
            s = str(self.primary())
            p, n = _int(self.primary()), _int(self.primary())
            if p is None or n is None:
                raise _Error("non-numeric argument")
            return s[p - 1:p - 1 + n] if p >= 1 and n >= 1 else ""
        return word

    def match(self, s: str, pattern: str) -> Value:
        if pattern.startswith("^"):
            self.warnings.append(f"expr: warning: '{pattern}': using '^' as the first character\n"
                                 "of a basic regular expression is not portable; it is ignored\n")
        return _match(s, pattern)


def _match(s: str, pattern: str) -> Value:
    try:
        m = compile_posix(pattern).match(s)
    except RegexError as exc:
        raise _Error(f"bad regex '{pattern}': {exc}") from None
    if m is None:
        return "" if compile_posix(pattern).groups else 0
    if m.re.groups and m.group(1) is not None:  # a group that took part: its text, else the length
        return m.group(1)
    return m.end()


def expr(args: list[str], io: Io) -> Process:
    if not args:
        yield from io.error("expr: too few arguments\n")
        return 2
    parser = _Parser(args)
    try:
        value = parser.expr()
        if parser.peek() is not None:
            raise _Error("syntax error")
    except _Error as exc:
        yield from io.error("".join(parser.warnings) + f"expr: {exc}\n")
        return 2
    if parser.warnings:
        yield from io.error("".join(parser.warnings))
    yield from io.write(f"{value}\n")
    return 1 if _null(value) else 0


EXPR_COMMANDS: dict[str, Command] = {"expr": expr}
