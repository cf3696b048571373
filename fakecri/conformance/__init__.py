"""A property-based conformance suite for any CRI runtime.

Hypothesis drives random sequences of CRI calls through `fakecri.client` while two
event subscribers and a kubelet-like PLEG are open, and checks the properties in
`fakecri.conformance.properties` after every step and at the end of each example.

Three ways to run it: `fakecri conformance [--endpoint ...]`, `run_suite(Options(...))`
from Python, and `pytest --pyargs fakecri.conformance --cri-endpoint ...`.
Imports only fakecri.client, fakecri.api, hypothesis, pytest and the standard library.
The names below load on first use, so `fakecri --help` stays quick.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "MUST": "properties", "SHOULD": "properties", "NAMES": "properties", "PROPERTIES": "properties",
    "PROFILES": "profiles", "RUN_LABEL": "expectations",
    "Options": "options", "PropertyResult": "results", "SuiteResult": "results", "cleanup_run": "runner",
    "run_suite": "runner", "conformance_command": "command",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fakecri.conformance' has no attribute {name!r}")
    mod = import_module(f"fakecri.conformance.{module}")
    return getattr(mod, "ALL" if name == "PROPERTIES" else name)
