"""`stale_replay`: replay old events to a new subscriber before live ones."""
from __future__ import annotations

from collections.abc import Sequence

from fakecri.faults.ftype import EVENT, Attr, Entry, FaultType
from fakecri.faults.kinds.common import non_negative


def _replay(e: Entry, history: Sequence[object]) -> list[object]:
    n = e.params["events"]
    return list(history)[-n:] if n else list(history)


STALE_REPLAY = FaultType(
    "stale_replay", EVENT, "Replay old events to a new subscriber before live ones.",
    {"events": Attr(non_negative, "0", doc="how many of the latest old events; 0 = all kept")},
    replay=_replay,
)
