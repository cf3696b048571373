"""Fixtures of the differential tests: one fakecri server and one busybox container for the
session (per xdist worker), the oracle's root built from that container's /etc, and the judge."""
from __future__ import annotations

import pytest

from .busybox_side import BusyboxSide, available
from .compare import Judge
from .fakecri_side import CONTAINER_ENV, POD_NAME, FakecriSide

MISSING = "the oracle /usr/bin/busybox is missing (apt-get install busybox-static; .ci/run installs it)"


@pytest.fixture(scope="session")
def judge():
    if not available():
        pytest.skip(MISSING)
    from fakecri.server.process.app import FakeCRIServer

    server = FakeCRIServer(seed=7)
    server.start()
    server.node.log_rpcs = False
    fakecri = FakecriSide("unix:" + server.config.socket)
    busybox = BusyboxSide(fakecri.etc_files(), CONTAINER_ENV, POD_NAME)
    yield Judge(busybox, fakecri)
    busybox.close()
    fakecri.close()
    server.stop()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say how many corpus scripts are judged apart as known mismatches (known_mismatches.py)."""
    from .corpus import load
    from .known_mismatches import KNOWN_MISMATCHES

    if config.getoption("collectonly", False):
        return
    ran = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])
           if "tests/oracle/test_corpus.py" in getattr(r, "nodeid", "")]
    if ran:
        terminalreporter.write_line(
            f"oracle: {len(KNOWN_MISMATCHES)} known mismatches of {len(load())} corpus scripts "
            "(tests/oracle/known_mismatches.py)")
