"""What a container sees of its image, and its web server, through the real crictl and critest."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import urllib.request

import pytest

NGINX = "registry.k8s.io/e2e-test-images/nginx:1.14-2"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_image_groups_setuid_program_and_oom_kill(crictl, tmp_path):
    pod = tmp_path / "pod.json"
    pod.write_text(json.dumps({"metadata": {"name": "images", "namespace": "default", "uid": "images-uid"},
                               "log_directory": str(tmp_path / "logs")}))
    pod_id = crictl("runp", str(pod)).stdout.strip()

    def run_container(name: str, image: str, **config) -> str:
        spec = tmp_path / f"{name}.json"
        spec.write_text(json.dumps({"metadata": {"name": name}, "image": {"image": image},
                                    "log_path": f"{name}.log", **config}))
        crictl("pull", image)
        cid = crictl("create", pod_id, str(spec), str(pod)).stdout.strip()
        crictl("start", cid)
        return cid

    groups = run_container("groups", "gcr.io/k8s-staging-cri-tools/test-image-predefined-group",
                           command=["sleep", "infinity"],
                           linux={"security_context": {"run_as_user": {"value": 1000}, "supplemental_groups": [1234]}})
    assert crictl("exec", groups, "id", "-G").stdout == "1000 1234 50000\n"
    user = json.loads(crictl("inspect", groups).stdout)["status"]["user"]["linux"]
    assert (user["uid"], user["gid"], user["supplementalGroups"]) == ("1000", "1000", ["1000", "1234", "50000"])

    nnp = run_container("nnp", "registry.k8s.io/e2e-test-images/nonewprivs:1.3",
                        linux={"security_context": {"run_as_user": {"value": 1000}, "no_new_privs": True}})
    assert crictl("logs", nnp).stdout == "Effective uid: 1000\n"

    oom = run_container("oom", "busybox", command=["sh", "-c", "dd if=/dev/zero of=/dev/null bs=20M"],
                        linux={"resources": {"memory_limit_in_bytes": 15 * 1024 * 1024}})
    status = json.loads(crictl("inspect", oom).stdout)["status"]
    assert (status["state"], status["exitCode"], status["reason"]) == ("CONTAINER_EXITED", 137, "OOMKilled")


def test_a_web_server_answers_on_its_host_port(crictl, tmp_path):
    port = _free_port()
    pod = tmp_path / "pod.json"
    pod.write_text(json.dumps({"metadata": {"name": "web", "namespace": "default", "uid": "web-uid"},
                               "port_mappings": [{"container_port": 80, "host_port": port}]}))
    ctr = tmp_path / "ctr.json"
    ctr.write_text(json.dumps({"metadata": {"name": "nginx"}, "image": {"image": NGINX}}))
    crictl("pull", NGINX)
    pod_id = crictl("runp", str(pod)).stdout.strip()
    cid = crictl("create", pod_id, str(ctr), str(pod)).stdout.strip()
    crictl("start", cid)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as resp:
        assert resp.status == 200 and b"Welcome to nginx!" in resp.read()
    crictl("stop", cid)
    with socket.socket() as s:
        s.settimeout(2)
        assert s.connect_ex(("127.0.0.1", port)) != 0  # closed with the container


def _critest(critest_bin, socket_path: str, focus: str, tmp_path) -> dict[str, str]:
    report = tmp_path / "report.json"
    endpoint = "unix://" + socket_path
    done = subprocess.run(
        [str(critest_bin), "--runtime-endpoint", endpoint, "--image-endpoint", endpoint, f"--ginkgo.focus={focus}",
         f"--ginkgo.json-report={report}", "--ginkgo.no-color"],
        capture_output=True, text=True, timeout=240, cwd=tmp_path,
    )
    specs = json.loads(report.read_text())[0]["SpecReports"]
    ran = {s["LeafNodeText"]: s["State"] for s in specs if s["State"] != "skipped" and s["LeafNodeText"]}
    assert ran, done.stdout[-3000:]
    return ran


def test_critest_image_memory_and_namespace_specs_pass(crictl, critest_bin, tmp_path):
    ran = _critest(critest_bin, crictl.socket, "SupplementalGroupsPolicy|NoNewPrivs|OOMKilled|NamespaceOption",
                   tmp_path)
    assert set(ran.values()) == {"passed"}, ran
    assert len(ran) == 12, ran


@pytest.mark.skipif(os.geteuid() != 0, reason="the web server's port 80 on the pod IP needs root to bind")
def test_critest_networking_specs_pass_with_a_loopback_pod_cidr(critest_bin, tmp_path):
    from fakecri.server.process.app import FakeCRIServer

    server = FakeCRIServer(seed=7, pod_cidr="127.88.0.0/16", socket=str(tmp_path / "f.sock"))
    server.start()
    try:
        ran = _critest(critest_bin, server.config.socket, "Networking|portforward", tmp_path)
    finally:
        server.stop()
    assert set(ran.values()) == {"passed"}, ran
    assert len(ran) == 6, ran
