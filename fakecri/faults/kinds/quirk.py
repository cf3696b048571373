"""`quirk`: switch on a behaviour of a real runtime (`--quirks NAME,...`). The quirks themselves,
with their upstream references, are the members of fakecri.faults.quirks.Quirk; each is one
module of fakecri.faults.quirk_kinds, with its behaviour, which the server calls where it acts."""
from __future__ import annotations

from fakecri.faults import grammar
from fakecri.faults.ftype import QUIRK as FAMILY
from fakecri.faults.ftype import Attr, FaultFlag, FaultType
from fakecri.faults.kinds.common import choice
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.quirks import QUIRK_NAMES
from fakecri.faults.values import suggest

_FLAG = "--quirks"


def parse_quirks(text: str) -> list[Fault]:
    """'created-at-seconds,no-sandbox-deleted-event' -> quirk faults (duplicates once)."""
    names = grammar.names(text)
    for name in names:
        if name not in QUIRK_NAMES:
            raise FaultSpecError(
                f"{_FLAG}: unknown quirk {name!r}{suggest(name, QUIRK_NAMES)}; "
                f"expected some of {', '.join(QUIRK_NAMES)}"
            )
    return [quirk_fault(name) for name in names]


def quirk_fault(name: str) -> Fault:
    """The fault that switches on the quirk `name` (a Quirk member or its value)."""
    return Fault(type=QUIRK.name, attributes={"name": str(getattr(name, "value", name))})


QUIRK = FaultType(
    "quirk", FAMILY, "Switch on a behaviour seen in a real runtime.",
    {"name": Attr(choice(QUIRK_NAMES), required=True, doc="quirk name")},
    flag=FaultFlag(_FLAG, "Switch on real-runtime quirks, comma-separated: " + ", ".join(QUIRK_NAMES) + ".",
                   "--quirks NAME,...                        real runtimes' bugs, e.g. stopped-before-started",
                   parse_quirks, comma_list=True),
)
