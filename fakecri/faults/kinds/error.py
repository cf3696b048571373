"""`error`: answer matching calls with a gRPC error (`--error METHOD[/STAGE]=CODE[@PCT][#N][:MESSAGE]`)."""
from __future__ import annotations

from fakecri.faults import grammar
from fakecri.faults.ftype import CALL, FIRED, Attr, CallDecision, Entry, FaultFlag, FaultType, Fired
from fakecri.faults.kinds.common import error_code, text
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.values import parse_code

_FLAG = "--error"


def parse_error(value: str) -> list[Fault]:
    """'RunPodSandbox=UNAVAILABLE@10%#5:try again' -> error faults."""
    faults = []
    for item in grammar.items(value, _FLAG, messages=True):
        target, stage, rest = grammar.target_stage(item, default_all=False, flag=_FLAG)
        code, tox, count, message = grammar.modifiers(rest, item, _FLAG)
        try:
            attrs = {"code": parse_code(code)}
        except FaultSpecError as exc:
            raise FaultSpecError(f"{_FLAG} {item!r}: {exc}") from None
        if message is not None:
            attrs["message"] = message
        fault = Fault(type=ERROR.name, target=target, stage=stage, toxicity=tox, count=count, attributes=attrs)
        faults.append(grammar.checked(ERROR, fault, item))
    return faults


def _on_call(e: Entry, method: str, d: CallDecision) -> Fired | None:
    if not e.applies(e.rng):
        return None
    if d.error is None:  # the first error by fault name wins
        code = e.params["code"]
        d.error = (code, e.params["message"] or f"fakecri fault {e.fault.name} injected {code} into {method}")
    return FIRED


ERROR = FaultType(
    "error", CALL, "Answer matching calls with a gRPC error.",
    {"code": Attr(error_code, "UNAVAILABLE", doc="gRPC code name"),
     "message": Attr(text, "", doc="status message; a default names the fault")},
    flag=FaultFlag(_FLAG, "Fail calls: METHOD[/after]=CODE[@PCT][#N][:MESSAGE], e.g. 'RunPodSandbox=UNAVAILABLE@10%'; "
                          "/after runs the call and loses the reply; comma-separate or repeat.",
                   "--error 'RunPodSandbox=UNAVAILABLE@10%'  fail 10% of calls with that code",
                   parse_error, multiple=True),
    on_call=_on_call,
)
