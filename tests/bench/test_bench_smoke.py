"""The benchmark scripts run end to end at a tiny size (no timing is asserted), and the
caches they motivated (fakecri.server.codec.wire.FragmentCache and VersionedCache, status bytes) give
exact answers."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.server.codec.encode import FragmentCache, VersionedCache

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


class _Rec:
    """A record stand-in: compared by identity, as the engine's frozen records are."""

    def __init__(self, name: str) -> None:
        self.name = name


def test_fragment_cache_builds_each_record_once():
    built = []

    def build(rec):
        built.append(rec.name)
        return pb.PodSandbox(id=rec.name)

    cache = FragmentCache(build)
    a, b = _Rec("a"), _Rec("b")
    first = cache.every([a, b])
    assert cache.every([a, b]) == first and built == ["a", "b"]
    changed = _Rec("b")  # a changed record is a new object
    assert cache.every([a, changed])[0] is first[0] and built == ["a", "b", "b"]
    assert cache.of(a) is first[0]


def test_versioned_cache_keeps_an_answer_for_its_version_only():
    cache = VersionedCache(limit=1 << 20)
    cache.put("k", 1, b"abc")
    assert cache.get("k", 1) == b"abc" and cache.get("k", 2) is None
    cache.put("k", 2, [b"a", b"bc"])
    assert cache.get("k", 2) == [b"a", b"bc"] and cache.get("k", 1) is None




def test_stats_latency_runs_at_a_small_size(tmp_path):
    """bench/stats_latency.py: a served fakecri on a state file, one big stats call, Version beside it."""
    import json

    out = tmp_path / "stats.json"
    command = [sys.executable, os.path.join(BENCH, "stats_latency.py"), "--containers", "200", "--rounds", "1",
               "--idle-seconds", "0.2", "--json", str(out)]
    subprocess.run(command, capture_output=True, text=True, check=True, timeout=300)
    figures = json.loads(out.read_text())
    assert figures["ListContainerStats"][0]["stats"] == figures["StreamContainerStats"][0]["stats"] == 200
