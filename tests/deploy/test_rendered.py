"""deploy/ as a cluster would receive it: rendered by kustomize (`kubectl kustomize`) as it is
and with K (nodes per pod) set to 1 and 3 through an overlay, checked against the Kubernetes
1.36 schema (the bundled schemas of kubernetes-validate); one pod's two containers run here
as rendered (the fakecri farm for real, kubelets.sh with a stand-in kubelet that records what
it was given); and the KubeletConfiguration and kubeconfig loaded by the real kubelet 1.36.

Each check skips with the reason when its tool is missing here: kubectl, the
kubernetes-validate package (in the `dev` extra), or the kubelet binary (with root).
The kubelet checks run only with --run-slow, as every real kubelet does;
tests/deploy/test_pod_with_real_kubelets.py runs a whole pod with real kubelets.
"""
import fcntl
import ipaddress
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath

import pytest
import yaml
from helpers.deploy import DEPLOY, Pod, kubectl, nodes_per_pod, only, render, resources_for
from helpers.processes import end
from interop.conftest import WHERE_TO_GET, find_binary, where_looked

from fakecri.server.config import FarmConfig, ServerConfig
from fakecri.server.process.farm import Subnets, check_farm, name_for
from fakecri.settings import load_settings, schema_from_click

KUBERNETES_VERSION = "1.36.0"  # the kubelet this project tests against is 1.36
# A CA bundle that parses; the kubelet only loads it, it never reaches a server here.
SYSTEM_CA = Path("/etc/ssl/certs/ca-certificates.crt")
NO_KV = "kubernetes-validate is not installed (pip install -e '.[dev]')"
FAKECRI_BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def renders(tmp_path_factory):
    """{K: rendered docs}: deploy/ as it is (K from kustomization.yaml), and with K = 1 and 3."""
    if kubectl() is None:
        pytest.skip("kubectl not found on PATH: cannot render deploy/ with kustomize")
    tmp = tmp_path_factory.mktemp("render")
    docs = render()
    out = {nodes_per_pod(docs): docs}
    for k in (1, 3):
        out.setdefault(k, render(tmp, nodes=k, replicas=2))
    return out


@pytest.fixture(scope="module")
def rendered(renders):
    return next(iter(renders.values()))


def test_render_holds_every_object(rendered):
    kinds = sorted((d["kind"], d["metadata"]["name"].rsplit("-", 1)[0] if d["kind"] == "ConfigMap"
                    and d["metadata"]["name"].startswith("fake-node-") else d["metadata"]["name"]) for d in rendered)
    assert kinds == sorted([
        ("Namespace", "fakecri-nodes"), ("ServiceAccount", "fake-kubelet"),
        ("ClusterRoleBinding", "fakecri-nodes-kubelet"), ("ConfigMap", "fakecri-settings"),
        ("ConfigMap", "fakecri-image-catalog"), ("ConfigMap", "fake-kubelet-config"),
        ("ConfigMap", "fake-node-farm"), ("ConfigMap", "fake-node-kubelets"),
        ("Service", "fake-nodes"), ("StatefulSet", "fake-node"),
    ])
    for doc in rendered:
        if doc["kind"] not in ("Namespace", "ClusterRoleBinding"):
            assert doc["metadata"]["namespace"] == "fakecri-nodes", doc["metadata"]["name"]
    # The script in the ConfigMap is deploy/kubelets.sh, byte for byte.
    assert only(rendered, "ConfigMap", "fake-node-kubelets")["data"]["kubelets.sh"] == \
        (DEPLOY / "kubelets.sh").read_text()


def test_images_come_from_the_kustomization(rendered):
    kust = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())
    expected = {f"{e['newName']}:{e['newTag']}" for e in kust["images"]}
    spec = only(rendered, "StatefulSet")["spec"]["template"]["spec"]
    used = {c["image"] for c in spec["initContainers"] + spec["containers"]}
    assert used == expected


def test_valid_against_the_kubernetes_schema(renders):
    kv = pytest.importorskip("kubernetes_validate", reason=NO_KV)
    for docs in renders.values():
        for doc in docs:
            # strict: a field the schema does not know is an error, not silently dropped.
            kv.validate(doc, KUBERNETES_VERSION, strict=True)


def test_schema_check_has_teeth(rendered):
    kv = pytest.importorskip("kubernetes_validate", reason=NO_KV)
    sts = yaml.safe_load(yaml.safe_dump(only(rendered, "StatefulSet")))
    sts["spec"]["template"]["spec"]["initContainers"][0]["restartPolicy"] = 7
    with pytest.raises(kv.ValidationError):
        kv.validate(sts, KUBERNETES_VERSION, strict=True)


def test_k_is_set_once_and_both_containers_read_it(renders):
    for k, docs in renders.items():
        pod = Pod(docs, 0)
        assert pod.env("fakecri")["FAKECRI_NODES"] == pod.env("kubelets")["FAKECRI_NODES"] == str(k)
        # Both read the one farm directory, which both mount from the same volume.
        assert pod.env("fakecri")["FAKECRI_SOCKET_DIR"] == pod.env("kubelets")["FAKECRI_SOCKET_DIR"]
        # The resources are those of K nodes (README's per-node figures).
        for name, want in resources_for(k).items():
            assert pod.containers[name]["resources"] == want, (k, name)


_FILE_SETTINGS = {}


def farm_settings(pod):
    """The settings `fakecri serve` starts with in this pod: the rendered file, the variables over it."""
    from fakecri.cli import serve

    schema = schema_from_click(serve)
    config = pod.configmap("fakecri-settings")["fakecri.yaml"]
    if config not in _FILE_SETTINGS:
        path = Path(tempfile.mkdtemp(prefix="dset-")) / "fakecri.yaml"
        try:
            path.write_text(config)
            _FILE_SETTINGS[config] = load_settings(str(path), {}, **schema)
        finally:
            shutil.rmtree(path.parent)
    return {**_FILE_SETTINGS[config], **load_settings(None, pod.env("fakecri"), **schema)}


def farm_of(pod):
    s = farm_settings(pod)
    return (ServerConfig(pod_cidr=s["pod_cidr"]),
            FarmConfig(nodes=int(s["nodes"]), socket_dir=s["socket_dir"], node_name=s["node_name"],
                       node_cidr_size=int(s["node_cidr_size"]), farm_index=int(s["farm_index"])))


@pytest.mark.parametrize("k", [1, 3, 10])
def test_pod_cidrs_never_collide_across_pods_and_nodes_up_to_the_documented_limit(renders, k):
    """Every node of every pod that fits in the range gets a subnet of its own; the first pod that
    does not fit is refused by fakecri with the reason (README: replicas x K <= 512)."""
    docs = renders[k]
    nets, names = [], set()
    ordinal = 0
    while True:
        config, farm = farm_of(Pod(docs, ordinal))
        try:
            check_farm(config, farm)
        except ValueError as exc:
            assert "--farm-index" in str(exc) and f"farms 0 to {ordinal - 1}" in str(exc), exc
            break
        subnets = Subnets(config.pod_cidr, farm.node_cidr_size, first=farm.farm_index * k, limit=k)
        for i in range(k):
            name = name_for(farm.node_name, i)
            assert name == f"fake-node-{ordinal}-{i}"
            names.add(name)
            nets.append(ipaddress.ip_network(subnets.take(name)))
        ordinal += 1
    assert ordinal * k == len(nets) == len(names) and 512 - k < len(nets) <= 512
    assert all(net.subnet_of(ipaddress.ip_network("198.18.0.0/15")) for net in nets)
    nets.sort()
    assert all(not a.overlaps(b) for a, b in zip(nets, nets[1:], strict=False))
    # Each /24 holds the kubelet's maxPods addresses (fakecri keeps the network, gateway and broadcast).
    max_pods = yaml.safe_load(only(docs, "ConfigMap", "fake-kubelet-config")["data"]["kubelet-config.yaml"])["maxPods"]
    assert all(net.num_addresses - 3 >= max_pods for net in nets)


STUB_KUBELET = r"""#!/bin/sh
# A stand-in kubelet: records its arguments and the drop-in kubelets.sh wrote, then waits for
# SIGTERM. STUB_FAIL=NAME makes node NAME's kubelet exit 3 at once, STUB_FAIL_ONCE=NAME only
# the first time.
for a in "$@"; do
  case $a in
    --hostname-override=*) name=${a#*=} ;;
    --config-dir=*) dropins=${a#*=} ;;
  esac
done
runs=$(cat "$STUB_OUT/$name.runs" 2>/dev/null || echo 0)
echo $((runs + 1)) >"$STUB_OUT/$name.runs"
if [ "${STUB_FAIL:-}" = "$name" ] || { [ "${STUB_FAIL_ONCE:-}" = "$name" ] && [ "$runs" = 0 ]; }; then
  exit 3
fi
printf '%s\n' "$@" >"$STUB_OUT/$name.args.tmp"
cp "$dropins/50-node.conf" "$STUB_OUT/$name.conf"
mv "$STUB_OUT/$name.args.tmp" "$STUB_OUT/$name.args"
trap 'kill $sleeper 2>/dev/null; echo stopped >"$STUB_OUT/$name.stopped"; exit 0' TERM
sleep 300 &
sleeper=$!
wait $sleeper
"""


class RunningPod:
    """One pod of the rendered StatefulSet on this machine: the fakecri farm as rendered (this
    checkout's fakecri), the kubelets container's command as rendered with a stand-in kubelet."""

    def __init__(self, docs, ordinal):
        self.pod = Pod(docs, ordinal)
        self.k = nodes_per_pod(docs)
        # Short: the farm's socket paths must fit a unix socket's 107 bytes.
        self.root = Path(tempfile.mkdtemp(prefix="dpod-", dir="/tmp"))
        self.pod.make_volumes(self.root, token="not-a-token", ca=b"not-a-ca")
        self.runs = 0
        bin_dir = self.root / "bin"
        bin_dir.mkdir()
        (bin_dir / "kubelet").write_text(STUB_KUBELET)
        (bin_dir / "kubelet").chmod(0o755)
        base = {k: v for k, v in os.environ.items() if not k.startswith("FAKECRI_")}
        self.fakecri_env = {**base, **self.pod.host_env("fakecri"), "PATH": f"{FAKECRI_BIN}:{base['PATH']}",
                            # The container's own filesystem, and a port of its own network.
                            "FAKECRI_ROOT": str(self.root / "fakecri-root"), "FAKECRI_METRICS_ADDR": "127.0.0.1:0"}
        self.kubelets_env = {**base, **self.pod.host_env("kubelets"), "PATH": f"{bin_dir}:{base['PATH']}"}
        self.procs: list[subprocess.Popen] = []

    def probe(self, which="startupProbe"):
        argv = self.pod.containers["fakecri"][which]["exec"]["command"]
        return subprocess.run([self.pod.here(a) for a in argv], env=self.fakecri_env, capture_output=True,
                              text=True, timeout=30)

    def start_fakecri(self):
        proc = subprocess.Popen(self.pod.argv("fakecri"), env=self.fakecri_env, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        ready = json.loads(proc.stderr.readline())
        # The kubelet starts the next container once the startup probe passes.
        deadline = time.monotonic() + 30
        while (probe := self.probe()).returncode != 0:
            assert time.monotonic() < deadline, probe.stderr
            time.sleep(0.2)
        assert probe.stdout.strip() == "SERVING"
        return ready

    def start_kubelets(self, **env):
        """The kubelets container (again), its stand-in kubelets recording into a new self.out."""
        self.runs += 1
        self.out = self.root / f"stub-out-{self.runs}"
        self.out.mkdir()
        proc = subprocess.Popen(self.pod.argv("kubelets"), env={**self.kubelets_env, "STUB_OUT": str(self.out), **env},
                                stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        return proc

    def wait_for(self, pattern, count, timeout=30):
        deadline = time.monotonic() + timeout
        while len(found := sorted(self.out.glob(pattern))) < count:
            assert time.monotonic() < deadline, f"{len(found)} of {count} {pattern} after {timeout}s"
            time.sleep(0.05)
        return found

    def close(self):
        for proc in reversed(self.procs):
            end(proc)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def pods(renders):
    """{K: pod fake-node-1 of the render with K nodes, fakecri serving}, started when first asked for."""
    started = {}

    def get(k):
        if k not in started:
            started[k] = RunningPod(renders[k], 1)
            started[k].ready = started[k].start_fakecri()
        return started[k]

    yield get
    for p in started.values():
        p.close()


def drop_in(path):
    return yaml.safe_load(path.read_text())


@pytest.mark.parametrize("k", [1, 3])
def test_one_pod_runs_a_farm_and_a_kubelet_per_node_each_with_its_own_name_ports_dirs_socket_and_cidr(
        pods, k):
    pod = pods(k)
    names = [f"fake-node-1-{i}" for i in range(k)]
    assert pod.ready["nodes"] == names
    kubelets = pod.start_kubelets()
    args = {p.name.removesuffix(".args"): p.read_text().splitlines() for p in pod.wait_for("*.args", k)}
    assert sorted(args) == names
    confs = {name: drop_in(pod.out / f"{name}.conf") for name in names}
    vol = pod.root / "volumes"
    rendered_args = pod.pod.argv("kubelets")[3:]  # after sh, kubelets.sh and kubelet
    for i, name in enumerate(sorted(names)):
        a, conf = args[name], confs[name]
        # The rendered flags, then the node's own.
        assert a[:len(rendered_args)] == rendered_args
        assert a[len(rendered_args):] == [f"--hostname-override={name}", f"--root-dir={vol}/kubelet-root/{name}",
                                          f"--cert-dir={vol}/kubelet-root/{name}/pki",
                                          f"--config-dir={vol}/kubelet-root/{name}.conf.d"]
        assert "--node-labels=fakecri.io/fake-node=true,fakecri.io/fake-node-pod=fake-node-1" in a
        assert conf == {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
                        "containerRuntimeEndpoint": f"unix://{vol}/cri-socket/{name}.sock",
                        "port": 10250 + 2 * i, "healthzPort": 10251 + 2 * i,
                        "podLogsDir": f"{vol}/pod-logs/{name}"}
        assert (vol / "cri-socket" / f"{name}.sock").is_socket()
        assert (vol / "pod-logs" / name).is_dir() and (vol / "kubelet-root" / name).is_dir()
    ports = [c[key] for c in confs.values() for key in ("port", "healthzPort")]
    assert len(set(ports)) == 2 * k
    # The farm's nodes, with the pod CIDRs of pod 1: subnets k to 2k-1 of 198.18.0.0/15.
    nodes = subprocess.run([FAKECRI_BIN / "fakecri", "ctl", "nodes"], env=pod.fakecri_env, capture_output=True,
                           text=True, timeout=30, check=True).stdout
    cidrs = {n["name"]: n["pod_cidr"] for n in map(json.loads, nodes.splitlines())}
    assert cidrs == {f"fake-node-1-{i}": f"198.18.{k + i}.0/24" for i in range(k)}
    assert pod.probe("livenessProbe").returncode == 0
    # Stopping the container stops every kubelet and exits 0.
    kubelets.send_signal(signal.SIGTERM)
    assert kubelets.wait(30) == 0, kubelets.stderr.read()
    assert sorted(p.name for p in pod.out.glob("*.stopped")) == [f"{n}.stopped" for n in names]


def test_kubelets_sh_restarts_a_kubelet_that_exits(pods):
    pod = pods(3)
    kubelets = pod.start_kubelets(STUB_FAIL_ONCE="fake-node-1-1", RESTART_DELAY="0")
    pod.wait_for("*.args", 3)
    assert (pod.out / "fake-node-1-1.runs").read_text().strip() == "2"
    assert kubelets.poll() is None
    kubelets.send_signal(signal.SIGTERM)
    assert kubelets.wait(30) == 0
    log = kubelets.stderr.read()
    assert "node fake-node-1-1: kubelet pid" in log and "exited (3); starting it again in 0s (failure 1 of 5)" in log


def test_kubelets_sh_gives_up_on_a_kubelet_that_keeps_failing(pods):
    """The container exits 1, every other kubelet stopped, so Kubernetes restarts it and shows it."""
    pod = pods(3)
    kubelets = pod.start_kubelets(STUB_FAIL="fake-node-1-2", RESTART_DELAY="0", MAX_FAILURES="3")
    assert kubelets.wait(30) == 1
    log = kubelets.stderr.read()
    assert "node fake-node-1-2: kubelet pid" in log and "3 times in a row within 60s of its start: giving up" in log
    assert "the kubelet of fake-node-1-2 kept failing" in log
    assert (pod.out / "fake-node-1-2.runs").read_text().strip() == "3"
    # The others had started and were stopped.
    assert sorted(p.name for p in pod.out.glob("*.stopped")) == ["fake-node-1-0.stopped", "fake-node-1-1.stopped"]


def test_kubelets_sh_waits_for_the_farm_and_says_what_is_missing(renders):
    pod = RunningPod(renders[3], 0)  # no fakecri
    try:
        kubelets = pod.start_kubelets(START_TIMEOUT="1")
        assert kubelets.wait(30) == 1
        log = kubelets.stderr.read()
        assert "holds 0 node sockets, not 3 (and farm.sock: no)" in log, log
    finally:
        pod.close()


def test_kubelets_sh_refuses_flags_it_sets_per_node(tmp_path):
    out = subprocess.run(["sh", str(DEPLOY / "kubelets.sh"), "kubelet", "--port=1"], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 1 and "--port=1 is set per node by kubelets.sh" in out.stderr


def run_kubelet(kubelet, tmp_path, config_text, kubeconfig_text=None, drop_in_text=None):
    """Start the kubelet with these files and a CRI endpoint where nothing listens; it
    stops at the first step that needs the runtime, after loading its configuration."""
    config = tmp_path / "kubelet-config.yaml"
    config.write_text(config_text)
    argv = [str(kubelet), f"--config={config}", f"--root-dir={tmp_path / 'root'}", f"--cert-dir={tmp_path / 'pki'}",
            f"--container-runtime-endpoint=unix://{tmp_path / 'no-runtime.sock'}", "-v=2"]
    if kubeconfig_text is not None:
        (tmp_path / "kubeconfig").write_text(kubeconfig_text)
        argv.append(f"--kubeconfig={tmp_path / 'kubeconfig'}")
    if drop_in_text is not None:
        (tmp_path / "conf.d").mkdir()
        (tmp_path / "conf.d" / "50-node.conf").write_text(drop_in_text)
        argv.append(f"--config-dir={tmp_path / 'conf.d'}")
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
    """The rendered configuration with a drop-in such as kubelets.sh writes (the CRI socket given
    here, where nothing listens)."""
    data = only(rendered, "ConfigMap", "fake-kubelet-config")["data"]
    if not SYSTEM_CA.is_file():
        pytest.skip(f"no CA bundle at {SYSTEM_CA} to stand in for the cluster's CA")
    # The files name the projected token and CA under /etc/kubelet; put stand-ins here.
    (tmp_path / "token").write_text("not-a-real-token\n")
    (tmp_path / "ca.crt").write_bytes(SYSTEM_CA.read_bytes())
    here = {str(PurePosixPath("/etc/kubelet")) + "/": f"{tmp_path}/"}
    kubeconfig, config = data["kubeconfig"], data["kubelet-config.yaml"]
    for old, new in here.items():
        kubeconfig, config = kubeconfig.replace(old, new), config.replace(old, new)
    drop_in = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
               f"port: 24250\nhealthzPort: 24251\npodLogsDir: {tmp_path}/pod-logs/n\n")
    code, log = run_kubelet(kubelet, tmp_path, config, kubeconfig, drop_in)
    assert code != 0
    # It validated the configuration merged with the drop-in, built its API client from the
    # kubeconfig, and went on to the runtime, which is missing here on purpose.
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
