"""`cut_stream`: end a subscriber's stream after N events (whether it applies is drawn once per stream)."""
from __future__ import annotations

from fakecri.faults.ftype import EVENT, Attr, Entry, FaultType
from fakecri.faults.kinds.common import non_negative, text
from fakecri.faults.values import parse_code


def _cut(e: Entry, delivered: int) -> tuple[str, str] | None:
    if delivered < e.params["after"]:
        return None
    message = e.params["message"] or f"fakecri fault {e.fault.name} ended the event stream after {delivered} events"
    return e.params["code"], message


CUT_STREAM = FaultType(
    "cut_stream", EVENT, "End a subscriber's stream after N events.",
    {"after": Attr(non_negative, "0", doc="events delivered before the cut"),
     "code": Attr(parse_code, "UNAVAILABLE", doc="status the stream ends with (OK allowed)"),
     "message": Attr(text, "", doc="status message")},
    cut=_cut,
)
