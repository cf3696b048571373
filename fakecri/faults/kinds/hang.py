"""`hang`: never answer matching calls; the client's deadline ends them."""
from __future__ import annotations

from fakecri.faults.ftype import CALL, FIRED, CallDecision, Entry, FaultType, Fired


def _on_call(e: Entry, method: str, d: CallDecision) -> Fired | None:
    if not e.applies(e.rng):
        return None
    d.hang = True
    return FIRED


HANG = FaultType("hang", CALL, "Never answer matching calls; the client's deadline ends them.", on_call=_on_call)
