"""Corpus scripts where fakecri is known to differ from busybox, each with the reason. The corpus
test judges these apart and the run's summary counts them; a name here that is not a corpus script
fails, and one that matches again is named in a warning (take it off the list).
Empty is the goal: an entry is a bug to fix, not a difference (those are in differences.py).
Owners: `shell` fakecri/sim/shell, `applets` fakecri/sim/applets and the userland's commands."""
from __future__ import annotations

KNOWN_MISMATCHES: dict[str, str] = {}
