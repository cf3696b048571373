"""Corpus scripts where fakecri is known to differ from busybox, each with the reason. The corpus
test judges these apart and reports their count; it fails on a name that is not in the corpus.
Empty is the goal: an entry is a bug to fix, not a difference (those are in differences.py)."""
from __future__ import annotations

KNOWN_MISMATCHES: dict[str, str] = {}
