"""`latency`: delay matching calls (`--latency [METHOD[/STAGE]=]DELAY[±JITTER][@PCT][#N]`)."""
from __future__ import annotations

from fakecri.faults import grammar
from fakecri.faults.ftype import CALL, FIRED, CallDecision, Entry, FaultFlag, FaultType, Fired, jittered
from fakecri.faults.kinds.common import DELAY, JITTER
from fakecri.faults.model import Fault, FaultSpecError

_FLAG = "--latency"


def parse_latency(value: str) -> list[Fault]:
    """'ListContainers=200ms±50ms,*Sandbox*/after=1s@50%#3' -> latency faults."""
    faults = []
    for item in grammar.items(value, _FLAG):
        target, stage, rest = grammar.target_stage(item, default_all=True, flag=_FLAG)
        rest, tox, count, message = grammar.modifiers(rest, item, _FLAG)
        if message is not None:
            raise FaultSpecError(f"{_FLAG} {item!r}: a latency takes no ':message'")
        parts = grammar.JITTER_SPLIT.split(rest)
        if len(parts) > 2:
            raise FaultSpecError(f"{_FLAG} {item!r}: expected DELAY or DELAY±JITTER, like 200ms±50ms")
        attrs = {"delay": grammar.duration(parts[0], item, _FLAG)}
        if len(parts) == 2:
            attrs["jitter"] = grammar.duration(parts[1], item, _FLAG)
        fault = Fault(type=LATENCY.name, target=target, stage=stage, toxicity=tox, count=count, attributes=attrs)
        faults.append(grammar.checked(LATENCY, fault, item))
    return faults


def _on_call(e: Entry, method: str, d: CallDecision) -> Fired | None:
    if not e.applies(e.rng):
        return None
    d.delay_s += jittered(e.rng, e.params["delay"], e.params["jitter"])  # several latencies add up
    return FIRED


LATENCY = FaultType(
    "latency", CALL, "Delay matching calls by delay plus or minus jitter.",
    {"delay": DELAY, "jitter": JITTER},
    flag=FaultFlag(_FLAG, "Delay calls: METHOD[/after]=DELAY[±JITTER][@PCT][#N], e.g. 'ListContainers=200ms±50ms'; "
                          "METHOD may be a glob; comma-separate or repeat.",
                   "--latency 'ListContainers=200ms±50ms'    fixed latency plus jitter (also +-; globs)",
                   parse_latency, multiple=True),
    on_call=_on_call,
)
