"""The real crictl stops containers as a containerd user sees it: a shell loop ignores
SIGTERM as PID 1 and is killed when `-t` runs out (137), nginx exits 0 at once, and
`crictl stop` without `-t` (timeout 0) kills at once.

The server runs on a fake clock, so the stop's wait is a jump of the clock: the test
reads how long each stop took from the container's own timestamps, not from a watch.
"""
from __future__ import annotations

import datetime
import json
import subprocess

import pytest

from fakecri.server.process.app import FakeCRIServer

S = 1_000_000_000
LOOP = ["sh", "-c", "while true; do echo tick; sleep 5; done"]


@pytest.fixture
def fake_clock_crictl(crictl_bin, tmp_path):
    with FakeCRIServer(fake_clock=True, state_root=str(tmp_path / "root")) as server:
        endpoint = "unix://" + server.config.socket
        config = tmp_path / "crictl.yaml"
        config.write_text(f"runtime-endpoint: {endpoint}\nimage-endpoint: {endpoint}\ntimeout: 10\n")

        def run(*args: str) -> str:
            done = subprocess.run([str(crictl_bin), "--config", str(config), *args],
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, f"crictl {' '.join(args)}: {done.stderr.strip()}"
            return done.stdout

        yield run
        server.check()


def _ns(stamp: str) -> int:
    """Nanoseconds since the epoch of an RFC 3339 time as crictl prints it (nanosecond digits)."""
    whole, _, frac = stamp.rstrip("Z").partition(".")
    when = datetime.datetime.fromisoformat(whole).replace(tzinfo=datetime.UTC)
    return int(when.timestamp()) * S + int((frac or "0").ljust(9, "0")[:9])


def _write(path, obj) -> str:
    path.write_text(json.dumps(obj))
    return str(path)


@pytest.mark.parametrize("name,command,image,args,took_s,code,reason", [
    ("loop", LOOP, "busybox:1.36", ["-t", "30"], 30, 137, "Error"),
    ("sleep", ["sleep", "3600"], "busybox:1.36", ["-t", "10"], 10, 137, "Error"),
    ("nginx", [], "docker.io/library/nginx:1.27", ["-t", "30"], 0, 0, "Completed"),
    ("no-timeout", LOOP, "busybox:1.36", [], 0, 137, "Error"),
])
def test_crictl_stop(fake_clock_crictl, tmp_path, name, command, image, args, took_s, code, reason):
    crictl = fake_clock_crictl
    pod = _write(tmp_path / "pod.json", {"metadata": {"name": name, "namespace": "default", "uid": name + "-uid"},
                                         "log_directory": str(tmp_path / "logs"), "linux": {}})
    ctr = _write(tmp_path / "ctr.json", {"metadata": {"name": "app"}, "image": {"image": image},
                                         "command": command, "log_path": "app.log", "linux": {}})
    crictl("pull", image)
    cid = crictl("run", ctr, pod).strip()
    before = json.loads(crictl("inspect", cid))["status"]
    assert before["state"] == "CONTAINER_RUNNING"
    crictl("stop", *args, cid)
    status = json.loads(crictl("inspect", cid))["status"]
    assert (status["state"], status["exitCode"], status["reason"]) == ("CONTAINER_EXITED", code, reason)
    took_ns = _ns(status["finishedAt"]) - _ns(before["startedAt"])
    assert took_ns == took_s * S, f"the stop took {took_ns / S} s on the server's clock"
