"""relist-convergence under the legacy profile judges what a legacy relist can correct:
an object whose whole life fell between two relists, kept in the cache because its
DELETED never reached the PLEG, is left out and named, never failed."""
from __future__ import annotations

import pytest
from helpers.live import wait_for

from fakecri.conformance import Options
from fakecri.conformance import operations as op
from fakecri.conformance.machine import finish, start_example
from fakecri.conformance.run_state import RunState
from fakecri.conformance.runner import _verdict
from fakecri.control_client import ControlClient
from fakecri.server.process.app import FakeCRIServer

pytestmark = pytest.mark.usefixtures("quiet_logs")


def test_a_pod_no_legacy_relist_saw_whose_deleted_was_lost_is_left_out_and_named():
    server = FakeCRIServer(seed=11).start()
    run = RunState(Options(endpoint=server.endpoint, profile="legacy-evented", margin=1.0))
    try:
        run.client.pull_image("busybox")
        ex = start_example(run)
        relists = ex.pleg.metrics.relists
        ex.pleg.generic.set_period(3600)  # one relist now, then none while the pod lives
        assert wait_for(lambda: ex.pleg.metrics.relists > relists)
        pod = op.run_pod(ex)
        op.create(ex, pod, "a", "long", True)
        assert wait_for(lambda: ex.pleg.cache.get(pod.uid) is not None)  # written by events alone
        with ControlClient(server.endpoint) as ctl:
            ctl.add_fault({"name": "lose", "type": "drop_events", "toxicity": 1.0})
            op.remove_pod(ex, pod)  # its STOPPED and DELETED events are lost
            ctl.remove_fault("lose")
        finish(ex)
        # A failure that names one of the suite's own sync pods says what it is.
        assert "the suite's own pod" in ex.describe_uid(ex.sentinels[0].uid)
        verdict = _verdict(run, "relist-convergence", {}, {})
    finally:
        run.close()
        server.stop()
    assert verdict.status == "pass", verdict.reason
    assert "left out 2 objects no legacy relist saw" in verdict.reason
    assert "pod-1" in verdict.reason and "pod-1/a#0" in verdict.reason
    assert "sentinel" not in verdict.reason
