"""deploy/ as a cluster would receive it: rendered by kustomize (`kubectl kustomize`),
checked against the Kubernetes 1.36 schema (the bundled schemas of kubernetes-validate),
and its KubeletConfiguration and kubeconfig loaded by the real kubelet 1.36 binary.

Each check skips with the reason when its tool is missing here: kubectl, the
kubernetes-validate package (in the `dev` extra), or the kubelet binary (with root).
The kubelet checks run only with --run-slow, as every real kubelet does.
"""
import fcntl
import os
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest
import yaml

from interop.conftest import WHERE_TO_GET, find_binary, where_looked

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
KUBERNETES_VERSION = "1.36.0"  # the kubelet this project tests against is 1.36
# A CA bundle that parses; the kubelet only loads it, it never reaches a server here.
SYSTEM_CA = Path("/etc/ssl/certs/ca-certificates.crt")


@pytest.fixture(scope="module")
def rendered():
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl not found on PATH: cannot render deploy/ with kustomize")
    out = subprocess.run([kubectl, "kustomize", str(DEPLOY)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def only(docs, kind, name=None):
    [doc] = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    return doc


def test_render_holds_every_object(rendered):
    kinds = sorted((d["kind"], d["metadata"]["name"]) for d in rendered)
    assert kinds == sorted([
        ("Namespace", "fakecri-nodes"), ("ServiceAccount", "fake-kubelet"),
        ("ClusterRoleBinding", "fakecri-nodes-kubelet"), ("ConfigMap", "fakecri-settings"),
        ("ConfigMap", "fakecri-image-catalog"), ("ConfigMap", "fake-kubelet-config"),
        ("Service", "fake-nodes"), ("StatefulSet", "fake-node"),
    ])
    for doc in rendered:
        if doc["kind"] not in ("Namespace", "ClusterRoleBinding"):
            assert doc["metadata"]["namespace"] == "fakecri-nodes", doc["metadata"]["name"]


def test_images_come_from_the_kustomization(rendered):
    kust = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())
    expected = {f"{e['newName']}:{e['newTag']}" for e in kust["images"]}
    spec = only(rendered, "StatefulSet")["spec"]["template"]["spec"]
    used = {c["image"] for c in spec["initContainers"] + spec["containers"]}
    assert used == expected


def test_valid_against_the_kubernetes_schema(rendered):
    kv = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed (pip install -e '.[dev]')")
    for doc in rendered:
        # strict: a field the schema does not know is an error, not silently dropped.
        kv.validate(doc, KUBERNETES_VERSION, strict=True)


def test_schema_check_has_teeth(rendered):
    kv = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed (pip install -e '.[dev]')")
    sts = yaml.safe_load(yaml.safe_dump(only(rendered, "StatefulSet")))
    sts["spec"]["template"]["spec"]["initContainers"][0]["restartPolicy"] = 7
    with pytest.raises(kv.ValidationError):
        kv.validate(sts, KUBERNETES_VERSION, strict=True)


def run_kubelet(kubelet, tmp_path, config_text, kubeconfig_text=None):
    """Start the kubelet with these files and a CRI endpoint where nothing listens; it
    stops at the first step that needs the runtime, after loading its configuration."""
    config = tmp_path / "kubelet-config.yaml"
    config.write_text(config_text)
    argv = [str(kubelet), f"--config={config}", f"--root-dir={tmp_path / 'root'}", f"--cert-dir={tmp_path / 'pki'}",
            f"--container-runtime-endpoint=unix://{tmp_path / 'no-runtime.sock'}", "-v=2"]
    if kubeconfig_text is not None:
        (tmp_path / "kubeconfig").write_text(kubeconfig_text)
        argv.append(f"--kubeconfig={tmp_path / 'kubeconfig'}")
    # Ports 10250/10248 are the kubelet's on this machine: one kubelet at a time.
    with open("/tmp/kubelet.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        out = subprocess.run(["timeout", "60", *argv], capture_output=True, text=True, timeout=90)
    return out.returncode, "\n".join(line for line in out.stderr.splitlines() if "FLAG:" not in line)


@pytest.fixture
def kubelet():
    path = find_binary("kubelet")
    if path is None:
        pytest.skip(f"kubelet not found in {where_looked()}; {WHERE_TO_GET['kubelet']}")
    if os.geteuid() != 0:
        pytest.skip("the kubelet needs root")
    return path


@pytest.mark.slow
def test_real_kubelet_loads_the_rendered_configuration(rendered, kubelet, tmp_path):
    data = only(rendered, "ConfigMap", "fake-kubelet-config")["data"]
    if not SYSTEM_CA.is_file():
        pytest.skip(f"no CA bundle at {SYSTEM_CA} to stand in for the cluster's CA")
    # The kubeconfig names the projected token and CA under /etc/kubelet; put stand-ins here.
    (tmp_path / "token").write_text("not-a-real-token\n")
    (tmp_path / "ca.crt").write_bytes(SYSTEM_CA.read_bytes())
    kubeconfig = data["kubeconfig"].replace(str(PurePosixPath("/etc/kubelet")) + "/", f"{tmp_path}/")
    code, log = run_kubelet(kubelet, tmp_path, data["kubelet-config.yaml"], kubeconfig)
    assert code != 0
    # It validated the configuration, built its API client from the kubeconfig, and
    # went on to the runtime, which is missing here on purpose.
    assert '"Kubelet version"' in log, log
    assert "validate CRI v1 runtime API" in log, log
    assert "failed to validate kubelet configuration" not in log and "invalid kubeconfig" not in log.lower()


@pytest.mark.slow
def test_real_kubelet_rejects_a_broken_configuration(rendered, kubelet, tmp_path):
    """The same run with one bad value stops at the configuration: the check above is not
    passing for a kubelet that ignores its file."""
    data = only(rendered, "ConfigMap", "fake-kubelet-config")["data"]
    broken = data["kubelet-config.yaml"].replace("imageGCHighThresholdPercent: 100", "imageGCHighThresholdPercent: 101")
    assert broken != data["kubelet-config.yaml"]
    code, log = run_kubelet(kubelet, tmp_path, broken)
    assert code != 0
    assert "failed to validate kubelet configuration" in log and "imageGCHighThresholdPercent" in log, log
