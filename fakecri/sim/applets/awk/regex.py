"""awk's extended regular expressions (POSIX ERE, with the GNU additions glibc gives busybox)
as Python patterns.

Brackets hold plain characters (a backslash too) and `[:class:]` names; `^` and `$` anchor
at the start and end of the whole string only; `.` matches a newline too; `\\< \\>` are word
edges, `\\w \\W \\s \\S \\b \\B` as in glibc; any other escaped character stands for itself.
What differs: Python takes the first alternative that matches where POSIX takes the longest.
"""
from __future__ import annotations

import functools
import re

_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "0-9a-zA-Z", "upper": "A-Z", "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "print": " -~", "graph": "!-~", "cntrl": "\\x00-\\x1f\\x7f", "xdigit": "0-9A-Fa-f",
}
_KEPT = {"w": r"\w", "W": r"\W", "s": r"\s", "S": r"\S", "b": r"\b", "B": r"\B", "<": r"\b(?=\w)",
         ">": r"\b(?<=\w)", "`": r"\A", "'": r"\Z"}


class BadRegex(ValueError):
    """A pattern glibc refuses."""


def _bracket(p: str, i: int) -> tuple[str, int]:
    """The bracket expression after the `[` at p[i-1]: (a Python set, the index after `]`)."""
    out: list[str] = []
    negate = i < len(p) and p[i] == "^"
    if negate:
        i += 1
    first = True
    while True:
        if i >= len(p):
            raise BadRegex("Unmatched [, [^, [:, [., or [=")
        c = p[i]
        if c == "]" and not first:
            i += 1
            break
        first = False
        if c == "[" and i + 1 < len(p) and p[i + 1] in ":=.":
            kind = p[i + 1]
            end = p.find(kind + "]", i + 2)
            if end < 0:
                raise BadRegex("Unmatched [, [^, [:, [., or [=")
            name = p[i + 2:end]
            i = end + 2
            if kind == ":":
                if name not in _CLASSES:
                    raise BadRegex("Invalid character class name")
                out.append(_CLASSES[name])
            else:
                out.append(re.escape(name))
            continue
        if c == "-" and out and i + 1 < len(p) and p[i + 1] != "]":
            out.append("-")
        else:
            out.append(re.escape(c) if c in "\\[]^&~|-" else c)
        i += 1
    return "[" + ("^" if negate else "") + "".join(out) + "]", i


def translate(p: str) -> str:
    out: list[str] = []
    i, n = 0, len(p)
    depth = 0
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise BadRegex("Trailing backslash")
            d = p[i + 1]
            out.append(_KEPT.get(d, re.escape(d)))
            i += 2
            continue
        if c == "[":
            part, i = _bracket(p, i + 1)
            out.append(part)
            continue
        if c == "$":
            out.append(r"\Z")
        elif c == "(":
            depth += 1
            out.append("(")
        elif c == ")":
            if depth == 0:
                raise BadRegex("Unmatched ) or \\)")
            depth -= 1
            out.append(")")
        elif c == "{":
            m = re.compile(r"\{(\d*)(,?)(\d*)\}").match(p, i)
            if m is None or not out or not (m.group(1) or m.group(3)):
                out.append(r"\{")
            else:
                out.append(m.group(0) if m.group(1) else "{0" + m.group(0)[1:])
                i = m.end()
                continue
        elif c in "*+?" and (not out or out[-1] in ("(", "|")):
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    if depth:
        raise BadRegex("Unmatched ( or \\(")
    return "".join(out)


@functools.lru_cache(maxsize=256)
def compile_ere(p: str) -> re.Pattern[str]:
    try:
        return re.compile(translate(p), re.DOTALL | re.ASCII)
    except re.error as exc:
        raise BadRegex(str(exc)) from None
