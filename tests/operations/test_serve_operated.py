"""`fakecri serve` run as docs/operating.md shows: config file, env, metrics, state file."""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from helpers.operations import TIMEOUT, run_pod, sample, scrape

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.control_client import ControlClient
from fakecri.server.process.app import short_socket_path

OPERATING = Path(__file__).resolve().parents[2] / "docs" / "operating.md"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_config_file_and_env_drive_metrics_and_state_file(tmp_path):
    port, state_file, sock = free_port(), tmp_path / "state.json", short_socket_path()
    config = tmp_path / "fakecri.toml"
    config.write_text(f'seed = 7\nmetrics_addr = "127.0.0.1:{port}"\nstate_file = "{state_file}"\n')
    env = {**os.environ, "FAKECRI_SEED": "11"}  # the environment wins over the file
    proc = subprocess.Popen([sys.executable, "-m", "fakecri.cli", "serve", "--config", str(config), "--socket", sock,
                             "--log-format", "json"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        with grpc.insecure_channel("unix:" + sock) as ch:
            grpc.channel_ready_future(ch).result(timeout=60)
            run_pod(api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch), "web", "u1")
        m = scrape(f"http://127.0.0.1:{port}/metrics")
        assert sample(m, "fakecri_containers", state="RUNNING") == 1
        assert sample(m, "fakecri_rpcs_total", method="StartContainer", code="OK") == 1
        doc = json.loads(state_file.read_text())
        assert [c["state"] for c in doc["runtime"]["containers"]] == ["RUNNING"]
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT)
    records = [json.loads(line) for line in err.splitlines() if line.strip()]
    ready = next(r for r in records if "serving on" in r["event"])
    assert ready["seed"] == 11
    assert any(r["event"] == "metrics serving" and r["url"].endswith(f":{port}/metrics") for r in records)
    assert proc.returncode == 0


def test_operating_page_lists_exactly_the_metrics_served():
    from fakecri.server.process.app import FakeCRIServer

    section = OPERATING.read_text(encoding="utf-8").split("## Metrics", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(fakecri_\w+)`", section, re.M))
    with FakeCRIServer(metrics_addr="127.0.0.1:0") as srv:
        with ControlClient(srv.control_endpoint) as ctl:  # one fault fires, so its series appears
            ctl.add_fault({"type": "error", "target": "Version", "count": 1, "attributes": {"code": "UNAVAILABLE"}})
        with grpc.insecure_channel("unix:" + srv.config.socket) as ch:
            stub = api_pb2_grpc.RuntimeServiceStub(ch)
            with pytest.raises(grpc.RpcError):
                stub.Version(pb.VersionRequest(), timeout=TIMEOUT)
            stub.Version(pb.VersionRequest(), timeout=TIMEOUT)
        sub = srv.call(lambda: srv.node.subscribe()[0])  # so the per-subscriber series appear
        names = {name for name, _ in scrape(srv.addresses()["metrics"])}
        srv.call(lambda: srv.node.unsubscribe(sub))
    served = {re.sub(r"_(total|bucket|count|sum|created)$", "", n) for n in names}
    assert {d.removesuffix("_total") for d in documented} == served
