"""Shell patterns (`*`, `?`, `[...]`) as `case`, `${x#pat}`, `[[ == ]]` and pathname
expansion read them. A pattern here is text in which a backslash quotes the next
character (the expander writes quoted characters so)."""
from __future__ import annotations

import functools
import re

_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
            "space": r" \t\n\r\f\v", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9a-fA-F",
            "cntrl": r"\x00-\x1f\x7f", "print": r" -~", "graph": r"!-~", "word": r"\w"}


def has_magic(pattern: str) -> bool:
    """Whether the pattern has an unquoted `*`, `?` or `[`."""
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "*?[":
            return True
        i += 1
    return False


def unescape(pattern: str) -> str:
    """The pattern's text as a plain string (its quoting backslashes removed)."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            i += 1
        out.append(pattern[i])
        i += 1
    return "".join(out)


def _bracket(pattern: str, i: int) -> tuple[str, int] | None:
    """`[...]` at pattern[i]: (its regex, the index after it); None when it does not close."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    if negate:
        j += 1
    items: list[str] = []
    first = True
    while j < len(pattern):
        ch = pattern[j]
        if ch == "]" and not first:
            body = "".join(items)
            return ("[^" if negate else "[") + body + "]", j + 1
        first = False
        if ch == "[" and pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            if end > 0 and pattern[j + 2:end] in _CLASSES:
                items.append(_CLASSES[pattern[j + 2:end]])
                j = end + 2
                continue
        if ch == "\\" and j + 1 < len(pattern):
            items.append(re.escape(pattern[j + 1]))
            j += 2
            continue
        if ch == "-" and items and j + 1 < len(pattern) and pattern[j + 1] != "]":
            items.append("-")
            j += 1
            continue
        items.append(re.escape(ch) if ch != "-" else r"\-")
        j += 1
    return None


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif ch == "*":
            out.append(".*")
            i += 1
        elif ch == "?":
            out.append(".")
            i += 1
        elif ch == "[":
            got = _bracket(pattern, i)
            if got is None:
                out.append(r"\[")
                i += 1
            else:
                try:
                    re.compile(got[0])
                    out.append(got[0])
                except re.error:
                    out.append(re.escape(pattern[i:got[1]]))
                i = got[1]
        else:
            out.append(re.escape(ch))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def matches(pattern: str, text: str) -> bool:
    return compile_pattern(pattern).fullmatch(text) is not None


def strip(value: str, pattern: str, op: str) -> str:
    """`${x#p}`, `${x##p}`, `${x%p}`, `${x%%p}`: the value without its shortest/longest
    matching prefix/suffix."""
    rx = compile_pattern(pattern)
    n = len(value)
    if op in ("#", "##"):
        lengths = range(n + 1) if op == "#" else range(n, -1, -1)
        for k in lengths:
            if rx.fullmatch(value, 0, k):
                return value[k:]
    else:
        starts = range(n, -1, -1) if op == "%" else range(n + 1)
        for k in starts:
            if rx.fullmatch(value, k, n):
                return value[:k]
    return value


def replace(value: str, pattern: str, rep: str, every: bool) -> str:
    """`${x/p/r}` (the first longest match) and `${x//p/r}` (each). busybox 1.35 has no anchors:
    `${x/#p/r}` and `${x/%p/r}` look for a `#` or `%` as any other character."""
    rx = compile_pattern(pattern)
    n = len(value)
    if not pattern:
        return value
    out: list[str] = []
    i = 0
    while i <= n:
        for k in range(n, i - 1, -1):
            if k > i and rx.fullmatch(value, i, k):
                out.append(rep)
                if not every:
                    return "".join(out) + value[k:]
                i = k if k > i else i + 1
                break
        else:
            if i < n:
                out.append(value[i])
            i += 1
            continue
        if not every:
            break
    return "".join(out)
