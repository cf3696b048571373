"""The whole critest suite against fakecri (slow), with its table.

Writes the pass/fail/skip table to $FAKECRI_CRITEST_TABLE (default: critest-table.md in
the test's temporary directory) and prints where; docs/interop.md carries the latest one.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from fakecri.server.process.app import FakeCRIServer
from interop.critest_report import run_critest
from interop.test_critest_api import EXPECTED_PASSING

pytestmark = pytest.mark.slow

ALL_SPECS = 122  # critest 1.36: `critest -ginkgo.dry-run -ginkgo.v`


def test_full_critest_run_produces_its_table(critest_bin, tmp_path):
    # Pod IPs on loopback, so that the specs which fetch http://POD_IP:PORT from the host reach
    # the pod's web server (binding its port 80 there needs root).
    with FakeCRIServer(seed=13, state_root=str(tmp_path / "root"), pod_cidr="127.88.0.0/16") as server:
        run = run_critest(critest_bin, server.config.socket, tmp_path / "critest.json",
                          timeout=40 * 60, spec_timeout="35m")
    counts = run.counts()
    table = (f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped "
             f"of {len(run.specs)}\n\n{run.table()}\n")
    out = Path(os.environ.get("FAKECRI_CRITEST_TABLE") or tmp_path / "critest-table.md")
    out.write_text(table)
    print(f"critest table: {out}")
    assert len(run.specs) == ALL_SPECS
    assert not [s.name for s in run.specs if s.state not in ("passed", "failed", "skipped")], "a spec hung"
    assert EXPECTED_PASSING <= {s.name for s in run.by_state("passed")}
    assert all(s.message for s in run.by_state("failed")), "every failure says why"
    # Every spec this host can run passes (the skips are critest's own: AppArmor, benchmarks).
    assert not run.by_state("failed"), {s.name: s.message[:300] for s in run.by_state("failed")}
