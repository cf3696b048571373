"""Faults files (YAML or JSON), and the flag parsers' old home.

    --faults FILE                          a list of fault mappings, keys as Fault.to_dict()

The parsers of the other fault flags live with their fault types (fakecri.faults.kinds):
--drop-events (drop_events), --latency (latency), --error (error), --quirks (quirk),
--recipe (recipe). See docs/faults.md.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fakecri.faults import registry
from fakecri.faults.ftype import FaultFlag
from fakecri.faults.kinds.drop_events import parse_drop_events
from fakecri.faults.kinds.error import parse_error
from fakecri.faults.kinds.latency import parse_latency
from fakecri.faults.kinds.quirk import parse_quirks
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.values import parse_duration, parse_percent

__all__ = [
    "FILE_FLAG", "load_faults_file", "parse_drop_events", "parse_duration", "parse_error",
    "parse_latency", "parse_percent", "parse_quirks",
]


def load_faults_file(path: str | Path) -> list[Fault]:
    """Read a YAML or JSON faults file: a list of fault mappings (or {faults: [...]})."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FaultSpecError(f"--faults {p}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        data = _decode(text, p)
    except RecursionError:
        raise FaultSpecError(f"--faults {p}: nested too deeply") from None
    if isinstance(data, dict) and set(data) == {"faults"}:
        data = data["faults"]
    if data is None:
        return []
    if not isinstance(data, list):
        raise FaultSpecError(f"--faults {p}: expected a list of faults (or a mapping with a 'faults' list)")
    faults: list[Fault] = []
    names: set[str] = set()
    for i, raw in enumerate(data, start=1):
        try:
            fault = Fault.from_dict(raw)
            if isinstance(raw, dict) and raw.get("toxicity") is not None and fault.toxicity == 0:
                # The proto reads 0 as "always"; in a file that is almost surely a slip.
                raise FaultSpecError("toxicity 0 would mean 'always' (as in the proto); "
                                     "leave the fault out, or give a value above 0")
            registry.validate(fault)
        except FaultSpecError as exc:
            raise FaultSpecError(f"--faults {p}: fault #{i}: {exc}") from None
        if fault.name:
            if fault.name in names:
                raise FaultSpecError(f"--faults {p}: fault #{i}: the name {fault.name!r} is used twice")
            names.add(fault.name)
        faults.append(fault)
    return faults


# ---- helpers ------------------------------------------------------------------


def _decode(text: str, path: Path) -> Any:
    suffix = path.suffix.lower()
    if suffix == ".json":
        return _json(text, path)
    if suffix in (".yaml", ".yml"):
        return _yaml(text, path)
    try:
        return json.loads(text)
    except ValueError:
        return _yaml(text, path)


def _json(text: str, path: Path) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise FaultSpecError(f"--faults {path}: not valid JSON ({exc})") from None


def _yaml(text: str, path: Path) -> Any:
    import yaml  # only files need it

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise FaultSpecError(f"--faults {path}: not valid YAML ({exc})") from None


FILE_FLAG = FaultFlag("--faults", "Load faults from a YAML or JSON file: a list of mappings with the keys name, type, "
                                  "target, stage, toxicity, count, attributes.",
                      "--faults FILE                            YAML or JSON list of faults",
                      load_faults_file, is_file=True, in_strings=False)
