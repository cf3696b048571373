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

from fakecri.sim.applets.regex import RegexError, bracket

_KEPT = {"w": r"\w", "W": r"\W", "s": r"\s", "S": r"\S", "b": r"\b", "B": r"\B", "<": r"\b(?=\w)",
         ">": r"\b(?<=\w)", "`": r"\A", "'": r"\Z"}


class BadRegex(ValueError):
    """A pattern glibc refuses."""


def _bracket(p: str, i: int) -> tuple[str, int]:
    """The bracket expression after the `[` at p[i-1], translated as sed's and grep's are
    (the same glibc rules), with glibc's refusal as awk's."""
    try:
        return bracket(p, i)
    except RegexError as exc:
        raise BadRegex(str(exc)) from None


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
