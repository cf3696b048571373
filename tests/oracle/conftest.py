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
    from fakecri.server.app import FakeCRIServer

    server = FakeCRIServer(seed=7)
    server.start()
    server.node.log_rpcs = False
    fakecri = FakecriSide("unix:" + server.config.socket)
    busybox = BusyboxSide(fakecri.etc_files(), CONTAINER_ENV, POD_NAME)
    yield Judge(busybox, fakecri)
    busybox.close()
    fakecri.close()
    server.stop()
