"""Relist cost against fakecri at 110 and 1,000 pods (slow; run with --run-slow -s)."""
import statistics
import time

import pytest
from helpers.live import Pods, fakecri

from fakecri.client import CRIClient
from fakecri.client.pleg import GenericPLEG


def timed(fn):
    t0 = time.perf_counter()
    assert fn()
    return time.perf_counter() - t0


@pytest.mark.slow
@pytest.mark.parametrize("n_pods", [110, 1000])
def test_relist_cost(n_pods, capsys):
    with fakecri() as server, CRIClient(server.endpoint, timeout=60) as client:
        pods = Pods(client)
        first_containers = []
        for i in range(n_pods):
            sid = pods.run(f"u{i}")
            first_containers.append(pods.container(sid, "a"))
            pods.container(sid, "b")
        report = {}
        for streaming in (False, True):
            pleg = GenericPLEG(client, streaming=streaming, channel_capacity=100_000)
            report[f"first relist, inspects every pod (streaming={streaming})"] = timed(pleg.relist)
            report[f"steady relist, nothing changed (streaming={streaming})"] = statistics.median(
                timed(pleg.relist) for _ in range(10))
        pleg = GenericPLEG(client, channel_capacity=100_000)
        pleg.relist()
        for cid in first_containers:
            client.stop_container(cid, timeout=0)
        report["relist after one exit in every pod"] = timed(pleg.relist)
        assert len(pleg.events.drain()) >= 3 * n_pods + n_pods
    with capsys.disabled():
        print(f"\n{n_pods} pods x (1 sandbox + 2 containers):")
        for what, seconds in report.items():
            print(f"  {what}: {seconds * 1e3:.1f} ms")
    assert report["steady relist, nothing changed (streaming=False)"] < 1.0  # well inside the 1 s period
