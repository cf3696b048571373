"""POSIX regular expressions (basic and extended, with the GNU additions glibc gives busybox)
translated to Python's `re`, for sed, grep and expr.

Basic (BRE): `\\( \\)` group, `\\{m,n\\}` repeat, `\\|` `\\+` `\\?` (GNU); `( ) { } | + ?` are
plain characters; `*` first in the expression or a group is a plain `*`; `^` anchors only at
the start (of the expression, a group or an alternative), `$` only at the end. Extended (ERE):
`( ) { } | + ?` are operators. Both: `[...]` brackets (a backslash is a plain character in them;
`[:alpha:]`-style classes), `\\1`-`\\9` back-references, `\\< \\> \\b \\B \\w \\W \\s \\S`,
and `.` matches a newline too (sed's pattern space holds several lines after `N`).

What differs from POSIX: Python takes the first alternative that matches where POSIX takes
the longest (`a|ab` against "ab" matches "a" here, "ab" in busybox).
"""
from __future__ import annotations

import functools
import re

_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "0-9a-zA-Z", "upper": "A-Z", "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "print": " -~", "graph": "!-~", "cntrl": "\\x00-\\x1f\\x7f", "xdigit": "0-9A-Fa-f",
}
_ESCAPES = {"w": r"\w", "W": r"\W", "s": r"\s", "S": r"\S", "b": r"\b", "B": r"\B",
            "<": r"\b(?=\w)", ">": r"\b(?<=\w)", "`": r"\A", "'": r"\Z", "n": "\n", "t": "\t"}


class RegexError(ValueError):
    """A pattern glibc's regcomp refuses; the message is glibc's."""


def bracket(p: str, i: int) -> tuple[str, int]:
    """The bracket expression starting after the `[` at p[i-1]: (Python set, index after `]`)."""
    out = []
    negate = i < len(p) and p[i] == "^"
    if negate:
        i += 1
    first = True
    while True:
        if i >= len(p):
            raise RegexError("Unmatched [, [^, [:, [., or [=")
        c = p[i]
        if c == "]" and not first:
            i += 1
            break
        first = False
        if c == "[" and i + 1 < len(p) and p[i + 1] in ":=.":
            kind = p[i + 1]
            end = p.find(kind + "]", i + 2)
            if end < 0:
                raise RegexError("Unmatched [, [^, [:, [., or [=")
            name = p[i + 2:end]
            i = end + 2
            if kind == ":":
                if name not in _CLASSES:
                    raise RegexError("Invalid character class name")
                out.append(_CLASSES[name])
            else:
                out.append(re.escape(name))
            continue
        if c == "-" and out and i + 1 < len(p) and p[i + 1] != "]":
            out.append("-")
            i += 1
            continue
        out.append(re.escape(c) if c not in "-" else "\\-")
        i += 1
    body = "".join(out)
    if negate:
        return f"[^{body}]", i
    return f"[{body}]", i


_INTERVAL = re.compile(r"(\d*)(?:(,)(\d*))?")


def translate(pattern: str, *, extended: bool = False) -> str:
    """The Python expression for a POSIX `pattern` (RegexError when it is invalid)."""
    p = pattern
    out: list[str] = []
    i = 0
    depth = 0
    groups = 0
    atom_start = True  # at the start of the expression, a group or an alternative (nothing to repeat)
    while i < len(p):
        c = p[i]
        i += 1
        if c == "\\":
            if i >= len(p):
                raise RegexError("Trailing backslash")
            c = p[i]
            i += 1
            if not extended and c == "(":
                out.append("(")
                depth += 1
                groups += 1
                atom_start = True
                continue
            if not extended and c == ")":
                if depth == 0:
                    raise RegexError("Unmatched ) or \\)")
                depth -= 1
                out.append(")")
                atom_start = False
                continue
            if not extended and c == "|":
                out.append("|")
                atom_start = True
                continue
            if not extended and c == "{":
                end = p.find("\\}", i)
                if end < 0:
                    raise RegexError("Unmatched \\{")
                out.append(_repeat(p[i:end], atom_start, out))
                i = end + 2
                continue
            if not extended and c in "+?":
                if atom_start:
                    out.append(re.escape(c))
                    atom_start = False
                else:
                    out.append(_lazy_safe(c, out))
                continue
            if c.isdigit() and c != "0":
                if int(c) > groups:
                    raise RegexError("Invalid back reference")
                out.append(f"(?:\\{c})")
                atom_start = False
                continue
            if c in _ESCAPES:
                out.append(_ESCAPES[c])
                atom_start = c in "<>`'bB"
                continue
            out.append(re.escape(c))
            atom_start = False
            continue
        if c == "[":
            s, i = bracket(p, i)
            out.append(s)
            atom_start = False
            continue
        if c == ".":
            out.append(".")
            atom_start = False
            continue
        if c == "*":
            if atom_start:
                if extended and not out:
                    raise RegexError("Invalid preceding regular expression")
                out.append(r"\*")
                atom_start = False
            elif out and out[-1] in ("*", "+", "?") or (out and out[-1].endswith("}") and out[-1].startswith("{")):
                pass  # a repeat of a repeat: as much as the first
            else:
                out.append("*")
            continue
        if c == "^":
            if extended or atom_start:
                out.append("^")
            else:
                out.append(r"\^")
            continue
        if c == "$":
            at_end = i >= len(p) or (not extended and (p.startswith("\\)", i) or p.startswith("\\|", i)))
            out.append(r"\Z" if extended or at_end else r"\$")
            continue
        if extended:
            if c == "(":
                out.append("(")
                depth += 1
                groups += 1
                atom_start = True
                continue
            if c == ")":
                if depth == 0:
                    out.append(r"\)")
                    atom_start = False
                    continue
                depth -= 1
                out.append(")")
                atom_start = False
                continue
            if c == "|":
                out.append("|")
                atom_start = True
                continue
            if c in "+?":
                if atom_start:
                    raise RegexError("Invalid preceding regular expression")
                out.append(_lazy_safe(c, out))
                continue
            if c == "{":
                m = re.match(r"\d*(?:,\d*)?\}", p[i:])
                if m is None or atom_start:
                    out.append(r"\{")
                    atom_start = False
                    continue
                out.append(_repeat(m.group(0)[:-1], atom_start, out))
                i += m.end()
                continue
        out.append(re.escape(c))
        atom_start = False
    if depth:
        raise RegexError("Unmatched ( or \\(")
    return "".join(out)


def _lazy_safe(op: str, out: list[str]) -> str:
    """`+` or `?` after what came before. After another repeat (where Python would read a lazy or
    possessive mark) it changes nothing POSIX would not: `a*+` is `a*`, `a+?` is `a*`."""
    if out and (out[-1] in ("*", "+", "?") or out[-1].startswith("{")):
        if op == "?" and out[-1] == "+":
            out[-1] = "*"
        elif op == "+" and out[-1] == "?":
            out[-1] = "*"
        return ""
    return op


def _repeat(body: str, atom_start: bool, out: list[str]) -> str:
    m = _INTERVAL.fullmatch(body)
    if m is None or (not m.group(1) and not m.group(2)):
        raise RegexError("Invalid content of \\{\\}")
    low = int(m.group(1) or 0)
    high = m.group(3)
    if high and int(high) < low:
        raise RegexError("Invalid content of \\{\\}")
    if atom_start:
        raise RegexError("Invalid preceding regular expression")
    if m.group(2):
        return f"{{{low},{high}}}"
    return f"{{{low}}}"


@functools.lru_cache(maxsize=256)
def compile_posix(pattern: str, extended: bool = False, ignore_case: bool = False) -> re.Pattern[str]:
    """The compiled expression (RegexError when `pattern` is invalid)."""
    try:
        return re.compile(translate(pattern, extended=extended), re.DOTALL | (re.IGNORECASE if ignore_case else 0))
    except re.error as exc:
        raise RegexError(str(exc)) from None
