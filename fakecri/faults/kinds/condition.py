"""`condition`: force a runtime condition (RuntimeReady, NetworkReady) for a while; the
control API's SetCondition writes one."""
from __future__ import annotations

from fakecri.engine.clock import NS_PER_S
from fakecri.faults.ftype import CONDITION as FAMILY
from fakecri.faults.ftype import Attr, Entry, FaultType
from fakecri.faults.kinds.common import choice, text
from fakecri.faults.model import ConditionOverride, Fault
from fakecri.faults.values import parse_bool, parse_duration

CONDITIONS = ("RuntimeReady", "NetworkReady")


def condition_fault(condition: str, status: bool, *, reason: str = "", message: str = "",
                    duration_s: float = 0.0) -> Fault:
    """The fault that forces `condition` to `status` (for `duration_s` seconds; 0: until removed)."""
    attrs = {"condition": condition, "status": "true" if status else "false", "reason": reason, "message": message}
    if duration_s > 0:
        attrs["duration"] = f"{duration_s}s"
    return Fault(type=CONDITION.name, attributes=attrs)


def forces(fault: Fault, condition: str) -> bool:
    """True when `fault` is a condition fault forcing `condition`."""
    return fault.type == CONDITION.name and fault.attributes.get("condition") == condition


def until_ns(e: Entry) -> int | None:
    """When the forced condition ends; None when it lasts until the fault is removed."""
    duration = e.params["duration"]
    if not duration:
        return None
    return e.added_ns + int(duration * NS_PER_S)


def override(e: Entry) -> tuple[str, ConditionOverride, str]:
    """(the condition, what it is forced to, what the fault log says it hit)."""
    p = e.params
    forced = ConditionOverride(status=p["status"], reason=p["reason"], message=p["message"], until_ns=until_ns(e))
    return p["condition"], forced, f"{p['condition']}={'true' if p['status'] else 'false'}"


CONDITION = FaultType(
    "condition", FAMILY, "Force a runtime condition for a while.",
    {"condition": Attr(choice(CONDITIONS), required=True, doc="RuntimeReady or NetworkReady"),
     "status": Attr(parse_bool, "false", doc="the forced status"),
     "reason": Attr(text, "FakecriInjected", doc="condition reason"),
     "message": Attr(text, "", doc="condition message"),
     "duration": Attr(parse_duration, "0", doc="how long; 0 = until the fault is removed")},
)
