"""The command-line grammar for faults, and faults files (YAML or JSON).

    --drop-events 5%                       (or 0.05)
    --latency 'ListContainers=200ms±50ms'  TARGET[/STAGE]=DELAY[±JITTER][@PCT][#N], or a bare DELAY
    --error 'RunPodSandbox=UNAVAILABLE@10%' TARGET[/STAGE]=CODE[@PCT][#N][:MESSAGE]
    --quirks NAME,...
    --faults FILE                          a list of fault mappings, keys as Fault.to_dict()

Several items may be given comma-separated or by repeating the flag. See docs/faults.md.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fakecri.faults import registry
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.quirks import QUIRK_NAMES
from fakecri.faults.values import parse_code, parse_count, parse_duration, parse_percent, suggest

__all__ = [
    "load_faults_file", "parse_drop_events", "parse_duration", "parse_error",
    "parse_latency", "parse_percent", "parse_quirks",
]

# A comma starts a new item only when `TARGET=` follows, so messages may hold commas.
_ITEM_SPLIT = re.compile(r",(?=\s*[^,=:\s][^,=:]*=)")
_JITTER_SPLIT = re.compile(r"±|\+-|\+/-")
_BARE_NUMBER = re.compile(r"\d+(?:\.\d*)?|\.\d+")


def parse_drop_events(text: str) -> Fault:
    """'5%' or '0.05' -> a drop_events fault with that per-event toxicity."""
    p = parse_percent(text)
    if p == 0:
        raise FaultSpecError(f"--drop-events {text!r} drops nothing; leave the flag out instead")
    return _checked(Fault(type="drop_events", toxicity=p), text)


def parse_latency(text: str) -> list[Fault]:
    """'ListContainers=200ms±50ms,*Sandbox*/after=1s@50%#3' -> latency faults."""
    faults = []
    for item in _items(text, "--latency"):
        target, stage, value = _target_stage(item, default_all=True)
        value, tox, count, message = _modifiers(value, item, "--latency")
        if message is not None:
            raise FaultSpecError(f"--latency {item!r}: a latency takes no ':message'")
        parts = _JITTER_SPLIT.split(value)
        if len(parts) > 2:
            raise FaultSpecError(f"--latency {item!r}: expected DELAY or DELAY±JITTER, like 200ms±50ms")
        attrs = {"delay": _duration(parts[0], item, "--latency")}
        if len(parts) == 2:
            attrs["jitter"] = _duration(parts[1], item, "--latency")
        fault = Fault(type="latency", target=target, stage=stage, toxicity=tox, count=count, attributes=attrs)
        faults.append(_checked(fault, item, "--latency"))
    return faults


def parse_error(text: str) -> list[Fault]:
    """'RunPodSandbox=UNAVAILABLE@10%#5:try again' -> error faults."""
    faults = []
    for item in _items(text, "--error"):
        target, stage, value = _target_stage(item, default_all=False, flag="--error")
        code, tox, count, message = _modifiers(value, item, "--error")
        try:
            attrs = {"code": parse_code(code)}
        except FaultSpecError as exc:
            raise FaultSpecError(f"--error {item!r}: {exc}") from None
        if message is not None:
            attrs["message"] = message
        fault = Fault(type="error", target=target, stage=stage, toxicity=tox, count=count, attributes=attrs)
        faults.append(_checked(fault, item, "--error"))
    return faults


def parse_quirks(text: str) -> list[Fault]:
    """'created-at-seconds,no-sandbox-deleted-event' -> quirk faults (duplicates once)."""
    faults: list[Fault] = []
    seen: set[str] = set()
    for name in (part.strip() for part in str(text).split(",")):
        if not name or name in seen:
            continue
        if name not in QUIRK_NAMES:
            raise FaultSpecError(
                f"--quirks: unknown quirk {name!r}{suggest(name, QUIRK_NAMES)}; "
                f"expected some of {', '.join(QUIRK_NAMES)}"
            )
        seen.add(name)
        faults.append(Fault(type="quirk", attributes={"name": name}))
    return faults


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


def _items(text: str, flag: str) -> list[str]:
    # Only --error items carry a message, so only they need the careful split.
    splitter = _ITEM_SPLIT if flag == "--error" else re.compile(",")
    items = [part.strip() for part in splitter.split(str(text))]
    if not any(items):
        raise FaultSpecError(f"{flag}: empty value")
    if not all(items):
        raise FaultSpecError(f"{flag} {text!r}: an item between commas is empty")
    return items


def _target_stage(item: str, *, default_all: bool, flag: str = "--latency") -> tuple[str, str, str]:
    if "=" not in item:
        if default_all:
            return "*", "before", item
        raise FaultSpecError(f"{flag} {item!r}: expected TARGET=CODE, like RunPodSandbox=UNAVAILABLE")
    target, value = item.split("=", 1)
    target, stage = target.strip(), "before"
    if "/" in target:
        target, stage = (s.strip() for s in target.rsplit("/", 1))
        if stage not in registry.STAGES:
            raise FaultSpecError(f"{flag} {item!r}: stage {stage!r} must be 'before' or 'after'")
    if not target:
        raise FaultSpecError(f"{flag} {item!r}: the method before '=' is empty; use '*' for every method")
    return target, stage, value


def _modifiers(value: str, item: str, flag: str) -> tuple[str, float, int, str | None]:
    """Split 'HEAD[@PCT][#N][:MESSAGE]' (the @ and # parts in any order)."""
    try:
        return _split_modifiers(value, item)
    except FaultSpecError as exc:
        raise FaultSpecError(f"{flag} {item!r}: {exc}") from None


def _split_modifiers(value: str, item: str) -> tuple[str, float, int, str | None]:
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


def _duration(text: str, item: str, flag: str) -> str:
    text = text.strip()
    try:
        seconds = parse_duration(text)
    except FaultSpecError as exc:
        raise FaultSpecError(f"{flag} {item!r}: {exc}") from None
    if seconds and _BARE_NUMBER.fullmatch(text):
        # On the command line a unit is required: '200' is too easily meant as 200ms.
        raise FaultSpecError(f"{flag} {item!r}: {text!r} needs a unit, e.g. {text}ms or {text}s")
    return text


def _checked(fault: Fault, item: str, flag: str = "--drop-events") -> Fault:
    try:
        registry.validate(fault)
    except FaultSpecError as exc:
        raise FaultSpecError(f"{flag} {item!r}: {exc}") from None
    return fault


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
