"""Values printed as Go programs print them: JSON as encoding/json writes it, times as
time.Time's String, floats as %v."""
from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from fakecri.sim.programs.flags import go_duration_string

__all__ = ["go_json", "go_time", "go_float", "go_duration_string", "canonical_header"]


def go_json(value: Any, *, indent: str = "", struct: bool = False) -> str:
    """encoding/json's Marshal (MarshalIndent with `indent`): map keys sorted (a `struct` keeps
    its fields' order), no spaces, and <, >, & and the line separators escaped as Go escapes
    them for HTML."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=not struct,
                      separators=(",", ":") if not indent else (",", ": "), indent=indent or None)
    for raw, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                     ("\u2029", "\\u2029")):
        text = text.replace(raw, esc)
    return text


def go_time(ns: int, started_ns: int) -> str:
    """time.Now().String(): `2006-01-02 15:04:05.999999999 +0000 UTC m=+1.000000001` in UTC,
    with the monotonic reading counted from the process's start."""
    secs, frac = divmod(ns, 1_000_000_000)
    base = datetime.fromtimestamp(secs, UTC).strftime("%Y-%m-%d %H:%M:%S")
    fraction = f".{frac:09d}".rstrip("0") if frac else ""
    mono = max(0, ns - started_ns) / 1e9
    return f"{base}{fraction} +0000 UTC m=+{mono:.9f}"


def go_float(value: float) -> str:
    """%v of a float64: the shortest form that reads back, exponent past 1e21."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def canonical_header(name: str) -> str:
    """textproto.CanonicalMIMEHeaderKey: `x-forwarded-for` -> `X-Forwarded-For`."""
    if not name or any(c in name for c in " \t\r\n:"):
        return name
    return "-".join(part[:1].upper() + part[1:].lower() for part in name.split("-"))
