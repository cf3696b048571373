"""`stopped-before-started`: a container that exits at once has its STOPPED event sent
before its STARTED (CRI-O #9738): each container STARTED is held back until the next event
goes out, and a STOPPED of the same container overtakes it."""
from __future__ import annotations

from fakecri.engine.records import Event, EventType
from fakecri.faults.quirk_kinds.common import Quirks, QuirkSpec

SPEC = QuirkSpec(
    "stopped-before-started",
    "A container that exits at once has its STOPPED event sent before STARTED (CRI-O #9738).",
    "CRI-O before #9822",
    ("cri-o/cri-o#9738", "cri-o/cri-o#9822"))


class HeldStart:
    """The STARTED event held back, as (container id, its encoded bytes)."""

    def __init__(self) -> None:
        self._held: tuple[str, bytes] | None = None

    def take(self, ev: Event, data: bytes, quirks: Quirks) -> list[bytes] | None:
        """Offer the encoded `ev`: None when the quirk leaves it alone (send what `release`
        gives, then `data`), else the bytes to send now in their place, in order."""
        if SPEC.name not in quirks or ev.is_sandbox:
            return None
        held = self._held
        if ev.type == EventType.STARTED:
            out = self.release()
            self._held = (ev.container_id, data)
            return out
        if held is not None and held[0] == ev.container_id and ev.type == EventType.STOPPED:
            self._held = None  # the exit of an instant container overtakes its start
            return [data, held[1]]
        return None

    def release(self) -> list[bytes]:
        """The held STARTED, given up (empty when none is held)."""
        if self._held is None:
            return []
        held, self._held = self._held, None
        return [held[1]]
