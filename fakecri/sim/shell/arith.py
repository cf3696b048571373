"""Shell arithmetic, `$((...))`: C's integer expressions on 64-bit signed numbers, with
variables (whose values are themselves read as expressions), assignments and ++/--.

`evaluate(text, variables)` gives the value or raises `ArithError` with ash's message
("arithmetic syntax error", "divide by zero").
"""
from __future__ import annotations

import re
from collections.abc import Callable

MAX_RECURSION = 32  # a variable whose value names a variable... at most this deep
_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+[0-9a-zA-Z_]*)|([A-Za-z_]\w*)|"
                    r"(<<=|>>=|\*\*|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[-+*/%<>=!~&|^?:(),]))")
_BINARY = {  # operator -> (precedence, right-associative)
    "||": (3, False), "&&": (4, False), "|": (5, False), "^": (6, False), "&": (7, False),
    "==": (8, False), "!=": (8, False), "<": (9, False), "<=": (9, False), ">": (9, False), ">=": (9, False),
    "<<": (10, False), ">>": (10, False), "+": (11, False), "-": (11, False),
    "*": (12, False), "/": (12, False), "%": (12, False), "**": (13, True),
}
_ASSIGN = frozenset({"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="})


class ArithError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _wrap(n: int) -> int:
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >> 63 else n


def _number(text: str) -> int:
    try:
        if "#" in text:
            base, _, digits = text.partition("#")
            if not 2 <= int(base) <= 36:
                raise ArithError("invalid number")
            return _wrap(int(digits, int(base)))
        if text[:2] in ("0x", "0X"):
            return _wrap(int(text[2:], 16))
        if len(text) > 1 and text[0] == "0":
            return _wrap(int(text[1:], 8))
        return _wrap(int(text, 10))
    except ValueError:
        raise ArithError("arithmetic syntax error") from None


class _Eval:
    def __init__(self, text: str, get: Callable[[str], str | None], put: Callable[[str, str], None],
                 depth: int) -> None:
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise ArithError("arithmetic syntax error")
            pos = m.end()
            if m.group(1):
                self.tokens.append(("num", m.group(1)))
            elif m.group(2):
                self.tokens.append(("name", m.group(2)))
            else:
                self.tokens.append(("op", m.group(3)))
        self.i = 0
        self.get, self.put, self.depth = get, put, depth

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        self.i += 1
        return tok

    def value_of(self, name: str) -> int:
        text = (self.get(name) or "").strip()
        if not text:
            return 0
        if re.fullmatch(r"-?\d+", text):
            return _wrap(int(text))
        if self.depth >= MAX_RECURSION:
            raise ArithError("expression recursion loop detected")
        return evaluate(text, self.get, self.put, self.depth + 1)

    def run(self) -> int:
        if not self.tokens:
            return 0
        value = self.assign(False)
        while self.peek() == ("op", ","):
            self.take()
            value = self.assign(False)
        if self.peek()[0] != "end":
            raise ArithError("arithmetic syntax error")
        return value

    def assign(self, skip: bool) -> int:
        kind, text = self.peek()
        nxt = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else ("end", "")
        if kind == "name" and nxt[0] == "op" and nxt[1] in _ASSIGN:
            self.i += 2
            value = self.assign(skip)
            if nxt[1] != "=":
                value = self.binary(nxt[1][:-1], self.value_of(text) if not skip else 0, value, skip)
            if not skip:
                self.put(text, str(value))
            return value
        return self.ternary(skip)

    def ternary(self, skip: bool) -> int:
        cond = self.binop(3, skip)
        if self.peek() != ("op", "?"):
            return cond
        self.take()
        # busybox's middle operand is one of ?:'s own precedence: a bare `?:` or assignment there
        # (not in parentheses) is its "malformed ?: operator"
        yes = self.binop(3, skip or not cond)
        kind, op = self.peek()
        if kind == "op" and (op == "?" or op.endswith("=") and op not in ("==", "!=", "<=", ">=")):
            raise ArithError("malformed ?: operator")
        if self.take() != ("op", ":"):
            raise ArithError("arithmetic syntax error")
        no = self.ternary(skip or bool(cond))
        return yes if cond else no

    def binop(self, level: int, skip: bool) -> int:
        left = self.unary(skip)
        while True:
            kind, op = self.peek()
            if kind != "op" or op not in _BINARY or _BINARY[op][0] < level:
                return left
            prec, right_assoc = _BINARY[op]
            self.take()
            if op == "&&":
                right = self.binop(prec + 1, skip or not left)
                left = int(bool(left) and bool(right))
            elif op == "||":
                right = self.binop(prec + 1, skip or bool(left))
                left = int(bool(left) or bool(right))
            else:
                right = self.binop(prec if right_assoc else prec + 1, skip)
                left = self.binary(op, left, right, skip)

    def binary(self, op: str, a: int, b: int, skip: bool) -> int:
        if op in ("/", "%"):
            if b == 0:
                if skip:
                    return 0
                raise ArithError("divide by zero")
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return _wrap(q if op == "/" else a - q * b)
        if op == "**":
            if b < 0:
                if skip:
                    return 0
                raise ArithError("exponent less than 0")
            return _wrap(pow(a, b, 1 << 64))
        if op in ("<<", ">>"):
            b &= 63
            return _wrap(a << b) if op == "<<" else a >> b
        table: dict[str, Callable[[int, int], int]] = {
            "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
            "&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
            "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y), "<": lambda x, y: int(x < y),
            "<=": lambda x, y: int(x <= y), ">": lambda x, y: int(x > y), ">=": lambda x, y: int(x >= y)}
        return _wrap(table[op](a, b))

    def unary(self, skip: bool) -> int:
        kind, op = self.peek()
        if kind == "op" and op in ("!", "~", "-", "+"):
            self.take()
            value = self.unary(skip)
            return int(not value) if op == "!" else _wrap(~value) if op == "~" else _wrap(-value) if op == "-" \
                else value
        if kind == "op" and op in ("++", "--"):
            self.take()
            name = self.take()
            if name[0] != "name":
                raise ArithError("arithmetic syntax error")
            value = _wrap(self.value_of(name[1]) + (1 if op == "++" else -1)) if not skip else 0
            if not skip:
                self.put(name[1], str(value))
            return value
        return self.postfix(skip)

    def postfix(self, skip: bool) -> int:
        kind, text = self.take()
        if kind == "num":
            return _number(text)
        if kind == "name":
            if self.peek() in (("op", "++"), ("op", "--")):
                op = self.take()[1]
                value = self.value_of(text) if not skip else 0
                if not skip:
                    self.put(text, str(_wrap(value + (1 if op == "++" else -1))))
                return value
            return self.value_of(text) if not skip else 0
        if (kind, text) == ("op", "("):
            value = self.assign(skip)
            if self.take() != ("op", ")"):
                raise ArithError("arithmetic syntax error")
            return value
        raise ArithError("arithmetic syntax error")


def evaluate(text: str, get: Callable[[str], str | None], put: Callable[[str, str], None], depth: int = 0) -> int:
    try:
        return _Eval(text, get, put, depth).run()
    except RecursionError:
        raise ArithError("arithmetic syntax error") from None
