"""The benchmark scripts run end to end at a tiny size (no timing is asserted), and the
caches they motivated (fakecri.server.wire.JoinCache, status bytes) give exact answers."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fakecri.server.wire import JoinCache, batches

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory):
    sys.path.insert(0, BENCH)
    try:
        import run  # bench/run.py
    finally:
        sys.path.remove(BENCH)
    return run.main(["--size", "tiny", "--json", str(tmp_path_factory.mktemp("bench") / "r.json")])


def test_every_scenario_reports(tiny_results):
    for name in ("unary", "lists", "fanout", "memory", "pleg", "conformance"):
        assert tiny_results[name], name


def test_unary_and_lists_have_ratios(tiny_results):
    for case in ("Version", "ContainerStatus", "PodSandboxStatus"):
        assert tiny_results["unary"][case]["p50_ratio"] > 0
    lists = tiny_results["lists"]
    assert lists["ListContainers @100"]["bytes"] > lists["ListContainers id @100"]["bytes"] > 0
    assert lists["StreamPodSandboxes @100"]["p50_ratio"] > 0


def test_fanout_memory_pleg_conformance_figures(tiny_results):
    assert tiny_results["fanout"]["1 subs"]["fake_dps"] > 0
    assert tiny_results["fanout"]["mixed"]["ratio"] > 0
    assert tiny_results["memory"]["fakecri"]["containers"] > 0
    assert tiny_results["pleg"]["20 pods"]["cold_relist_ms"] > 0
    assert tiny_results["conformance"]["lifecycle machine"]["steps_per_s"] > 0


def test_cli_help_runs():
    out = subprocess.run([sys.executable, os.path.join(BENCH, "run.py"), "--help"], capture_output=True, text=True,
                         check=True)
    assert "--size" in out.stdout


def test_join_cache_reuses_only_identical_fragments():
    cache = JoinCache(limit=1 << 20)
    frags = [b"a1", b"b22", b"c333"]
    first = cache.join("k", list(frags))
    assert first == b"a1b22c333"
    assert cache.join("k", list(frags)) is first  # same fragment objects: the same bytes back
    changed = [frags[0], b"B22", frags[2]]
    assert cache.join("k", changed) == b"a1B22c333"
    assert cache.join("k", frags[:2]) == b"a1b22"
    assert JoinCache(limit=3).join("k", frags) == b"a1b22c333"  # over the limit: answered, not kept


def test_join_cache_batches_match_plain_batches_and_drop_stale():
    cache = JoinCache(limit=1 << 20)
    frags = [bytes([i]) * 3 for i in range(10)]
    assert list(cache.batches("s", frags, 4)) == list(batches(frags, 4))
    assert list(cache.batches("s", frags[:3], 4)) == list(batches(frags[:3], 4))
    assert [k for k in cache._last if k[0] == "s"] == [("s", 0)]


def test_join_cache_completes_missing_fragments_only_on_a_miss():
    cache = JoinCache(limit=1 << 20)
    built = []

    def complete():
        built.append(1)
        return [b"a", b"b", b"c"]

    first = cache.join("k", [b"a", None, b"c"], complete)
    assert first == b"abc" and built == [1]
    stored = cache._last["k"][0]
    assert cache.join("k", list(stored), complete) is first and built == [1]  # all built now: a hit
    assert list(cache.batches("s", [None, b"b", b"c"], 2, complete)) == [b"ab", b"c"]
