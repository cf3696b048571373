"""bench/farm_kubelets.py: what it reads from a kubelet (its /pods, /metrics and -v=2 log) is read
right, and, under --run-slow where a kubelet and kubelet-standalone.sh are found and we are root, one
kubelet on a one-node farm gets its pods up end to end (no timing is asserted)."""
from __future__ import annotations

import argparse
import math
import os
import shutil
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench")
sys.path.insert(0, BENCH)
try:
    import farm_kubelets as fk  # bench/farm_kubelets.py
finally:
    sys.path.remove(BENCH)

RELIST = """\
# HELP kubelet_pleg_relist_duration_seconds [ALPHA] Duration in seconds for relisting pods in PLEG.
# TYPE kubelet_pleg_relist_duration_seconds histogram
kubelet_pleg_relist_duration_seconds_bucket{le="0.005"} 15
kubelet_pleg_relist_duration_seconds_bucket{le="0.01"} 18
kubelet_pleg_relist_duration_seconds_bucket{le="0.025"} 19
kubelet_pleg_relist_duration_seconds_bucket{le="0.05"} 20
kubelet_pleg_relist_duration_seconds_bucket{le="0.1"} 20
kubelet_pleg_relist_duration_seconds_bucket{le="0.25"} 21
kubelet_pleg_relist_duration_seconds_bucket{le="+Inf"} 21
kubelet_pleg_relist_duration_seconds_sum 0.32
kubelet_pleg_relist_duration_seconds_count 21
kubelet_runtime_operations_errors_total{operation_type="container_status"} 2
kubelet_runtime_operations_errors_total{operation_type="stop_container"} 1
kubelet_evented_pleg_connection_success_count 1
"""


def test_metrics_are_parsed_and_quantiles_interpolate_as_prometheus_does():
    m = fk.parse_metrics(RELIST, fk.METRICS)
    buckets = m["kubelet_pleg_relist_duration_seconds"]["buckets"]
    assert buckets[0.005] == 15 and buckets[math.inf] == 21
    assert m["kubelet_pleg_relist_duration_seconds"]["count"] == 21
    assert m["kubelet_runtime_operations_errors_total"]["value"] == 3  # summed over labels
    assert m["kubelet_evented_pleg_connection_success_count"]["value"] == 1
    # rank 10.5 in the first bucket (0, 0.005]: 0.005 * 10.5 / 15
    assert fk.histogram_quantile(0.5, buckets) == pytest.approx(0.0035)
    # rank 20.79 in (0.1, 0.25], which holds 1 of 21: 0.1 + 0.15 * 0.79
    assert fk.histogram_quantile(0.99, buckets) == pytest.approx(0.2185)
    # a rank in the +Inf bucket gives the highest finite bound
    assert fk.histogram_quantile(0.99, {1.0: 1, math.inf: 2}) == 1.0
    assert math.isnan(fk.histogram_quantile(0.5, {math.inf: 0}))
    summed = fk.add_histograms(fk.add_histograms({}, buckets), buckets)
    assert fk.histogram_quantile(0.99, summed) == pytest.approx(0.2185)  # sum by (le) keeps the shape
    delta = fk.add_histograms(dict(summed), buckets, -1.0)
    assert delta == buckets


def test_exact_quantiles():
    assert fk.quantile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert fk.quantile([1.0, 2.0], 0.99) == pytest.approx(1.99)
    assert math.isnan(fk.quantile([], 0.5))
    assert fk.quantile([1.0, 2.0, math.inf], 0.5) == 2.0  # a pod that never started is infinitely late
    assert fk.quantile([1.0, 2.0, math.inf], 0.99) == math.inf


def _pleg(t: str, pod: str, kind: str, cid: str) -> str:
    return (f'I1126 {t}   15991 kubelet.go:2752] "SyncLoop (PLEG): event for pod" pod="default/{pod}" '
            f'event={{"ID":"532e93ec","Type":"{kind}","Data":"{cid}"}}\n')


def test_a_pod_is_started_when_its_sandbox_and_every_container_have_been_seen():
    lines = [
        'I1126 10:46:12.343465   15991 kubelet.go:2724] "SyncLoop ADD" source="file" pods=["default/two-n"]\n',
        _pleg("10:46:12.500000", "two-n", "ContainerStarted", "aa"),  # the sandbox
        _pleg("10:46:12.600000", "two-n", "ContainerStarted", "bb"),
        _pleg("10:46:12.600001", "two-n", "ContainerStarted", "bb"),  # evented PLEG repeats events
        _pleg("10:46:13.250000", "two-n", "ContainerStarted", "cc"),  # the second container: started
        _pleg("10:46:12.700000", "crash-n", "ContainerStarted", "dd"),
        # started and exited between two generic relists: only ContainerDied shows
        _pleg("10:46:13.700000", "crash-n", "ContainerDied", "ee"),
        _pleg("10:46:14.000000", "crash-n", "ContainerStarted", "ff"),  # a restart changes nothing
        _pleg("10:46:14.000000", "other-n", "ContainerStarted", "00"),  # not one of ours
        _pleg("10:46:12.000000", "slow-n", "ContainerStarted", "11"),  # never got its container
    ]
    started = fk.started_from_log(lines, {"default/two-n": 2, "default/crash-n": 1, "default/slow-n": 1}, 2026)
    assert set(started) == {"default/two-n", "default/crash-n"}
    assert started["default/two-n"] - started["default/crash-n"] == pytest.approx(-0.45)
    assert fk.klog_time("I1126 10:46:13.250000   1 x.go:1] y", 2026) == started["default/two-n"]


def _pod(name: str, phase: str, *states: dict) -> dict:
    return {"metadata": {"name": name + "-node-3"}, "status": {"phase": phase, "containerStatuses": list(states)}}


def test_pods_up_counts_a_crash_looping_pod_once_its_container_has_started():
    running = {"state": {"running": {"startedAt": "2026-11-26T10:46:13Z"}}}
    waiting = {"state": {"waiting": {"reason": "ContainerCreating"}}, "restartCount": 0}
    backoff = {"state": {"waiting": {"reason": "CrashLoopBackOff"}}, "restartCount": 1,
               "lastState": {"terminated": {"exitCode": 1}}}
    exited_once = {"state": {"terminated": {"exitCode": 1, "startedAt": "2026-11-26T10:46:13Z"}}}
    items = [_pod("a", "Running", running), _pod("b", "Running", running, waiting), _pod("c", "Pending", waiting),
             _pod("crash", "Running", backoff), _pod("crash2", "Running", exited_once),
             _pod("d", "Running", running)]
    want = {"a": 1, "b": 2, "c": 1, "crash": 1, "crash2": 1, "e": 1}
    assert fk.pods_up(items, "-node-3", want) == {"a", "crash", "crash2"}


def test_the_pod_mix():
    specs = fk.pod_specs(30)
    assert len(specs) == 30 and len({name for name, _, _ in specs}) == 30
    assert specs[0][0] == "crash" and '"exit 1"' in specs[0][2] and '"restartPolicy": "Always"' in specs[0][2]
    assert sum(c for _, c, _ in specs) == 33  # pods 5, 15, 25 have two containers
    assert sum("registry.k8s.io/pause" in m for _, _, m in specs) == 3 + 6  # sidecars + pause pods


def _kubelet_kit() -> tuple[str, str]:
    """(kubelet, kubelet-standalone.sh), or a skip that says where they were looked for."""
    kit = os.environ.get("FAKECRI_K8S_BIN")
    where = f"FAKECRI_K8S_BIN={kit} or PATH" if kit else "PATH (or set FAKECRI_K8S_BIN)"
    kubelet = os.path.join(kit, "kubelet") if kit and os.path.isfile(os.path.join(kit, "kubelet")) else \
        shutil.which("kubelet")
    if not kubelet:
        pytest.skip(f"no kubelet in {where}: bench/farm_kubelets.py runs real kubelets (docs/interop.md)")
    try:
        script = fk.find_standalone(None)
    except SystemExit:
        pytest.skip(f"kubelet-standalone.sh not found in {where} nor FAKECRI_KUBELET_STANDALONE")
    if os.geteuid() != 0:
        pytest.skip("a standalone kubelet needs root (it mounts a tmpfs on /var/lib/kubelet)")
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is needed to run a kubelet")
    return kubelet, script


@pytest.mark.slow
def test_one_kubelet_on_a_one_node_farm_gets_its_pods_up(tmp_path):
    _, script = _kubelet_kit()
    fk.ensure_inotify(1, raise_limit=False)
    args = argparse.Namespace(bound=60.0, steady=1.0, settle=0.5, poll=0.25, min_available_gb=0.5, keep=False)
    res = fk.run_one(1, "farm", False, 3, args, str(tmp_path), script, math.nan)
    assert res.fits, res.why
    assert res.pods_up == res.pods_up_after_steady == 3
    assert res.start_samples == 3 and res.start_p99_s > 0
    assert res.fakecri_rss_mb > 0 and res.kubelet_rss_mean_mb > 0
    assert fk.remove_log_links(str(tmp_path)) == 0  # run_one removed the kubelet's /var/log/containers links
