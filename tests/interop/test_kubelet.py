"""A real kubelet 1.36 runs static pods on fakecri, with the EventedPLEG gate off and on.

Slow (about a minute per case) and serialised machine-wide: the kubelet's ports are fixed.
The third case pins what a kubelet with EventedPLEG does when a runtime lists a sandbox's
container statuses oldest first (the `oldest-first-container-statuses` quirk): it takes
attempt 0 for the latest, asks for attempt 1 again and again, and gets AlreadyExists.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from fakecri.faults.spec import parse_quirks
from fakecri.server.process.app import FakeCRIServer
from interop.kubelet_run import (
    ALREADY_EXISTS,
    Kubelet,
    restarts,
    start_static_pods,
    static_pods_live_and_go,
    wait_for,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def short_dir():
    """A directory of its own with a short path under /tmp. The kubelet binds unix sockets
    under its work directory (pod-resources/kubelet.sock among them), and a socket path is
    limited to 108 bytes: under pytest's tmp_path, named after this test and its long
    parameter ids, the bind fails with `invalid argument`."""
    directory = Path(tempfile.mkdtemp(dir="/tmp", prefix="kb"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.parametrize("evented, quirks", [
    pytest.param(False, [], id="generic-pleg"),
    pytest.param(True, [], id="evented-pleg"),
    pytest.param(True, ["oldest-first-container-statuses"], id="evented-pleg-oldest-first-quirk"),
])
def test_kubelet_runs_static_pods(kubelet_standalone, short_dir, evented, quirks):
    faults = parse_quirks(",".join(quirks)) if quirks else []
    with FakeCRIServer(seed=5, state_root=str(short_dir / "root"), faults=faults) as server:
        with Kubelet(kubelet_standalone, server.config.socket, short_dir / "kubelet", evented=evented) as kubelet:
            if quirks:  # the storm the kubelet falls into on an oldest-first list
                start_static_pods(kubelet)
                wait_for("no AlreadyExists", lambda: kubelet.log().count(ALREADY_EXISTS) >= 3, 90, kubelet)
                assert restarts(kubelet.pods()["crash"], "c") <= 1
                return
            static_pods_live_and_go(kubelet, server.config.socket)
