"""awk's values: numbers (float), strings (str), strings from input that may be numeric
(`StrNum`, POSIX's "strnum"), and the unset value (numeric 0 and "" at once).

Text is handled as bytes: the program and its input are decoded as latin-1, one character
a byte, so `length`, `substr` and `index` count bytes and `toupper` changes ASCII letters
only, as busybox's do. Numbers read from text as busybox reads them: `0x1A` is hex and
`010` octal when the text starts with them, otherwise C's strtod on the longest prefix.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable


class StrNum(str):
    """A string from input (a field, getline, ARGV, ENVIRON, -v): numeric when it looks it."""

    __slots__ = ()


class Uninit(str):
    """The value of a variable never set: compares as a number and as a string."""

    __slots__ = ()


UNINIT = Uninit("")
Value = float | str

_FLOAT = re.compile(r"[ \t\n\r\f\v]*([+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan|"
                    r"0[xX][0-9a-fA-F]+))", re.IGNORECASE)
_LEADING_OCTAL = re.compile(r"0([0-7]+)(?![0-9.])")
_LEADING_HEX = re.compile(r"0[xX]([0-9a-fA-F]*)")
_BLANKS = " \t"


def parse_number(text: str) -> tuple[float, int]:
    """(the number at the start of `text`, how many characters it took; 0: none)."""
    if text.startswith("0") and len(text) > 1:
        m = _LEADING_HEX.match(text)
        if m:
            return (float(int(m.group(1), 16)), m.end()) if m.group(1) else (0.0, 1)
        m = _LEADING_OCTAL.match(text)
        if m:
            return float(int(m.group(1), 8)), m.end()
    m = _FLOAT.match(text)
    if m is None:
        return 0.0, 0
    s = m.group(1)
    if s.lower().lstrip("+-").startswith("0x"):
        sign = -1.0 if s.startswith("-") else 1.0
        return sign * int(s.lstrip("+-")[2:], 16), m.end()
    try:
        return float(s), m.end()
    except ValueError:
        return 0.0, 0


def looks_numeric(text: str) -> bool:
    """Whether input text is a number, blanks around it allowed (busybox's test)."""
    if not text:
        return False
    _, used = parse_number(text)
    return used > 0 and text[used:].strip(_BLANKS) == ""


def is_numeric(v: Value) -> bool:
    if isinstance(v, float):
        return True
    if isinstance(v, Uninit):
        return True
    return isinstance(v, StrNum) and looks_numeric(v)


def to_num(v: Value) -> float:
    if isinstance(v, float):
        return v
    return parse_number(v)[0] if v else 0.0


def format_number(n: float, fmt: str, formatter: Callable[[str, list[Value]], str]) -> str:
    """A number as text: integral ones as integers, others through `fmt` (CONVFMT or OFMT)."""
    if n == n and not math.isinf(n) and n == int(n) and -(2 ** 63) <= n < 2 ** 63:
        return str(int(n))
    return formatter(fmt, [n])


def truth(v: Value) -> bool:
    if is_numeric(v):
        return to_num(v) != 0
    return v != ""


def compare(x: Value, y: Value, to_str: Callable[[Value], str]) -> int:
    """-1, 0 or 1: numerically when both are numeric, else as strings (bytes)."""
    if is_numeric(x) and is_numeric(y):
        a, b = to_num(x), to_num(y)
        return -1 if a < b else (1 if a > b else 0)
    s, t = to_str(x), to_str(y)
    return -1 if s < t else (1 if s > t else 0)


_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def upper(s: str) -> str:
    return s.translate(_UPPER)


def lower(s: str) -> str:
    return s.translate(_LOWER)


def from_text(text: str) -> str:
    """Text as Python holds it (UTF-8, surrogate-escaped) to awk's one-character-a-byte form."""
    return text.encode("utf-8", "surrogateescape").decode("latin-1")


def to_text(s: str) -> str:
    """awk's form back to text as the rest of fakecri holds it."""
    return s.encode("latin-1", "replace").decode("utf-8", "surrogateescape")
