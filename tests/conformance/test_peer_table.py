"""The peer table of docs/conformance-results.md, held by the runtimes themselves: every
runtime this machine offers is judged by a default run and its verdicts compared with
its column, property by property.

Which runtimes: fakecri (always, in-process), and each CRI endpoint named by
FAKECRI_CONTAINERD_ENDPOINT, FAKECRI_CONTAINERD2_ENDPOINT, FAKECRI_CRIO_ENDPOINT or
FAKECRI_PEER_ENDPOINTS (comma-separated), a containerd the rig starts
(FAKECRI_CONTAINERD_RIG), and cri-client-fake on PATH. Each endpoint's column is chosen
by the name and version its Version call reports. A column whose runtime is not found
skips, saying so. A cell holds the verdicts the runtime may get (`PASS or FAIL` for a
race); `n/r` (not run) asserts nothing.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conformance.test_real_runtimes import containerd, go_fake  # noqa: F401  (the fixtures that start them)

from fakecri.client import CRIClient
from fakecri.conformance import Options, run_suite
from fakecri.server.process.app import FakeCRIServer

DOC = Path(__file__).resolve().parents[2] / "docs" / "conformance-results.md"
VERDICTS = {"PASS": "pass", "FAIL": "fail", "SKIP": "skip"}


def peer_table(text: str | None = None) -> dict[str, dict[str, set[str]]]:
    """Column name -> property -> the verdicts its cell allows (empty: not asserted)."""
    text = DOC.read_text() if text is None else text
    lines = text.split("## Side by side", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| property | level |"))
    columns = [c.strip() for c in lines[start].strip("|").split("|")][2:]
    table: dict[str, dict[str, set[str]]] = {c: {} for c in columns}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        name = cells[0].strip("`")
        for column, cell in zip(columns, cells[2:], strict=True):
            table[column][name] = {VERDICTS[w] for w in re.findall(r"\b(PASS|FAIL|SKIP)\b", cell)}
    return table


def column_of(version: str, name: str) -> str | None:
    """The table's column for a runtime that reports `name` `version`."""
    name, version = name.lower(), version.lstrip("v")
    if name == "containerd":
        for prefix, column in (("1.6.", "containerd 1.6"), ("2.0.", "containerd 2.0.x"), ("2.3.", "containerd 2.3.x")):
            if version.startswith(prefix):
                return column
    if name in ("cri-o", "crio") and version.startswith("1.36."):
        return "CRI-O 1.36"
    return None


def endpoints() -> list[str]:
    found = [os.environ[v] for v in ("FAKECRI_CONTAINERD_ENDPOINT", "FAKECRI_CONTAINERD2_ENDPOINT",
                                     "FAKECRI_CRIO_ENDPOINT") if os.environ.get(v)]
    found += [e.strip() for e in os.environ.get("FAKECRI_PEER_ENDPOINTS", "").split(",") if e.strip()]
    return found


def find_peer(column: str) -> str | None:
    for endpoint in endpoints():
        try:
            with CRIClient(endpoint, timeout=5) as cri:
                v = cri.version()
        except Exception:  # an endpoint that does not answer is not this column's runtime
            continue
        if column_of(v.runtime_version, v.runtime_name) == column:
            return endpoint
    return None


def assert_column(result, column: str) -> None:
    want = peer_table()[column]
    wrong = {r.name: (r.status, sorted(want[r.name]), r.reason) for r in result.results
             if want.get(r.name) and r.status not in want[r.name]}
    assert not wrong, f"{column}: verdicts differ from docs/conformance-results.md: {wrong}\n{result.table()}"


def test_the_table_is_whole():
    table = peer_table()
    assert set(table) == {"containerd 1.6", "containerd 2.0.x", "containerd 2.3.x", "CRI-O 1.36", "Go fake", "fakecri"}
    from fakecri.conformance.properties import NAMES

    for column, cells in table.items():
        assert set(cells) == set(NAMES), column
    for measured in ("fakecri", "containerd 1.6", "containerd 2.0.x", "containerd 2.3.x"):
        assert all(table[measured].values()), measured  # measured this session: every cell says


@pytest.mark.slow
def test_fakecri_column():
    with FakeCRIServer(seed=7) as server:
        server.node.log_rpcs = False
        result = run_suite(Options(endpoint=server.endpoint))
    assert_column(result, "fakecri")


@pytest.mark.slow
@pytest.mark.parametrize("column", ["containerd 1.6", "containerd 2.0.x", "containerd 2.3.x", "CRI-O 1.36"])
def test_peer_column(column, request):
    endpoint = find_peer(column)
    if endpoint is None and column == "containerd 1.6" and os.environ.get("FAKECRI_CONTAINERD_RIG"):
        endpoint = request.getfixturevalue("containerd")
    if endpoint is None:
        pytest.skip(f"no {column} here: name its endpoint in FAKECRI_PEER_ENDPOINTS (or a rig variable)")
    result = run_suite(Options(endpoint=endpoint))
    assert_column(result, column)
    assert result.seconds < 150, f"{result.seconds:.0f}s"


@pytest.mark.slow
def test_go_fake_column(go_fake):  # noqa: F811  (the fixture imported above)
    assert_column(run_suite(Options(endpoint=go_fake)), "Go fake")
