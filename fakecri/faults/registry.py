"""The one registry of fault types, built from their descriptors (one module each under
fakecri.faults.kinds). The serve flags, the faults-file `type:` values, the control API's
`Fault.type` names, the help and docs/faults.md's tables all come from, or are checked
against, TYPES.

`validate(fault)` checks a fault against its type and returns it normalised together
with its parsed attributes; it raises FaultSpecError saying what is wrong.
"""
from __future__ import annotations

from typing import Any

from fakecri.faults.ftype import (
    CALL,
    CONDITION,
    EVENT,
    PULL,
    QUIRK,
    RECIPE,
    RESTART,
    STAGES,
    Attr,
    FaultType,
    validate_as,
)
from fakecri.faults.kinds.condition import CONDITION as CONDITION_TYPE
from fakecri.faults.kinds.cut_stream import CUT_STREAM
from fakecri.faults.kinds.delay_events import DELAY_EVENTS
from fakecri.faults.kinds.drop_events import DROP_EVENTS
from fakecri.faults.kinds.duplicate_events import DUPLICATE_EVENTS
from fakecri.faults.kinds.error import ERROR
from fakecri.faults.kinds.hang import HANG
from fakecri.faults.kinds.latency import LATENCY
from fakecri.faults.kinds.pull_error import PULL_ERROR
from fakecri.faults.kinds.quirk import QUIRK as QUIRK_TYPE
from fakecri.faults.kinds.recipe import RECIPE as RECIPE_TYPE
from fakecri.faults.kinds.reorder_events import REORDER_EVENTS
from fakecri.faults.kinds.restart import RESTART as RESTART_TYPE
from fakecri.faults.kinds.slow_pull import SLOW_PULL
from fakecri.faults.kinds.stale_replay import STALE_REPLAY
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.values import suggest

__all__ = [
    "ALL", "CALL", "CONDITION", "EVENT", "PULL", "QUIRK", "RECIPE", "RESTART", "STAGES", "TYPES", "TYPE_NAMES",
    "Attr", "FaultType", "describe", "kind_of", "type_of", "validate",
]

# In the order the help and the error messages list them.
ALL: tuple[FaultType, ...] = (
    ERROR, LATENCY, HANG, RESTART_TYPE,
    DROP_EVENTS, DUPLICATE_EVENTS, REORDER_EVENTS, DELAY_EVENTS, CUT_STREAM, STALE_REPLAY,
    QUIRK_TYPE, RECIPE_TYPE, CONDITION_TYPE, PULL_ERROR, SLOW_PULL,
)
TYPES: dict[str, FaultType] = {t.name: t for t in ALL}
TYPE_NAMES: tuple[str, ...] = tuple(TYPES)


def type_of(type_name: str) -> FaultType:
    return TYPES[type_name]


def kind_of(type_name: str) -> str:
    return TYPES[type_name].kind


def validate(fault: Fault) -> tuple[Fault, dict[str, Any]]:
    """Check `fault`; return a normalised copy and its parsed attributes.

    Normalising: stage '' -> 'before'; toxicity 0 -> 1 (as in the proto); attribute
    defaults filled in. Raises FaultSpecError naming the fault and the problem.
    """
    ftype = TYPES.get(fault.type)
    if ftype is None:
        label = f"fault {fault.name!r}" if fault.name else "fault"
        raise FaultSpecError(
            f"{label}: unknown type {fault.type!r}{suggest(fault.type, TYPE_NAMES)}; "
            f"expected one of {', '.join(TYPE_NAMES)}"
        )
    return validate_as(ftype, fault)


def describe() -> list[dict[str, Any]]:
    """Every type as plain data, for `fakecri fault-types`: name, what it acts on, help, the
    serve flag that writes it (or None) and its attributes (name, default, required, doc)."""
    return [
        {"name": t.name, "acts_on": t.kind, "help": t.doc, "flag": t.flag.flag if t.flag else None,
         "attributes": [{"name": key, "default": a.default, "required": a.required, "doc": a.doc}
                        for key, a in t.attributes.items()]}
        for t in ALL
    ]
