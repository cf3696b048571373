"""Parsing of durations such as "500ms", "3s", "2m", "1.5s", "1m30s" into nanoseconds."""
from __future__ import annotations

import re

NS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
      "m": 60_000_000_000, "h": 3_600_000_000_000, "d": 86_400_000_000_000}

_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d)")
_NUMBER = re.compile(r"\d+(?:\.\d*)?|\.\d+")
FOREVER_WORDS = frozenset({"never", "infinity", "inf", "forever"})
MAX_NS = 100 * 365 * NS["d"]  # a hundred years: longer than anything a test waits for


def parse_duration_ns(text: str, *, allow_forever: bool = False) -> int | None:
    """Nanoseconds in `text`; a bare number is seconds. None means "forever" (if allowed).

    Raises ValueError with a short reason on anything else.
    """
    s = text.strip()
    if allow_forever and s.lower() in FOREVER_WORDS:
        return None
    if not s:
        raise ValueError("'' is not a duration: it is empty")
    if _NUMBER.fullmatch(s):
        total = float(s) * NS["s"]
    else:
        pos = 0
        total = 0.0
        for m in _PART.finditer(s):
            if m.start() != pos:
                break
            total += float(m.group(1)) * NS[m.group(2)]
            pos = m.end()
        if pos != len(s) or pos == 0:
            hint = ' or "never"' if allow_forever else ""
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise ValueError(f"{shown!r} is not a duration (examples: 500ms, 3s, 1.5m, 1m30s{hint})")
    if not total <= MAX_NS:  # also catches the infinity a float turns a huge number into
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"{shown!r} is longer than a hundred years")
    return round(total)
