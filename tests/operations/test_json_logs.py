"""`fakecri serve --log-format json`: every stderr line is JSON, one line per RPC."""
from __future__ import annotations

import json
import signal
import subprocess
import sys

import grpc
from helpers.operations import TIMEOUT, pod_config

from fakecri import __version__
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import short_socket_path


def serve_and_call(*flags: str) -> tuple[list[dict], str]:
    """Start `fakecri serve`, make four CRI calls, stop it; returns (parsed stderr lines, sandbox id)."""
    sock = short_socket_path()
    proc = subprocess.Popen([sys.executable, "-m", "fakecri.cli", "serve", "--socket", sock, *flags],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with grpc.insecure_channel("unix:" + sock) as ch:
            grpc.channel_ready_future(ch).result(timeout=60)
            rt = api_pb2_grpc.RuntimeServiceStub(ch)
            rt.Version(pb.VersionRequest(), timeout=TIMEOUT)
            sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pod_config("web", "u1")),
                                   timeout=TIMEOUT).pod_sandbox_id
            rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid), timeout=TIMEOUT)
            try:
                rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id="missing"), timeout=TIMEOUT)
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.NOT_FOUND
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, err
    lines = [line for line in err.splitlines() if line.strip()]
    return [json.loads(line) for line in lines], sid  # every line must parse


def test_every_stderr_line_is_json_with_one_line_per_rpc():
    records, sid = serve_and_call("--log-format", "json", "--log-level", "info")
    ready = [rec for rec in records if "serving on unix://" in rec["event"]]
    assert len(ready) == 1 and ready[0]["endpoint"].startswith("unix:///tmp/")
    assert all({"event", "level", "timestamp"} <= rec.keys() for rec in records)
    rpcs = [rec for rec in records if rec.get("event") == "rpc"]
    assert [(r["method"], r["code"]) for r in rpcs] == [
        ("Version", "OK"), ("RunPodSandbox", "OK"), ("PodSandboxStatus", "OK"), ("PodSandboxStatus", "NOT_FOUND"),
    ]
    assert all(isinstance(r["ms"], (int, float)) and r["ms"] >= 0 and r["level"] == "info" for r in rpcs)
    assert rpcs[1].get("pod_sandbox_id") is None and rpcs[2]["pod_sandbox_id"] == sid
    assert rpcs[3]["pod_sandbox_id"] == "missing"


def test_log_level_warning_leaves_out_rpc_lines():
    records, _ = serve_and_call("--log-format", "json", "--log-level", "warning")
    assert not [rec for rec in records if rec.get("event") == "rpc"]
    # What an operator waits for shows whatever the level: ready once, then the shutdown.
    assert [rec["event"].split(" serving on ")[0] for rec in records] == [
        f"fakecri {__version__}", "fakecri shutting down", "fakecri stopped"]
    assert all(rec["level"] == "info" and rec["timestamp"].endswith("Z") for rec in records)
    assert records[1]["signal"] == "SIGTERM"
