"""Records and fields: input cut by RS, records cut into fields by FS, and awk's arrays
(kept in busybox's hash order, so `for (k in a)` walks them as busybox does).

RS: one character (a newline by default), "" (paragraphs: records end at blank lines and a
newline always separates fields too), or a longer string taken as a regular expression.
FS: " " (runs of blanks and newlines, leading and trailing ones ignored), one other
character (itself, literally), "" (each character a field), or a regular expression.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Generator
from typing import Any

from fakecri.sim.applets.awk.errors import Fatal
from fakecri.sim.applets.awk.regex import BadRegex, compile_ere
from fakecri.sim.applets.awk.values import UNINIT, StrNum, Value

_BLANKS = re.compile(r"[ \t\n]+")
_PARAGRAPH_END = re.compile(r"\n\n+")
# busybox's hash: the first size, then the sizes it grows to once it averages 10 a chain.
_FIRST_SIZE = 61
_SIZES = (251, 1021, 4093, 16381, 65521)

Pull = Callable[[], Generator[Any, Any, str | None]]


def split_fields(text: str, fs: str, paragraph: bool = False) -> list[str]:
    if text == "":
        return []
    if fs == " ":
        text = text.strip(" \t\n")
        return _BLANKS.split(text) if text else []
    if paragraph:
        parts: list[str] = []
        for line in text.split("\n"):
            parts += split_fields(line, fs) if line else [""]
        return parts
    if fs == "":
        return list(text)
    if len(fs) == 1:
        return text.split(fs)
    return split_by(_pattern(fs), text)


def _pattern(source: str) -> re.Pattern[str]:
    try:
        return compile_ere(source)
    except BadRegex as exc:
        raise Fatal(f"bad regex '{source}': {exc}") from None


def split_by(pattern: re.Pattern[str], text: str) -> list[str]:
    """`text` cut where `pattern` matches (an empty match cuts nothing)."""
    parts, start = [], 0
    for m in pattern.finditer(text):
        if m.end() > m.start():
            parts.append(text[start:m.start()])
            start = m.end()
    parts.append(text[start:])
    return parts


def _hash(key: str) -> int:
    h = 0
    for ch in key.encode("latin-1", "replace"):
        h = (ch + (h << 6) - h) & 0xFFFFFFFF
    return h


class AwkArray:
    """An awk array: string keys to values, walked in busybox's bucket order."""

    __slots__ = ("data", "_buckets", "_grown")

    def __init__(self) -> None:
        self.data: dict[str, Value] = {}
        self._buckets: list[list[str]] = [[] for _ in range(_FIRST_SIZE)]
        self._grown = 0

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def __len__(self) -> int:
        return len(self.data)

    def get(self, key: str) -> Value:
        """The element's value, made (unset) when it was not there, as a reference does."""
        if key not in self.data:
            self.set(key, UNINIT)
        return self.data[key]

    def set(self, key: str, value: Value) -> None:
        if key not in self.data:
            if (len(self.data) + 1) // len(self._buckets) > 10 and self._grown < len(_SIZES):
                self._grow()
            self._buckets[_hash(key) % len(self._buckets)].insert(0, key)
        self.data[key] = value

    def _grow(self) -> None:
        size = _SIZES[self._grown]
        self._grown += 1
        buckets: list[list[str]] = [[] for _ in range(size)]
        for chain in self._buckets:
            for key in chain:
                buckets[_hash(key) % size].insert(0, key)
        self._buckets = buckets

    def delete(self, key: str) -> None:
        if key in self.data:
            del self.data[key]
            self._buckets[_hash(key) % len(self._buckets)].remove(key)

    def clear(self) -> None:
        self.data.clear()
        for chain in self._buckets:
            chain.clear()

    def keys(self) -> list[str]:
        return [k for chain in self._buckets for k in chain]

    def fill(self, items: list[str]) -> None:
        """Elements 1..n from `items`, as split() leaves them (input: strnums)."""
        self.clear()
        for i, item in enumerate(items, 1):
            self.set(str(i), StrNum(item))


class Reader:
    """Text coming in (a file, standard input, a command's output), cut into records."""

    def __init__(self, pull: Pull | None, text: str = "") -> None:
        self.buf = text
        self.pull = pull  # more text, None at the end; None: all of it is in `text`
        self.pos = 0

    def more(self) -> Generator[Any, Any, bool]:
        if self.pull is None:
            return False
        chunk = yield from self.pull()
        if chunk is None:
            self.pull = None
            return False
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return True

    def record(self, rs: str) -> Generator[Any, Any, str | None]:
        """The next record (without its terminator); None at the end."""
        if rs == "":
            return (yield from self._paragraph())
        if len(rs) > 1:
            while (yield from self.more()):
                pass
            m = _pattern(rs).search(self.buf, self.pos)
            if m is not None and m.end() > m.start():
                rec, self.pos = self.buf[self.pos:m.start()], m.end()
                return rec
        else:
            while True:
                end = self.buf.find(rs, self.pos)
                if end >= 0:
                    rec, self.pos = self.buf[self.pos:end], end + 1
                    return rec
                if not (yield from self.more()):
                    break
        if self.pos >= len(self.buf):
            return None
        rec, self.pos = self.buf[self.pos:], len(self.buf)
        return rec

    def _paragraph(self) -> Generator[Any, Any, str | None]:
        while True:  # blank lines before a paragraph are nobody's
            while self.pos < len(self.buf) and self.buf[self.pos] == "\n":
                self.pos += 1
            if self.pos < len(self.buf) or not (yield from self.more()):
                break
        while True:
            m = _PARAGRAPH_END.search(self.buf, self.pos)
            if m is not None and (m.end() < len(self.buf) or self.pull is None):
                rec, self.pos = self.buf[self.pos:m.start()], m.end()
                return rec
            if not (yield from self.more()):
                if m is None:
                    break
        if self.pos >= len(self.buf):
            return None
        rec, self.pos = self.buf[self.pos:], len(self.buf)  # (a last newline stays, as busybox has it)
        return rec
