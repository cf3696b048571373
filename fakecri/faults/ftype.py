"""What one fault type is: its descriptor (name, family, help, attributes, the serve flag that
writes it) and the hooks through which it acts. Each type declares one FaultType in a module
of its own under fakecri.faults.kinds; fakecri.faults.registry collects them.

A fault's type name is at once its faults-file `type:` value, the control API's
`Fault.type` and the prefix of its default name (`error_1`).
"""
from __future__ import annotations

import dataclasses
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fakecri.faults.methods import check_method_glob
from fakecri.faults.model import Fault, FaultSpecError, RestartAction

# A type's family: what it acts on. The plan keeps one list per family.
CALL, EVENT, PULL, QUIRK, CONDITION, RESTART = "call", "event", "pull", "quirk", "condition", "restart"
RECIPE = "recipe"  # not kept: a plan expands it into the recipe's own faults

STAGES = ("before", "after")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")


@dataclass(frozen=True)
class Attr:
    """One attribute: how to parse it, its default text (None: required or absent)."""

    parse: Callable[[str], Any]
    default: str | None = None
    required: bool = False
    doc: str = ""


@dataclass(frozen=True)
class FaultFlag:
    """A `fakecri serve` flag that adds faults."""

    flag: str  # "--latency"
    help: str  # one line for --help
    example: str  # what the help's epilog shows, with its meaning
    parse: Callable[[Any], list[Fault]]  # one value -> the faults it asks for
    multiple: bool = False  # may be given more than once
    is_file: bool = False  # its value names a file
    in_strings: bool = True  # may be written as a flag string (a marker, FakeCRI.add_fault)
    comma_list: bool = False  # one value names several, comma-separated; a config file may give a list

    @property
    def key(self) -> str:
        """The option's name in a config file and, upper-cased, after FAKECRI_."""
        return self.flag.removeprefix("--").replace("-", "_")


@dataclass(frozen=True, slots=True)
class Fired:
    """A fault acted: `detail` is added to what the fault log says it hit; `keep=False`
    removes the fault (a restart fires a single time)."""

    detail: str = ""
    keep: bool = True


FIRED = Fired()


@dataclass
class CallDecision:
    """What the call faults that fired so far do to one RPC (see CallAction)."""

    delay_s: float = 0.0
    hang: bool = False
    error: tuple[str, str] | None = None
    restart: RestartAction | None = None


@dataclass
class EventDecision:
    """What the event faults that fired do to one event: send `copies` of it `delay_s` late,
    or hold it back until `hold` more events have arrived."""

    copies: int = 1
    delay_s: float = 0.0
    hold: int | None = None


@dataclass
class PullDecision:
    error: tuple[str, str] | None = None
    delay_s: float = 0.0


@dataclass(eq=False)
class Entry:
    """A fault in force, with what the plan needs to decide for it."""

    fault: Fault
    params: dict[str, Any]
    ftype: FaultType
    rng: random.Random
    serial: int
    matcher: re.Pattern[str] | None
    added_ns: int
    matched: int = 0
    reported: bool = False

    @property
    def kind(self) -> str:
        """The family of its type (ftype.CALL, EVENT, ...)."""
        return self.ftype.kind

    def matches(self, text: str) -> bool:
        return self.matcher is None or self.matcher.match(text) is not None

    def applies(self, rng: random.Random) -> bool:
        """One toxicity draw (none at all when toxicity is 1)."""
        tox = self.fault.toxicity
        return tox >= 1.0 or rng.random() < tox


def jittered(rng: random.Random, delay: float, jitter: float) -> float:
    """`delay` moved by a uniform draw in [-jitter, +jitter], never below zero."""
    if jitter <= 0:
        return delay
    return max(0.0, delay + rng.uniform(-jitter, jitter))


# The hooks. Each gets the fault in force (its parsed attributes in entry.params).
# on_call(entry, method, decision): draw, add to the decision; Fired, or None if it did not act.
CallHook = Callable[[Entry, str, CallDecision], Fired | None]
# on_event(entry, rng, decision): the toxicity draw already said yes; True if it acted.
EventHook = Callable[[Entry, random.Random, EventDecision], bool]
# cut(entry, delivered): (code, message) to end the stream with now, else None.
CutHook = Callable[[Entry, int], tuple[str, str] | None]
# replay(entry, history): the old events a new subscriber is sent first.
ReplayHook = Callable[[Entry, Sequence[object]], list[object]]
# on_pull(entry, reference, decision): the toxicity draw already said yes.
PullHook = Callable[[Entry, str, PullDecision], None]
# at_once(entry): a restart due the moment the fault is added (it is not kept), else None.
AtOnceHook = Callable[[Entry], RestartAction | None]
# expand(fault): the faults one fault stands for (a recipe).
ExpandHook = Callable[[Fault], list[Fault]]


@dataclass(frozen=True)
class FaultType:
    """One fault type, declared once with everything the rest of fakecri derives from it."""

    name: str
    kind: str  # its family: CALL, EVENT, ...
    doc: str  # one line of help
    attributes: dict[str, Attr] = field(default_factory=dict)
    flag: FaultFlag | None = None  # the serve flag that writes faults of this type, if any
    on_call: CallHook | None = None
    on_event: EventHook | None = None
    vetoes: bool = False  # once it acts on an event, no other event fault does (a dropped event)
    holds: bool = False  # it holds events back: they go out when it is removed
    cut: CutHook | None = None
    replay: ReplayHook | None = None
    on_pull: PullHook | None = None
    at_once: AtOnceHook | None = None
    expand: ExpandHook | None = None

    def __post_init__(self) -> None:
        # A type whose family the plan asks a hook of must have it: no type that silently does nothing.
        needs = {CALL: self.on_call, RESTART: self.on_call, PULL: self.on_pull, RECIPE: self.expand,
                 EVENT: self.on_event or self.cut or self.replay}
        if self.kind in needs and needs[self.kind] is None:
            raise TypeError(f"fault type {self.name}: a {self.kind} fault needs the hook that makes it act")


def validate_as(ftype: FaultType, fault: Fault) -> tuple[Fault, dict[str, Any]]:
    """Check `fault` as a fault of `ftype`; return a normalised copy and its parsed attributes.

    Normalising: stage '' -> 'before'; toxicity 0 -> 1 (as in the proto); attribute
    defaults filled in. Raises FaultSpecError naming the fault and the problem.
    """
    label = f"fault {fault.name!r}" if fault.name else "fault"
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
