"""The pieces of the command-line grammar the fault flags share:

    TARGET[/STAGE]=VALUE[@PCT][#N][:MESSAGE]

Several items go comma-separated, or the flag is repeated. Each flag's own parser lives
with its fault type (fakecri.faults.kinds); see docs/faults.md.
"""
from __future__ import annotations

import re

from fakecri.faults.ftype import STAGES, FaultType, validate_as
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.values import parse_count, parse_duration, parse_percent

# A comma starts a new item only when `TARGET=` follows, so messages may hold commas.
_ITEM_SPLIT = re.compile(r",(?=\s*[^,=:\s][^,=:]*=)")
JITTER_SPLIT = re.compile(r"±|\+-|\+/-")
_BARE_NUMBER = re.compile(r"\d+(?:\.\d*)?|\.\d+")


def items(text: str, flag: str, *, messages: bool = False) -> list[str]:
    """The comma-separated items of one flag value. Only items that carry a message
    (`messages`) need the careful split."""
    splitter = _ITEM_SPLIT if messages else re.compile(",")
    out = [part.strip() for part in splitter.split(str(text))]
    if not any(out):
        raise FaultSpecError(f"{flag}: empty value")
    if not all(out):
        raise FaultSpecError(f"{flag} {text!r}: an item between commas is empty")
    return out


def target_stage(item: str, *, default_all: bool, flag: str) -> tuple[str, str, str]:
    if "=" not in item:
        if default_all:
            return "*", "before", item
        raise FaultSpecError(f"{flag} {item!r}: expected TARGET=CODE, like RunPodSandbox=UNAVAILABLE")
    target, value = item.split("=", 1)
    target, stage = target.strip(), "before"
    if "/" in target:
        target, stage = (s.strip() for s in target.rsplit("/", 1))
        if stage not in STAGES:
            raise FaultSpecError(f"{flag} {item!r}: stage {stage!r} must be 'before' or 'after'")
    if not target:
        raise FaultSpecError(f"{flag} {item!r}: the method before '=' is empty; use '*' for every method")
    return target, stage, value


def modifiers(value: str, item: str, flag: str) -> tuple[str, float, int, str | None]:
    """Split 'HEAD[@PCT][#N][:MESSAGE]' (the @ and # parts in any order)."""
    try:
        return _split_modifiers(value)
    except FaultSpecError as exc:
        raise FaultSpecError(f"{flag} {item!r}: {exc}") from None


def _split_modifiers(value: str) -> tuple[str, float, int, str | None]:
    head, sep, message = value.partition(":")
    tokens = re.split(r"([@#])", head)
    base, tox, count = tokens[0].strip(), 1.0, 0
    seen: set[str] = set()
    for mark, arg in zip(tokens[1::2], tokens[2::2], strict=False):
        if mark in seen:
            raise FaultSpecError(f"'{mark}' given twice")
        seen.add(mark)
        if mark == "@":
            tox = parse_percent(arg)
            if tox == 0:
                raise FaultSpecError("@0% would never fire; leave the item out")
        else:
            count = parse_count(arg, minimum=1, what="#count")
    if not base:
        raise FaultSpecError("nothing after '='")
    return base, tox, count, (message if sep else None)


def duration(text: str, item: str, flag: str) -> str:
    text = text.strip()
    try:
        seconds = parse_duration(text)
    except FaultSpecError as exc:
        raise FaultSpecError(f"{flag} {item!r}: {exc}") from None
    if seconds and _BARE_NUMBER.fullmatch(text):
        # On the command line a unit is required: '200' is too easily meant as 200ms.
        raise FaultSpecError(f"{flag} {item!r}: {text!r} needs a unit, e.g. {text}ms or {text}s")
    return text


def checked(ftype: FaultType, fault: Fault, item: str) -> Fault:
    """`fault` if it is a valid fault of `ftype`; else FaultSpecError naming the flag and item."""
    try:
        validate_as(ftype, fault)
    except FaultSpecError as exc:
        flag = ftype.flag.flag if ftype.flag else ftype.name
        raise FaultSpecError(f"{flag} {item!r}: {exc}") from None
    return fault


def names(text: str) -> list[str]:
    """'a, b,a' -> ['a', 'b']: the names of a comma-separated list, each once, in order."""
    out: list[str] = []
    for name in (part.strip() for part in str(text).split(",")):
        if name and name not in out:
            out.append(name)
    return out
