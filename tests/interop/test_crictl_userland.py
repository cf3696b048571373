"""What a command sees inside a container follows its config, looked at through the real crictl."""
from __future__ import annotations

import json


def test_identity_files_env_sysctls_and_mounts(crictl, tmp_path):
    rw, ro = tmp_path / "rw", tmp_path / "ro"
    rw.mkdir()
    ro.mkdir()
    (ro / "settings.conf").write_text("level=3\n")
    pod = tmp_path / "pod.json"
    pod.write_text(json.dumps({
        "metadata": {"name": "inside", "namespace": "default", "uid": "inside-uid"},
        "hostname": "web-1",
        "dns_config": {"servers": ["10.96.0.10"], "searches": ["default.svc.cluster.local"], "options": ["ndots:5"]},
        "linux": {"sysctls": {"kernel.shm_rmid_forced": "1"}},
    }))
    ctr = tmp_path / "ctr.json"
    ctr.write_text(json.dumps({
        "metadata": {"name": "app"}, "image": {"image": "busybox"}, "command": ["sleep", "infinity"],
        "envs": [{"key": "GREETING", "value": "hello"}],
        "mounts": [{"container_path": "/data", "host_path": str(rw)},
                   {"container_path": "/config", "host_path": str(ro), "readonly": True}],
        "linux": {"security_context": {"run_as_user": {"value": 1001}, "supplemental_groups": [1234, 5678]}},
    }))
    crictl("pull", "busybox")
    pod_id = crictl("runp", str(pod)).stdout.strip()
    cid = crictl("create", pod_id, str(ctr), str(pod)).stdout.strip()
    crictl("start", cid)

    def run(*argv: str) -> str:
        return crictl("exec", cid, *argv).stdout

    assert run("id", "-u") == "1001\n"
    assert run("id", "-G").split() == ["0", "1234", "5678"]
    assert run("hostname") == "web-1\n"
    assert run("cat",
               "/etc/resolv.conf") == "search default.svc.cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"
    assert run("sysctl", "-n", "kernel.shm_rmid_forced") == "1\n"
    assert run("sh", "-c", "echo $GREETING from $HOSTNAME") == "hello from web-1\n"
    assert run("cat", "/config/settings.conf") == "level=3\n"
    denied = crictl("exec", cid, "sh", "-c", "echo saved > /data/out.txt", check=False)
    assert denied.returncode == 1 and "Permission denied" in denied.stderr  # uid 1001, a directory root's 0755
    rw.chmod(0o1777)
    run("sh", "-c", "echo saved > /data/out.txt")
    assert (rw / "out.txt").read_text() == "saved\n"
    refused = crictl("exec", cid, "touch", "/config/new", check=False)
    assert refused.returncode != 0 and "Read-only file system" in refused.stderr
    assert not (ro / "new").exists()
