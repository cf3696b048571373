"""Attribute parsers and attributes that several fault types share."""
from __future__ import annotations

from collections.abc import Callable

from fakecri.faults.ftype import Attr
from fakecri.faults.model import FaultSpecError
from fakecri.faults.values import parse_code, parse_count, parse_duration, suggest


def choice(options: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text in options:
            return text
        raise FaultSpecError(f"{text!r} is not one of {', '.join(options)}{suggest(text, options)}")
    return parse


def error_code(text: str) -> str:
    code = parse_code(text)
    if code == "OK":
        raise FaultSpecError("an error fault cannot answer OK; pick an error code such as UNAVAILABLE")
    return code


def positive(text: str) -> int:
    return parse_count(text, minimum=1, what="value")


def non_negative(text: str) -> int:
    return parse_count(text, minimum=0, what="value")


def text(value: str) -> str:
    return value


DELAY = Attr(parse_duration, required=True, doc="fixed delay, e.g. 200ms")
JITTER = Attr(parse_duration, "0", doc="uniform jitter added or taken off, e.g. 50ms")
