"""`restart`: restart the runtime, at once or at the Nth matching call."""
from __future__ import annotations

from fakecri.faults.ftype import RESTART as FAMILY
from fakecri.faults.ftype import Attr, CallDecision, Entry, FaultType, Fired
from fakecri.faults.kinds.common import positive
from fakecri.faults.model import RestartAction
from fakecri.faults.values import parse_bool, parse_duration


def _action(e: Entry) -> RestartAction:
    return RestartAction(downtime_s=e.params["downtime"], wipe=e.params["wipe"])


def _on_call(e: Entry, method: str, d: CallDecision) -> Fired | None:
    # No toxicity: it counts matching calls and fires at the `at`th, a single time.
    e.matched += 1
    if e.matched != (e.params["at"] or 1):
        return None
    if d.restart is None:
        d.restart = _action(e)
    return Fired(f"call {e.matched}", keep=False)


def _at_once(e: Entry) -> RestartAction | None:
    """No call to wait for (neither `at` nor a target): the restart is due now."""
    if e.params["at"] is None and e.fault.target in ("", "*"):
        return _action(e)
    return None


RESTART = FaultType(
    "restart", FAMILY, "Restart the runtime: at once, or at the Nth matching call.",
    {"downtime": Attr(parse_duration, "1s", doc="how long calls answer UNAVAILABLE"),
     "wipe": Attr(parse_bool, "false", doc="forget sandboxes and containers"),
     "at": Attr(positive, None, doc="restart at this matching call (1 = the next one)")},
    on_call=_on_call, at_once=_at_once,
)
