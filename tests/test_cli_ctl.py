"""`fakecri ctl` drives everything the control API offers: the fake clock, the server's
info, conditions in any case; the call log says what each call was about; and
`fakecri version --json` is there for scripts."""
from __future__ import annotations

import json

from click.testing import CliRunner

from fakecri.cli import main
from fakecri.client import CRIClient
from fakecri.server.process.app import FakeCRIServer

POD = {"metadata": {"name": "web", "namespace": "default", "uid": "web-1"}}


def ctl(server, *args):
    result = CliRunner().invoke(main, ["ctl", "--endpoint", server.endpoint, *args])
    return result.exit_code, result.output, result.stderr


def test_advance_clock_moves_a_fake_clock_and_fires_what_falls_due():
    with FakeCRIServer(fake_clock=True) as server, CRIClient(server.endpoint) as cri:
        cri.pull_image("busybox")
        sid = cri.run_pod_sandbox(POD)
        cid = cri.create_container(sid, {"metadata": {"name": "app"}, "image": {"image": "busybox"},
                                         "command": ["sleep", "30"]}, POD)
        cri.start_container(cid)
        code, before, _ = ctl(server, "advance-clock", "29s")
        assert code == 0 and cri.container_status(cid).status.state == 1  # still running
        code, after, _ = ctl(server, "advance-clock", "1s")
        assert code == 0 and cri.container_status(cid).status.exit_code == 0
        moved = json.loads(after)["now_ns"] - json.loads(before)["now_ns"]
        assert moved == 1_000_000_000 and json.loads(after)["now"].endswith("Z")


def test_advance_clock_on_the_system_clock_is_one_line_refused():
    with FakeCRIServer() as server:
        code, _, err = ctl(server, "advance-clock", "5s")
    assert code == 1 and err.startswith("Error: FAILED_PRECONDITION") and err.count("\n") == 1


def test_info_shows_seed_counters_and_errors():
    with FakeCRIServer(seed=42) as server, CRIClient(server.endpoint) as cri:
        cri.version()
        code, out, _ = ctl(server, "info")
    info = json.loads(out)
    assert code == 0 and info["seed"] == 42 and info["errors"] == []
    assert info["counters"]["rpc:Version:OK"] == 1


def test_condition_takes_any_case():
    with FakeCRIServer() as server, CRIClient(server.endpoint) as cri:
        code, _, err = ctl(server, "condition", "networkready", "False")
        assert code == 0, err
        network = [c for c in cri.status().status.conditions if c.type == "NetworkReady"]
        assert network and network[0].status is False


def test_calls_say_what_each_call_was_about():
    with FakeCRIServer() as server, CRIClient(server.endpoint) as cri:
        cri.pull_image("busybox")
        sid = cri.run_pod_sandbox(POD)
        cri.create_container(sid, {"metadata": {"name": "app"}, "image": {"image": "busybox"}}, POD)
        code, out, _ = ctl(server, "calls")
    summaries = {r["method"]: r["summary"] for r in map(json.loads, out.splitlines())}
    assert code == 0
    assert summaries["PullImage"] == "image=busybox"
    assert summaries["RunPodSandbox"] == "pod=default/web"
    assert summaries["CreateContainer"] == f"container=app attempt=0 pod_sandbox_id={sid[:12]}"


def test_version_json():
    result = CliRunner().invoke(main, ["version", "--json"])
    data = json.loads(result.output)
    assert result.exit_code == 0 and data["version"] and data["cri_api"] == "runtime.v1"
