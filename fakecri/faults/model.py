"""The data a fault is made of, and the small records a FaultPlan hands back."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from fakecri.faults.values import FaultSpecError, parse_count, parse_percent

__all__ = ["FAULT_KEYS", "Fault", "FaultSpecError"]  # FaultSpecError is re-exported: callers import it from here

FAULT_KEYS = ("name", "type", "target", "stage", "toxicity", "count", "attributes", "hits")


@dataclass
class Fault:
    """One fault, toxiproxy style. Keys match the control proto's Fault message."""

    name: str = ""
    type: str = ""
    # Glob over CRI method names (or image references for pull faults); empty means all.
    target: str = ""
    # "before": the handler does not run. "after": it runs, then the reply is replaced.
    stage: str = "before"
    # Chance in [0, 1] that the fault applies to one call or one event; 0 is read as 1.
    toxicity: float = 1.0
    # Hits left before the fault removes itself; 0 means no limit.
    count: int = 0
    attributes: dict[str, str] = field(default_factory=dict)
    # How many times it fired (read only).
    hits: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Fault:
        """Build a Fault from a dict with the proto's keys; missing keys take their defaults."""

        if not isinstance(d, dict):
            raise FaultSpecError(f"a fault must be a mapping with keys {', '.join(FAULT_KEYS)}; got {d!r}")
        unknown = sorted(set(d) - set(FAULT_KEYS))
        if unknown:
            raise FaultSpecError(
                f"unknown fault key(s) {', '.join(unknown)}; expected some of {', '.join(FAULT_KEYS)}"
            )
        attrs = d.get("attributes") or {}
        if not isinstance(attrs, dict):
            raise FaultSpecError(f"attributes must be a mapping of strings; got {attrs!r}")
        for key in ("name", "type", "target", "stage"):
            value = d.get(key)
            if value is not None and not isinstance(value, str):
                raise FaultSpecError(f"fault {key} must be a string; got {value!r}")
        toxicity = d.get("toxicity")
        return cls(
            name=d.get("name") or "",
            type=d.get("type") or "",
            target=d.get("target") or "",
            stage=d.get("stage") or "before",
            toxicity=1.0 if toxicity in (None, "") else parse_percent(str(toxicity)),
            count=parse_count(str(d.get("count") or 0), what="count"),
            attributes={str(k): _attr_text(v) for k, v in attrs.items()},
            hits=parse_count(str(d.get("hits") or 0), what="hits"),
        )


def _attr_text(value: Any) -> str:
    # YAML turns `wipe: true` into a bool and `after: 3` into an int; keep them as text.
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """One firing of a fault: its name, its type, what it hit, and when."""

    fault: str
    type: str
    hit: str
    at_ns: int


@dataclass(frozen=True, slots=True)
class RestartAction:
    """Restart the runtime: answer UNAVAILABLE for `downtime_s`, then keep or wipe state."""

    downtime_s: float
    wipe: bool


@dataclass(frozen=True, slots=True)
class CallAction:
    """What to do to one RPC at one stage.

    The server applies, in order: sleep `delay_s`; then the first that is set of
    `restart`, `hang` (no answer until the client's deadline) and `error` (code name, message).
    `faults` names every fault that fired.
    """

    delay_s: float = 0.0
    hang: bool = False
    error: tuple[str, str] | None = None
    restart: RestartAction | None = None
    faults: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PullAction:
    """What to do to one image pull: wait `delay_s`, then fail with `error` if set."""

    error: tuple[str, str] | None = None
    delay_s: float = 0.0


@dataclass(frozen=True, slots=True)
class ConditionOverride:
    """A forced runtime condition. `until_ns` is None when it lasts until the fault is removed."""

    status: bool
    reason: str
    message: str
    until_ns: int | None = None
