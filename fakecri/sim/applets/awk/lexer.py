"""awk's tokens: the program text cut into numbers, strings, regular expressions, names,
keywords and operators, with the newlines that end statements.

A `/` starts a regular expression where an operand may come (after an operator, `(`, `,`,
a newline...), and divides after one (a name, a number, `)`, `]`, `$`-less incr/decr).
String escapes are busybox's (its bb_process_escape_sequence): `\\n \\t \\r \\a \\b \\f \\v \\e
\\\\`, octal `\\NNN` while the value is a byte, `\\xHH`; an unknown `\\z` (`\\"`, `\\/`) stands for
`z`. A backslash before a newline joins lines.
"""
from __future__ import annotations

from dataclasses import dataclass

from fakecri.sim.shell.builtins import escape_sequence

KEYWORDS = frozenset("BEGIN END function func if else while for do break continue next nextfile "
                     "exit return delete in getline print printf".split())
BUILTINS = frozenset("length substr index split sub gsub match sprintf tolower toupper int sqrt exp log "
                     "sin cos atan2 rand srand system close fflush and or xor lshift rshift compl systime".split())
# Longest first, so `**=` is taken before `**` and `*`.
OPERATORS = sorted("+= -= *= /= %= ^= **= ** == <= >= != ++ -- && || >> !~ + - * / % ^ ! > < | ? : ~ $ = "
                   "( ) [ ] { } , ;".split() + ["\n"], key=len, reverse=True)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", '"': '"',
            "/": "/"}
# After these a `/` divides; elsewhere it opens a regular expression.
_OPERAND_END = frozenset({"NUMBER", "STRING", "ERE", "NAME", "FUNC_NAME", "BUILTIN", ")", "]", "++", "--"})


class AwkSyntaxError(Exception):
    """The program does not parse: busybox's message and the line it is on."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # NUMBER STRING ERE NAME FUNC_NAME BUILTIN, a keyword, an operator, NEWLINE or EOF
    text: str
    line: int
    value: float = 0.0
    space_before: bool = False


def unescape(text: str, i: int, end_char: str) -> tuple[str, int]:
    """The string from text[i] up to `end_char` with its escapes taken: (value, index after it)."""
    out: list[str] = []
    n = len(text)
    while i < n and text[i] != end_char:
        c = text[i]
        if c == "\n":
            raise AwkSyntaxError("Unexpected end of string", 0)
        if c == "\\" and i + 1 < n:
            if text[i + 1] == "\n":
                i += 2
                continue
            # busybox's nextchar: bb_process_escape_sequence (octal while a byte, \xHH, \a..\v \e),
            # and an unknown \z is z
            ch, j = escape_sequence(text, i + 1)
            if j == i + 1:
                ch, j = text[i + 1], i + 2
            out.append(ch)
            i = j
            continue
        out.append(c)
        i += 1
    if i >= n:
        raise AwkSyntaxError("Unexpected end of string", 0)
    return "".join(out), i + 1


def _regex(text: str, i: int) -> tuple[str, int]:
    """A `/.../` literal from text[i] (after the `/`): its ERE, escapes other than C's kept."""
    out: list[str] = []
    n = len(text)
    in_bracket = False
    while i < n and (text[i] != "/" or in_bracket):
        c = text[i]
        if c == "\n":
            raise AwkSyntaxError("Unexpected end of string", 0)
        if c == "\\" and i + 1 < n:
            d = text[i + 1]
            if d == "/":
                out.append("/")
            elif d in "ntrafv":
                out.append(_ESCAPES[d])
            else:
                out.append(c + d)
            i += 2
            continue
        if c == "[" and not in_bracket:
            in_bracket = True
            out.append(c)
            i += 1
            if i < n and text[i] == "^":
                out.append("^")
                i += 1
            if i < n and text[i] == "]":
                out.append("]")
                i += 1
            continue
        if c == "]" and in_bracket:
            in_bracket = False
        out.append(c)
        i += 1
    if i >= n:
        raise AwkSyntaxError("Unexpected end of string", 0)
    return "".join(out), i + 1


def _number(text: str, i: int) -> tuple[float, int]:
    n = len(text)
    if text.startswith(("0x", "0X"), i):
        j = i + 2
        while j < n and text[j] in "0123456789abcdefABCDEF":
            j += 1
        return float(int(text[i + 2:j] or "0", 16)), j
    j = i
    while j < n and text[j].isdigit():
        j += 1
    if j < n and text[j] == ".":
        j += 1
        while j < n and text[j].isdigit():
            j += 1
    if j < n and text[j] in "eE":
        k = j + 1
        if k < n and text[k] in "+-":
            k += 1
        if k < n and text[k].isdigit():
            while k < n and text[k].isdigit():
                k += 1
            j = k
    digits = text[i:j]
    if len(digits) > 1 and digits[0] == "0" and digits.isdigit():  # 017: octal, as busybox reads it
        if all(ch in "01234567" for ch in digits):
            return float(int(digits, 8)), j
    return float(digits), j


def tokenize(text: str, first_line: int = 1) -> list[Token]:
    """All tokens of `text`, ending with EOF."""
    tokens: list[Token] = []
    i, n, line = 0, len(text), first_line
    space = False
    while True:
        while i < n and (text[i] in " \t\r" or text.startswith("\\\n", i) or text.startswith("\\\r\n", i)):
            if text[i] == "\\":
                line += 1
                i += 2 if text[i + 1] == "\n" else 3
            else:
                i += 1
            space = True
        if i < n and text[i] == "#":
            while i < n and text[i] != "\n":
                i += 1
        if i >= n:
            tokens.append(Token("EOF", "", line))
            return tokens
        c = text[i]
        prev = tokens[-1].kind if tokens else "NEWLINE"
        start = i
        try:
            if c == '"':
                value, i = unescape(text, i + 1, '"')
                tokens.append(Token("STRING", value, line, space_before=space))
            elif c == "/" and prev not in _OPERAND_END:
                value, i = _regex(text, i + 1)
                tokens.append(Token("ERE", value, line, space_before=space))
            elif c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
                number, i = _number(text, i)
                if i < n and text[i] == ".":
                    raise AwkSyntaxError("Unexpected token", line)
                tokens.append(Token("NUMBER", text[start:i], line, number, space))
            elif c.isalpha() or c == "_":
                while i < n and (text[i].isalnum() or text[i] == "_"):
                    i += 1
                word = text[start:i]
                if word in KEYWORDS:
                    kind = "function" if word == "func" else word
                elif word in BUILTINS:
                    kind = "BUILTIN"
                elif i < n and text[i] == "(":
                    kind = "FUNC_NAME"
                else:
                    kind = "NAME"
                tokens.append(Token(kind, word, line, space_before=space))
            else:
                op = next((o for o in OPERATORS if text.startswith(o, i)), None)
                if op is None:
                    raise AwkSyntaxError("Unexpected token", line)
                i += len(op)
                tokens.append(Token("NEWLINE" if op == "\n" else op, op, line, space_before=space))
                if op == "\n":
                    line += 1
        except AwkSyntaxError as exc:
            raise AwkSyntaxError(exc.message, exc.line or line) from None
        space = False
