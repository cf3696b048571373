"""Every corpus script gives in a fakecri container what it gives the real busybox: the same
stdout and exit code, and the same stderr unless the script is marked `!stderr`."""
from __future__ import annotations

import warnings

import pytest

from .corpus import load
from .known_mismatches import KNOWN_MISMATCHES

CASES = load()
JUDGED = [c for c in CASES if c.name not in KNOWN_MISMATCHES]
KNOWN = [c for c in CASES if c.name in KNOWN_MISMATCHES]


@pytest.mark.parametrize("case", JUDGED, ids=[c.name for c in JUDGED])
def test_script_does_what_busybox_does(judge, case):
    outcome = judge.judge(case)
    assert outcome.match, outcome.describe()


def test_known_mismatches_are_corpus_scripts_and_are_counted(judge):
    stale = sorted(set(KNOWN_MISMATCHES) - {c.name for c in CASES})
    assert not stale, f"known mismatches that are not corpus scripts: {stale}"
    now_match = [c.name for c in KNOWN if judge.judge(c).match]
    summary = f"{len(KNOWN)} known mismatches of {len(CASES)} corpus scripts"
    if now_match:
        summary += f"; these now match, take them off the list: {now_match}"
    warnings.warn(summary, stacklevel=1)
