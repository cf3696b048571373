"""The real crictl drives a whole pod lifecycle against fakecri, one command at a time."""
from __future__ import annotations

import json


def _write(path, obj) -> str:
    path.write_text(json.dumps(obj))
    return str(path)


def test_crictl_whole_lifecycle(crictl, tmp_path):
    logs = tmp_path / "logs"
    pod = _write(tmp_path / "pod.json", {
        "metadata": {"name": "lifecycle", "namespace": "default", "uid": "lifecycle-uid", "attempt": 0},
        "log_directory": str(logs), "linux": {},
    })
    ctr = _write(tmp_path / "ctr.json", {
        "metadata": {"name": "app"}, "image": {"image": "busybox:1.36"},
        "command": ["sh", "-c", "echo hello from app; sleep 3600"], "log_path": "app.log", "linux": {},
    })

    pulled = crictl("pull", "busybox:1.36").stdout
    assert "Image is up to date for sha256:" in pulled, "PullImage answers the image id"
    assert "busybox" in crictl("images").stdout

    pod_id = crictl("runp", pod).stdout.strip()
    assert len(pod_id) == 64
    assert crictl("pods", "-q").stdout.split() == [pod_id]

    ctr_id = crictl("create", pod_id, ctr, pod).stdout.strip()
    assert crictl("ps", "-a", "-q").stdout.split() == [ctr_id]
    crictl("start", ctr_id)
    listing = crictl("ps", "-o", "json").stdout
    assert [(c["id"], c["state"]) for c in json.loads(listing)["containers"]] == [(ctr_id, "CONTAINER_RUNNING")]

    inspected = json.loads(crictl("inspect", ctr_id).stdout)
    assert inspected["status"]["state"] == "CONTAINER_RUNNING"
    assert inspected["status"]["metadata"]["name"] == "app"
    assert json.loads(crictl("inspectp", pod_id).stdout)["status"]["state"] == "SANDBOX_READY"

    assert "hello from app" in crictl("logs", ctr_id).stdout
    assert crictl("exec", ctr_id, "echo", "hi").stdout == "hi\n"
    failed = crictl("exec", ctr_id, "sh", "-c", "exit 3", check=False)
    assert failed.returncode != 0 and "3" in failed.stderr

    stats = json.loads(crictl("stats", "-o", "json").stdout)["stats"]
    assert [s["attributes"]["id"] for s in stats] == [ctr_id]
    assert int(stats[0]["memory"]["workingSetBytes"]["value"]) > 0
    fsinfo = json.loads(crictl("imagefsinfo", "-o", "json").stdout)["status"]
    assert int(fsinfo["imageFilesystems"][0]["usedBytes"]["value"]) > 0

    crictl("stop", ctr_id)
    assert json.loads(crictl("inspect", ctr_id).stdout)["status"]["state"] == "CONTAINER_EXITED"
    crictl("rm", ctr_id)
    assert crictl("ps", "-a", "-q").stdout.split() == []
    crictl("stopp", pod_id)
    crictl("rmp", pod_id)
    assert crictl("pods", "-q").stdout.split() == []
    crictl("rmi", "busybox:1.36")
    assert "busybox" not in crictl("images").stdout
