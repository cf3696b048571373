"""Parsers for the small values faults are made of: durations, percentages, codes, counts."""
from __future__ import annotations

import difflib
import math
import re



class FaultSpecError(ValueError):
    """A fault, flag or faults file is malformed. The message says what and what was expected."""


# Every gRPC status code name, in numeric order (index == code number).
GRPC_CODES: tuple[str, ...] = (
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
)

_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_BARE_NUMBER = re.compile(r"\d+(?:\.\d*)?|\.\d+")

MAX_DURATION_S = 366 * 86400.0
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def suggest(word: str, choices: tuple[str, ...] | list[str]) -> str:
    """' (did you mean X?)' when a choice is close to `word`, else ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def parse_duration(text: str) -> float:
    """'200ms', '1.5s', '2m', '1m30s', '250us' or a bare number of seconds -> seconds."""
    s = str(text).strip()
    if _BARE_NUMBER.fullmatch(s):
        return _finite(float(s), s)
    pos, total = 0, 0.0
    for m in _DURATION_PART.finditer(s):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNIT_SECONDS[m.group(2)]
        pos = m.end()
    if not s or pos != len(s):
        raise FaultSpecError(
            f"{text!r} is not a duration; expected a number with a unit (ns, us, ms, s, m, h), "
            "like 200ms, 1.5s or 1m30s, or a plain number of seconds"
        )
    return _finite(total, text)


def _finite(seconds: float, text: str) -> float:
    if not math.isfinite(seconds) or seconds > MAX_DURATION_S:
        raise FaultSpecError(f"{text[:40]!r}{'...' if len(text) > 40 else ''} is longer than a year")
    return seconds


def parse_percent(text: str) -> float:
    """'5%' or '0.05' -> 0.05. The result is in [0, 1]."""
    s = str(text).strip()
    try:
        value = float(s[:-1]) / 100 if s.endswith("%") else float(s)
    except ValueError:
        raise FaultSpecError(
            f"{text!r} is not a probability; expected a percentage like 5% or a fraction like 0.05"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise FaultSpecError(f"{text!r} is not a probability; it must be between 0% and 100%")
    if value > 1:
        hint = ""
        if not s.endswith("%") and value <= 100:
            hint = f"; a bare number is a fraction of 1, so write {s}% if you meant {s} percent"
        raise FaultSpecError(
            f"{text!r} is more than 100%; expected a percentage like 5% or a fraction like 0.05{hint}")
    return value


def parse_count(text: str, *, minimum: int = 0, what: str = "count") -> int:
    """A whole number no smaller than `minimum`."""
    s = str(text).strip()
    if not re.fullmatch(r"[+-]?\d+", s):
        raise FaultSpecError(f"{what} {text!r} is not a whole number")
    value = int(s)
    if value < minimum:
        raise FaultSpecError(f"{what} {text!r} must be at least {minimum}")
    return value


def parse_bool(text: str) -> bool:
    s = str(text).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    raise FaultSpecError(f"{text!r} is not a boolean; expected true or false")


def parse_code(text: str) -> str:
    """A gRPC status code by name (any case, e.g. 'Unavailable') or number (14) -> 'UNAVAILABLE'."""
    s = str(text).strip()
    if s.isdigit() and int(s) < len(GRPC_CODES):
        return GRPC_CODES[int(s)]
    name = s.upper().replace("-", "_")
    if name == "CANCELED":
        name = "CANCELLED"
    if name in GRPC_CODES:
        return name
    raise FaultSpecError(
        f"{text!r} is not a gRPC status code{suggest(name, GRPC_CODES)}; "
        f"expected one of {', '.join(GRPC_CODES)}"
    )
