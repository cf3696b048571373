"""Fault types by name: what each one acts on and the attributes it takes.

`validate(fault)` checks a fault against its type and returns it normalised together
with its parsed attributes; it raises FaultSpecError saying what is wrong.
"""
from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fakecri.faults.methods import check_method_glob
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.quirks import QUIRK_NAMES
from fakecri.faults.recipes import RECIPE_NAMES
from fakecri.faults.values import (
    parse_bool,
    parse_code,
    parse_count,
    parse_duration,
    suggest,
)

# What a type acts on. The plan keeps one list per kind.
CALL, EVENT, PULL, QUIRK, CONDITION, RESTART = "call", "event", "pull", "quirk", "condition", "restart"
RECIPE = "recipe"  # not kept: a plan expands it into the recipe's own faults

STAGES = ("before", "after")
CONDITIONS = ("RuntimeReady", "NetworkReady")
PULL_REASONS: dict[str, str] = {
    "not_found": "NOT_FOUND",
    "auth": "UNAUTHENTICATED",
    "rate_limited": "RESOURCE_EXHAUSTED",
}

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")


def _choice(options: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text in options:
            return text
        raise FaultSpecError(f"{text!r} is not one of {', '.join(options)}{suggest(text, options)}")
    return parse


def _error_code(text: str) -> str:
    code = parse_code(text)
    if code == "OK":
        raise FaultSpecError("an error fault cannot answer OK; pick an error code such as UNAVAILABLE")
    return code


def _positive(text: str) -> int:
    return parse_count(text, minimum=1, what="value")


def _non_negative(text: str) -> int:
    return parse_count(text, minimum=0, what="value")


def _text(text: str) -> str:
    return text


@dataclass(frozen=True)
class Attr:
    """One attribute: how to parse it, its default text (None: required or absent)."""

    parse: Callable[[str], Any]
    default: str | None = None
    required: bool = False
    doc: str = ""


@dataclass(frozen=True)
class FaultType:
    name: str
    kind: str
    doc: str
    attributes: dict[str, Attr] = field(default_factory=dict)


def _t(type_name: str, kind: str, doc: str, /, **attrs: Attr) -> FaultType:
    return FaultType(type_name, kind, doc, attrs)


_DELAY = Attr(parse_duration, required=True, doc="fixed delay, e.g. 200ms")
_JITTER = Attr(parse_duration, "0", doc="uniform jitter added or taken off, e.g. 50ms")

TYPES: dict[str, FaultType] = {t.name: t for t in (
    _t("error", CALL, "Answer matching calls with a gRPC error.",
       code=Attr(_error_code, "UNAVAILABLE", doc="gRPC code name"),
       message=Attr(_text, "", doc="status message; a default names the fault")),
    _t("latency", CALL, "Delay matching calls by delay plus or minus jitter.",
       delay=_DELAY, jitter=_JITTER),
    _t("hang", CALL, "Never answer matching calls; the client's deadline ends them."),
    _t("restart", RESTART, "Restart the runtime: at once, or at the Nth matching call.",
       downtime=Attr(parse_duration, "1s", doc="how long calls answer UNAVAILABLE"),
       wipe=Attr(parse_bool, "false", doc="forget sandboxes and containers"),
       at=Attr(_positive, None, doc="restart at this matching call (1 = the next one)")),
    _t("drop_events", EVENT, "Drop events on a subscriber's stream."),
    _t("duplicate_events", EVENT, "Send events more than once.",
       copies=Attr(_positive, "1", doc="extra copies of a hit event")),
    _t("reorder_events", EVENT, "Hold events back behind up to `window` later events.",
       window=Attr(_positive, "3", doc="most later events a held event waits for")),
    _t("delay_events", EVENT, "Deliver events late.", delay=_DELAY, jitter=_JITTER),
    _t("cut_stream", EVENT, "End a subscriber's stream after N events.",
       after=Attr(_non_negative, "0", doc="events delivered before the cut"),
       code=Attr(parse_code, "UNAVAILABLE", doc="status the stream ends with (OK allowed)"),
       message=Attr(_text, "", doc="status message")),
    _t("stale_replay", EVENT, "Replay old events to a new subscriber before live ones.",
       events=Attr(_non_negative, "0", doc="how many of the latest old events; 0 = all kept")),
    _t("quirk", QUIRK, "Switch on a behaviour seen in a real runtime.",
       name=Attr(_choice(QUIRK_NAMES), required=True, doc="quirk name")),
    _t("recipe", RECIPE, "Add a named recipe's faults (fakecri.faults.recipes).",
       name=Attr(_choice(RECIPE_NAMES), required=True, doc="recipe name")),
    _t("condition", CONDITION, "Force a runtime condition for a while.",
       condition=Attr(_choice(CONDITIONS), required=True, doc="RuntimeReady or NetworkReady"),
       status=Attr(parse_bool, "false", doc="the forced status"),
       reason=Attr(_text, "FakecriInjected", doc="condition reason"),
       message=Attr(_text, "", doc="condition message"),
       duration=Attr(parse_duration, "0", doc="how long; 0 = until the fault is removed")),
    _t("pull_error", PULL, "Fail pulls of matching image references.",
       reason=Attr(_choice(tuple(PULL_REASONS)), "not_found", doc="not_found, auth or rate_limited"),
       code=Attr(_error_code, None, doc="override the code the reason implies"),
       message=Attr(_text, "", doc="override the message")),
    _t("slow_pull", PULL, "Make pulls of matching image references slow.",
       delay=_DELAY, jitter=_JITTER),
)}

TYPE_NAMES: tuple[str, ...] = tuple(TYPES)


def kind_of(type_name: str) -> str:
    return TYPES[type_name].kind


def validate(fault: Fault) -> tuple[Fault, dict[str, Any]]:
    """Check `fault`; return a normalised copy and its parsed attributes.

    Normalising: stage '' -> 'before'; toxicity 0 -> 1 (as in the proto); attribute
    defaults filled in. Raises FaultSpecError naming the fault and the problem.
    """
    label = f"fault {fault.name!r}" if fault.name else "fault"
    ftype = TYPES.get(fault.type)
    if ftype is None:
        raise FaultSpecError(
            f"{label}: unknown type {fault.type!r}{suggest(fault.type, TYPE_NAMES)}; "
            f"expected one of {', '.join(TYPE_NAMES)}"
        )
    label = f"{label} ({fault.type})"
    try:
        params = _check(fault, ftype)
    except FaultSpecError as exc:
        raise FaultSpecError(f"{label}: {exc}") from None
    attrs = {k: v for k, v in fault.attributes.items()}
    for key, spec in ftype.attributes.items():
        if key not in attrs and spec.default is not None:
            attrs[key] = spec.default
    normal = dataclasses.replace(
        fault,
        stage=fault.stage or "before",
        toxicity=1.0 if fault.toxicity == 0 else float(fault.toxicity),
        attributes=attrs,
    )
    return normal, params


def _check(fault: Fault, ftype: FaultType) -> dict[str, Any]:
    if fault.name and not _NAME.fullmatch(fault.name):
        raise FaultSpecError("a name uses letters, digits, '_', '.', ':' and '-' and starts with a letter or digit")
    tox = fault.toxicity
    if not isinstance(tox, (int, float)) or not math.isfinite(tox) or not 0 <= tox <= 1:
        raise FaultSpecError(f"toxicity {tox!r} must be a probability between 0 and 1")
    if not isinstance(fault.count, int) or fault.count < 0:
        raise FaultSpecError(f"count {fault.count!r} must be 0 (no limit) or a positive number of hits")
    stage = fault.stage or "before"
    if stage not in STAGES:
        raise FaultSpecError(f"stage {fault.stage!r} must be 'before' or 'after'")
    kind = ftype.kind
    if kind in (CALL, RESTART):
        check_method_glob(fault.target)
    elif kind != PULL and fault.target not in ("", "*"):
        raise FaultSpecError(f"a target does not apply to {ftype.name} faults; leave it empty")
    if stage == "after" and kind not in (CALL, RESTART):
        raise FaultSpecError(f"stage 'after' only applies to RPC faults, not {ftype.name}")
    if kind in (QUIRK, CONDITION, RESTART, RECIPE):
        if tox not in (0, 1):
            raise FaultSpecError(f"toxicity does not apply to {ftype.name} faults; leave it at 1")
        if fault.count > (1 if kind == RESTART else 0):
            raise FaultSpecError(f"count does not apply to {ftype.name} faults; leave it at 0")
    return _parse_attributes(fault.attributes, ftype)


def _parse_attributes(attributes: dict[str, str], ftype: FaultType) -> dict[str, Any]:
    unknown = sorted(set(attributes) - set(ftype.attributes))
    if unknown:
        known = ", ".join(ftype.attributes) or "none"
        raise FaultSpecError(f"unknown attribute(s) {', '.join(unknown)}; {ftype.name} takes {known}")
    params: dict[str, Any] = {}
    for key, spec in ftype.attributes.items():
        text = attributes.get(key)
        if text is None:
            if spec.required:
                raise FaultSpecError(f"attribute {key!r} is required ({spec.doc})")
            text = spec.default
        if text is None:
            params[key] = None
            continue
        if not isinstance(text, str):
            raise FaultSpecError(f"attribute {key!r} must be a string; got {text!r}")
        try:
            params[key] = spec.parse(text)
        except FaultSpecError as exc:
            raise FaultSpecError(f"attribute {key!r}: {exc}") from None
    return params
