"""Faults as named data: the model, the flag and file grammar, and seeded decisions.

Stdlib and fakecri.engine only. The server asks a FaultPlan what to do to each call,
pull and event, and applies the answer.
"""
from __future__ import annotations

from fakecri.faults.event_faults import EventFaults
from fakecri.faults.kinds.recipe import parse_recipes
from fakecri.faults.model import (
    CallAction,
    ConditionOverride,
    Fault,
    FaultRecord,
    FaultSpecError,
    PullAction,
    RestartAction,
)
from fakecri.faults.plan import FaultPlan
from fakecri.faults.quirks import QUIRK_NAMES, QUIRKS
from fakecri.faults.recipes import RECIPE_NAMES, RECIPES
from fakecri.faults.registry import TYPE_NAMES, TYPES, validate
from fakecri.faults.spec import (
    load_faults_file,
    parse_drop_events,
    parse_duration,
    parse_error,
    parse_latency,
    parse_percent,
    parse_quirks,
)

__all__ = [
    "CallAction", "ConditionOverride", "EventFaults", "Fault", "FaultPlan", "FaultRecord",
    "FaultSpecError", "PullAction", "QUIRKS", "QUIRK_NAMES", "RECIPES", "RECIPE_NAMES", "RestartAction", "TYPES",
    "TYPE_NAMES",
    "load_faults_file", "parse_drop_events", "parse_duration", "parse_error",
    "parse_latency", "parse_percent", "parse_quirks", "parse_recipes", "validate",
]
