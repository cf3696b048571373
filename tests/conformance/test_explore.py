"""Explore, then reproduce: fresh seeds within a time bound, each failing seed printed
with the command that replays it, its failures shrunk as in any run; the default run
stays derandomized."""
from __future__ import annotations

import pytest

from fakecri.conformance import Options
from fakecri.conformance.command import replay_command
from fakecri.conformance.explore import explore
from fakecri.faults.model import Fault
from fakecri.server.process.app import FakeCRIServer

pytestmark = pytest.mark.usefixtures("quiet_logs")


def test_explore_prints_each_failing_seed_with_its_replay_and_shrinks_it():
    # Only an instant exit shows this quirk: whether a seed fails depends on what it draws.
    server = FakeCRIServer(seed=5, faults=[Fault(type="quirk", attributes={"name": "stopped-before-started"})]).start()
    server.node.log_rpcs = False
    seeds = iter([11, 12, 13])
    try:
        # A second of shrinking shows that each failing seed is shrunk (how far shrinking goes is
        # test_teeth.py's slow test); a stream that works needs no second of probing either.
        found = explore(Options(endpoint=server.endpoint, max_examples=3, steps=4, shrink_time=1.0, shrink_budget=2.0,
                                properties=["event-order-per-container"], settle_quiet=0.3, probe_wait=0.2),
                        runs=3, bound=120.0, replay=lambda s: f"fakecri conformance --seed {s}",
                        seeds=lambda: next(seeds))
    finally:
        server.stop()
    assert [r.seed for r in found.runs] == [11, 12, 13]
    assert found.failing, found.text()
    text = found.text()
    for run in found.failing:
        assert f"seed {run.seed} fails; replay it with:\n  fakecri conformance --seed {run.seed}" in text
        failed = run.result.by_name("event-order-per-container")
        assert failed.status == "fail" and (failed.shrunk or failed.partly_shrunk), run.result.table()
        assert run.result.seed == run.seed and not run.result.scripted
    assert found.failed()


def test_explore_starts_no_seed_after_its_time_bound():
    with FakeCRIServer(seed=5) as server:
        server.node.log_rpcs = False
        found = explore(Options(endpoint=server.endpoint, max_examples=1, steps=2, properties=["valid-calls-succeed"]),
                        runs=5, bound=0.5, replay=str)
    assert len(found.runs) == 1 and "stopped at the time bound (0.5s)" in found.text()


def test_the_replay_command_names_only_what_differs_from_the_defaults():
    given = {"--endpoint": "unix:///run/containerd/containerd.sock", "--image": "busybox",
             "--profile": "legacy-evented", "--max-examples": 20, "--steps": 10, "--runtime-handler": "",
             "--property": ("no-lost-exits",)}
    assert replay_command(given, 42) == ("fakecri conformance --endpoint unix:///run/containerd/containerd.sock"
                                         " --profile legacy-evented --property no-lost-exits --seed 42")
    assert replay_command({"--endpoint": None}, 7) == "fakecri conformance --seed 7"
