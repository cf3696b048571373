"""The real clients on a node farm: critest and kubelets on two of its sockets at once.

(Every crictl test runs on a farm node too: see the `crictl` fixture.) Slow: critest's
whole suite takes minutes, and a kubelet a minute.
"""
from __future__ import annotations

import concurrent.futures
import os

import pytest

from fakecri.server.config import FarmConfig, ServerConfig
from fakecri.server.process.farm import Farm
from interop.critest_report import API_LEVEL_FOCUS, run_critest
from interop.kubelet_run import Kubelet, static_pods_live_and_go
from interop.test_critest_api import EXPECTED_PASSING
from interop.test_critest_full import ALL_SPECS

pytestmark = pytest.mark.slow


def _farm(tmp_path, nodes: int = 2, **settings) -> Farm:
    config = ServerConfig(quiet=True, state_root=str(tmp_path / "root"), **settings)
    directory = os.path.join("/tmp", f"fc-fi-{os.getpid()}-{tmp_path.name[-12:]}")  # short: socket paths
    return Farm(config, FarmConfig(nodes=nodes, socket_dir=directory))


def _at_once(fn, *jobs):
    """fn(*job) for every job, in threads, all at once; their results in order."""
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        return [f.result() for f in [pool.submit(fn, *job) for job in jobs]]


def test_api_level_critest_passes_on_two_farm_nodes_at_once(critest_bin, tmp_path):
    with _farm(tmp_path, seed=11) as farm:
        runs = _at_once(lambda name: run_critest(critest_bin, farm.socket_of(name), tmp_path / f"{name}.json",
                                                 focus=API_LEVEL_FOCUS, timeout=600),
                        ("node-0",), ("node-1",))
    for run in runs:
        broken = {s.name: f"{s.state}: {s.message[:300]}" for s in run.specs if s.state not in ("passed", "skipped")}
        assert not broken, broken
        assert {s.name for s in run.by_state("passed")} == EXPECTED_PASSING


def test_the_whole_critest_suite_on_two_farm_nodes_at_once(critest_bin, tmp_path):
    # Loopback pod CIDRs, as test_critest_full has it, one /24 per node.
    with _farm(tmp_path, seed=13, pod_cidr="127.88.0.0/16") as farm:
        runs = _at_once(lambda name: run_critest(critest_bin, farm.socket_of(name), tmp_path / f"{name}.json",
                                                 timeout=40 * 60, spec_timeout="35m"),
                        ("node-0",), ("node-1",))
    for run in runs:
        assert len(run.specs) == ALL_SPECS
        assert not [s.name for s in run.specs if s.state not in ("passed", "failed", "skipped")], "a spec hung"
        assert EXPECTED_PASSING <= {s.name for s in run.by_state("passed")}
        # Two critests on one host listen on the same local ports for their port-forward specs
        # (12000 and up): the one that comes second cannot, a collision of the two clients'.
        # Every other spec passes on both nodes.
        others = {s.name: s.message[:300] for s in run.by_state("failed")
                  if not ("portforward" in s.name and "address already in use" in s.message)}
        assert not others, others
    counts = [run.counts() for run in runs]
    print(f"critest on node-0: {counts[0]}; on node-1: {counts[1]}")


def test_two_kubelets_on_two_farm_nodes_at_once(kubelet_standalone, tmp_path):
    """A kubelet with the generic PLEG on node-0 and one with the evented PLEG on node-1, each
    through the whole static-pod scenario of test_kubelet, side by side."""
    with _farm(tmp_path, seed=5) as farm:
        kubelets = [
            Kubelet(kubelet_standalone, farm.socket_of("node-0"), tmp_path / "k0", evented=False,
                    node="node-0", port=10350, healthz_port=10348),
            Kubelet(kubelet_standalone, farm.socket_of("node-1"), tmp_path / "k1", evented=True,
                    node="node-1", port=10352, healthz_port=10349),
        ]
        try:
            for kubelet in kubelets:
                kubelet.start()
            _at_once(static_pods_live_and_go, *[(k, k.socket) for k in kubelets])
        finally:
            for kubelet in kubelets:
                kubelet.stop()
