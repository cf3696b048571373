"""`shared-event-channel`: every GetContainerEvents stream reads from one shared buffer, so
each event reaches one subscriber only, and events wait, while nobody listens, for the
next subscriber (the bus carries it out; this says when)."""
from __future__ import annotations

from fakecri.faults.quirk_kinds.common import Quirks, QuirkSpec

SPEC = QuirkSpec(
    "shared-event-channel",
    "Every GetContainerEvents stream reads from one shared buffer (--subscriber-buffer events): "
    "each event reaches one subscriber only, in turn, and events are dropped while the buffer "
    "is full (containerd 1.7 before #9661).",
    "containerd 1.7 before #9661",
    ("containerd/containerd#7073", "containerd/containerd#7318", "containerd/containerd#8892",
     "containerd/containerd#8916", "containerd/containerd#9661"))


def shared(quirks: Quirks) -> bool:
    """True when the events go into the one shared buffer."""
    return SPEC.name in quirks
