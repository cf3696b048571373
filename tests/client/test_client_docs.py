"""docs/client.md says what each PLEG counts and when, in agreement with the code."""
from __future__ import annotations

import re
from pathlib import Path

from helpers.memory_runtime import MemoryRuntime

from fakecri.client.pleg import GenericPLEG, evented_legacy

DOC = (Path(__file__).resolve().parents[2] / "docs" / "client.md").read_text()


def kubelet_range(text: str) -> tuple[str, str]:
    m = re.search(r"kubelets? (1\.\d+)\s*(?:-|–|to)\s*(1\.\d+)", text)
    assert m, "no kubelet version range"
    return m.group(1), m.group(2)


def test_the_legacy_pleg_kubelet_range_is_the_same_in_the_docs_and_the_code():
    assert kubelet_range(DOC) == kubelet_range(evented_legacy.__doc__) == ("1.26", "1.36")


def test_the_docs_give_the_legacy_relist_period_and_say_which_plegs_count_missed_events():
    assert f"every {evented_legacy.RELIST_PERIOD:g} s" in DOC
    assert "each counts missed events" not in DOC.lower()
    row = next(line for line in DOC.splitlines() if line.startswith("| `GenericPLEG` |"))
    assert "never" in row


def test_generic_pleg_indeed_counts_no_missed_events():
    rt = MemoryRuntime()
    pleg = GenericPLEG(rt)
    pleg.relist()
    rt.add_pod("u1", "s1")
    pleg.relist()  # a new sandbox, announced by no event
    assert [e.type.value for e in pleg.events.drain()] == ["ContainerStarted"]
    assert pleg.metrics.missed_events == 0
