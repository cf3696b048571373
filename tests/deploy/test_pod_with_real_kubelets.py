"""One pod of deploy/ with K = 3 (DEPLOY_TEST_NODES), run here as rendered, with the real kubelet, against a real
API server: the nodes register, turn Ready, run pods, and serve logs and exec through the API
server on the ports kubelets.sh gave them.

What stands in for the cluster, all in a network and mount namespace of the test's own (the
pod's network, so the rendered ports are used as they are and nothing collides with this
machine's): etcd and kube-apiserver (on kubernetes.default.svc:443, through /etc/hosts in the
mount namespace), a CA the test makes (the cluster CA, which kube-root-ca.crt would hold; it
signs the API server's serving certificate and its kubelet-client certificate), the rendered
objects applied to that API server, and a token of the `fake-kubelet` ServiceAccount from the
TokenRequest API (the projected token). The pod's volumes are directories here; the containers'
commands run with their paths moved there (tests/helpers/deploy.py), fakecri from this
checkout, the kubelet from FAKECRI_K8S_BIN or PATH. Two things differ from a pod: fakecri's own
filesystem (FAKECRI_ROOT) is a directory here, and the kubelet's hard-coded paths
(/var/lib/kubelet, /var/log/containers) get a tmpfs in the mount namespace.

Needs root, the kubelet, etcd and kube-apiserver (v1.36), kubectl, unshare, nsenter and ip;
skips saying which is missing. Runs only with --run-slow.
"""
from __future__ import annotations

import datetime
import ipaddress
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from helpers.deploy import Pod, kubectl, render
from helpers.polling import first_true
from interop.conftest import WHERE_TO_GET, find_binary, where_looked

pytestmark = pytest.mark.slow

K = int(os.environ.get("DEPLOY_TEST_NODES", "3"))  # nodes in the pod; try the default, 10, with DEPLOY_TEST_NODES=10
ORDINAL = 1
POD_IP = "192.0.2.10"  # TEST-NET-1: the pod's address in its network namespace
FAKECRI_BIN = Path(sys.executable).parent
NAMES = [f"fake-node-{ORDINAL}-{i}" for i in range(K)]


def _need(name: str, where: str = "") -> str:
    path = find_binary(name) if name in WHERE_TO_GET or name in ("etcd", "kube-apiserver") else shutil.which(name)
    if path is None:
        how = WHERE_TO_GET.get(name, where)
        pytest.skip(f"{name} not found in {where_looked() if name != 'ip' else 'PATH'}" + (f"; {how}" if how else ""))
    return str(path)


@pytest.fixture(scope="module")
def tools():
    if os.geteuid() != 0:
        pytest.skip("the kubelet, and the network and mount namespace of the pod, need root")
    if kubectl() is None:
        pytest.skip("kubectl not found on PATH: cannot render deploy/")
    pytest.importorskip("cryptography", reason="the test's CA is made with the cryptography package")
    control_plane = "etcd and kube-apiserver v1.36, from the Kubernetes release (https://kubernetes.io/releases/download/)"
    return {"kubelet": _need("kubelet"), "etcd": _need("etcd", control_plane),
            "kube-apiserver": _need("kube-apiserver", control_plane), "kubectl": kubectl(),
            "unshare": _need("unshare", "util-linux"), "nsenter": _need("nsenter", "util-linux"),
            "ip": _need("ip", "iproute2")}


def make_pki(d: Path) -> dict[str, Path]:
    """A cluster CA; the API server's serving and kubelet-client certificates; the
    ServiceAccount signing key."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)

    def key():
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def write_key(k, path):
        path.write_bytes(k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                         serialization.NoEncryption()))

    def name(cn, org=None):
        attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
        if org:
            attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
        return x509.Name(attrs)

    ca_key = key()
    ca = (x509.CertificateBuilder().subject_name(name("fake-node-test-ca")).issuer_name(name("fake-node-test-ca"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    out = {"ca.crt": d / "ca.crt"}
    out["ca.crt"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))

    def issue(stem, subject, usage, sans=None):
        k = key()
        b = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca.subject).public_key(k.public_key())
             .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
             .not_valid_after(now + datetime.timedelta(days=1))
             .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
        if sans:
            b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        (d / f"{stem}.crt").write_bytes(b.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))
        write_key(k, d / f"{stem}.key")
        out[f"{stem}.crt"], out[f"{stem}.key"] = d / f"{stem}.crt", d / f"{stem}.key"

    dns = ["kubernetes.default.svc", "kubernetes.default", "kubernetes", "localhost"]
    ips = ["127.0.0.1", POD_IP, "10.96.0.1"]
    issue("apiserver", name("kube-apiserver"), ExtendedKeyUsageOID.SERVER_AUTH,
          [x509.DNSName(n) for n in dns] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips])
    issue("apiserver-kubelet-client", name("kube-apiserver-kubelet-client", "system:masters"),
          ExtendedKeyUsageOID.CLIENT_AUTH)
    sa = key()
    write_key(sa, d / "sa.key")
    (d / "sa.pub").write_bytes(sa.public_key().public_bytes(serialization.Encoding.PEM,
                                                            serialization.PublicFormat.SubjectPublicKeyInfo))
    out["sa.key"], out["sa.pub"] = d / "sa.key", d / "sa.pub"
    return out


class World:
    """The pod's network and mount namespace, and the processes started in it."""

    def __init__(self, tools, root: Path):
        self.tools = tools
        self.root = root
        self.logs = root / "logs"
        self.logs.mkdir()
        self.procs: list[tuple[str, subprocess.Popen]] = []
        holder = subprocess.Popen([tools["unshare"], "--mount", "--net", "--propagation", "private",
                                   "sleep", "infinity"])
        self.holder = holder
        deadline = time.monotonic() + 10
        while os.readlink(f"/proc/{holder.pid}/ns/net") == os.readlink("/proc/self/ns/net"):
            assert time.monotonic() < deadline, "unshare did not make a network namespace"
            time.sleep(0.05)
        hosts = root / "hosts"
        hosts.write_text(f"127.0.0.1 localhost\n{POD_IP} kubernetes.default.svc kubernetes.default kubernetes "
                         f"fake-node-{ORDINAL}\n")
        for path in ("/var/lib/kubelet", "/var/log/containers"):
            os.makedirs(path, exist_ok=True)  # mount points for the tmpfs below, as the mini-cluster makes them
        ip = tools["ip"]
        self.sh(f"""
            {ip} link set lo up
            {ip} link add eth0 type veth peer name eth1
            {ip} addr add {POD_IP}/24 dev eth0
            {ip} link set eth0 up
            {ip} link set eth1 up
            {ip} route add default via 192.0.2.1 dev eth0
            mount --bind {hosts} /etc/hosts
            mount -t tmpfs -o size=256m fake-node-kubelet /var/lib/kubelet
            mount -t tmpfs -o size=64m fake-node-containers /var/log/containers
        """)

    def enter(self) -> list[str]:
        return [self.tools["nsenter"], "-t", str(self.holder.pid), "-m", "-n", "--"]

    def sh(self, script: str) -> None:
        out = subprocess.run([*self.enter(), "sh", "-ec", script], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr

    def start(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "w")
        proc = subprocess.Popen([*self.enter(), *argv], env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.procs.append((name, proc))
        return proc

    def run(self, argv: list[str], env: dict[str, str] | None = None, timeout: float = 60):
        return subprocess.run([*self.enter(), *argv], env=env, capture_output=True, text=True, timeout=timeout)

    def tail(self, name: str, lines: int = 40) -> str:
        text = (self.logs / f"{name}.log").read_text(errors="replace").splitlines()
        return "\n".join(line for line in text if "FLAG:" not in line)[-6000:] if lines else ""

    def close(self) -> None:
        for _, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for _, proc in reversed(self.procs):
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.holder.kill()
        self.holder.wait()


STARTED = time.monotonic()


def rss(pid: int) -> int:
    """A process's resident memory in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def kubelet_rss(script_pid: int) -> list[int]:
    """The resident memory of each kubelet kubelets.sh (pid `script_pid`) runs: its loops' children."""
    parents = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        parents[int(status.parent.name)] = int(fields.get("PPid", "0"))
    loops = {pid for pid, parent in parents.items() if parent == script_pid}
    return sorted(rss(pid) for pid, parent in parents.items() if parent in loops)


def wait_until(what: str, check, timeout: float, detail=lambda: ""):
    result = first_true(check, timeout, 0.5)
    if result is None:
        raise AssertionError(f"{what}: not after {timeout}s\n{detail()}")
    print(f"{time.monotonic() - STARTED:6.1f}s {what}")
    return result


def test_a_pod_of_k_fake_nodes_registers_runs_pods_and_serves_logs_and_exec(tools, tmp_path):
    docs = render(tmp_path, nodes=K, replicas=2)
    root = Path(tempfile.mkdtemp(prefix="dreal-", dir="/tmp"))  # short: socket paths must fit 107 bytes
    world = None
    try:
        pki = make_pki(root)
        world = World(tools, root)
        # The control plane.
        world.start("etcd", [tools["etcd"], "--data-dir", str(root / "etcd"), "--listen-client-urls",
                             "http://127.0.0.1:2379", "--advertise-client-urls", "http://127.0.0.1:2379",
                             "--listen-peer-urls", "http://127.0.0.1:2380", "--unsafe-no-fsync", "--log-level",
                             "warn"])
        (root / "tokens.csv").write_text('admin-token,admin,admin,"system:masters"\n')
        world.start("kube-apiserver", [
            tools["kube-apiserver"], "--secure-port=443", f"--advertise-address={POD_IP}",
            "--etcd-servers=http://127.0.0.1:2379", "--service-cluster-ip-range=10.96.0.0/16",
            f"--client-ca-file={pki['ca.crt']}", f"--tls-cert-file={pki['apiserver.crt']}",
            f"--tls-private-key-file={pki['apiserver.key']}",
            f"--kubelet-client-certificate={pki['apiserver-kubelet-client.crt']}",
            f"--kubelet-client-key={pki['apiserver-kubelet-client.key']}",
            "--kubelet-preferred-address-types=InternalIP,Hostname",
            "--service-account-issuer=https://kubernetes.default.svc", f"--service-account-key-file={pki['sa.pub']}",
            f"--service-account-signing-key-file={pki['sa.key']}", "--authorization-mode=Node,RBAC",
            "--enable-admission-plugins=NodeRestriction", f"--token-auth-file={root / 'tokens.csv'}",
            "--allow-privileged=true", "--profiling=false", "--v=1"])
        admin = root / "admin.kubeconfig"
        admin.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "admin",
            "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:443",
                                                   "certificate-authority": str(pki["ca.crt"])}}],
            "users": [{"name": "admin", "user": {"token": "admin-token"}}],
            "contexts": [{"name": "admin", "context": {"cluster": "c", "user": "admin"}}]}))

        def k(*args, timeout=60):
            return world.run([tools["kubectl"], f"--kubeconfig={admin}", *args], timeout=timeout)

        wait_until("the API server /readyz", lambda: k("get", "--raw", "/readyz").stdout == "ok", 120,
                   lambda: world.tail("kube-apiserver"))
        # The rendered objects, as `kubectl apply -k deploy/` sends them (nothing runs the StatefulSet here).
        (root / "rendered.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
        applied = k("apply", "-f", str(root / "rendered.json"))
        assert applied.returncode == 0, applied.stderr
        token = k("create", "token", "fake-kubelet", "-n", "fakecri-nodes", "--duration=1h")
        assert token.returncode == 0, token.stderr

        # The pod.
        pod = Pod(docs, ORDINAL)
        pod.make_volumes(root, token=token.stdout.strip(), ca=pki["ca.crt"].read_bytes())
        base = {k_: v for k_, v in os.environ.items() if not k_.startswith("FAKECRI_")}
        fakecri_env = {**base, **pod.host_env("fakecri"), "PATH": f"{FAKECRI_BIN}:{base['PATH']}",
                       "FAKECRI_ROOT": str(root / "fakecri-root")}
        fakecri_proc = world.start("fakecri", pod.argv("fakecri"), fakecri_env)
        probe = [pod.here(a) for a in pod.containers["fakecri"]["startupProbe"]["exec"]["command"]]
        wait_until("fakecri's startup probe", lambda: world.run(probe, fakecri_env).returncode == 0, 60,
                   lambda: world.tail("fakecri"))
        kubelet_dir = str(Path(tools["kubelet"]).parent)
        kubelets_env = {**base, **pod.host_env("kubelets"), "PATH": f"{kubelet_dir}:{base['PATH']}"}
        kubelets = world.start("kubelets", pod.argv("kubelets"), kubelets_env)

        # The K nodes register and turn Ready.
        def ready_nodes():
            out = k("get", "nodes", "-o", "json")
            if out.returncode != 0:
                return None
            items = {n["metadata"]["name"]: n for n in json.loads(out.stdout)["items"]}
            ready = {name: n for name, n in items.items()
                     if any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"].get("conditions", []))}
            assert kubelets.poll() is None, world.tail("kubelets")
            return ready if sorted(ready) == NAMES else None

        # Generous: a kubelet that registers its Node late (about 20 s after it starts, on a busy
        # machine) waits out its CSINode initialisation's last back-off (about 2 minutes) before Ready.
        nodes = wait_until(f"{K} Ready nodes", ready_nodes, 400, lambda: world.tail("kubelets"))
        farm = {n["name"]: n for n in map(json.loads, world.run(
            [str(FAKECRI_BIN / "fakecri"), "ctl", "nodes"], fakecri_env).stdout.splitlines())}
        assert sorted(farm) == NAMES
        for i, name in enumerate(NAMES):
            node = nodes[name]
            assert node["metadata"]["labels"]["fakecri.io/fake-node"] == "true"
            assert node["metadata"]["labels"]["fakecri.io/fake-node-pod"] == f"fake-node-{ORDINAL}"
            assert {"key": "fakecri.io/fake-node", "value": "true", "effect": "NoSchedule"} in node["spec"]["taints"]
            assert node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"] == 10250 + 2 * i
            assert {"type": "InternalIP", "address": POD_IP} in node["status"]["addresses"]
            assert farm[name]["pod_cidr"] == f"198.18.{K * ORDINAL + i}.0/24"

        # A pod on each node: Running, with an IP from that node's range.
        assert k("create", "namespace", "demo").returncode == 0
        assert k("create", "serviceaccount", "default", "-n", "demo").returncode == 0  # no controller-manager here
        pods = {"apiVersion": "v1", "kind": "List", "items": [{
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"web-{i}", "namespace": "demo"},
            "spec": {"nodeName": name, "automountServiceAccountToken": False,
                     "tolerations": [{"key": "fakecri.io/fake-node", "operator": "Exists", "effect": "NoSchedule"}],
                     "containers": [{"name": "web", "image": "busybox:1.36",
                                     "command": ["sh", "-c", f"echo hello from {name}; sleep 3600"]}]}}
            for i, name in enumerate(NAMES)]}
        (root / "pods.json").write_text(json.dumps(pods))
        created = k("apply", "-f", str(root / "pods.json"))
        assert created.returncode == 0, created.stderr

        def running_pods():
            out = json.loads(k("get", "pods", "-n", "demo", "-o", "json").stdout)["items"]
            running = {p["spec"]["nodeName"]: p for p in out if p["status"].get("phase") == "Running"}
            return running if sorted(running) == NAMES else None

        running = wait_until("a Running pod on each node", running_pods, 120, lambda: world.tail("kubelets"))
        for name, p in running.items():
            assert ipaddress.ip_address(p["status"]["podIP"]) in ipaddress.ip_network(farm[name]["pod_cidr"])

        # The API server reaches each kubelet on its own port (its client certificate checked
        # against the cluster CA): logs from the node's own pod log directory, and exec.
        for i, name in enumerate(NAMES):
            logs = wait_until(f"logs of web-{i}", lambda i=i: k("logs", "-n", "demo", f"web-{i}").stdout, 30)
            assert logs.strip() == f"hello from {name}"
            assert any((root / "volumes" / "pod-logs" / name).glob(f"demo_web-{i}_*"))
            execd = k("exec", "-n", "demo", f"web-{i}", "--", "echo", f"hi {i}")
            assert execd.returncode == 0 and execd.stdout.strip() == f"hi {i}", execd.stderr
        # Each kubelet its own serving certificate, under its own root dir.
        for name in NAMES:
            assert (root / "volumes" / "kubelet-root" / name / "pki" / "kubelet.crt").is_file()
        assert not (root / "volumes" / "kubelet-root" / "pki").exists()
        # What the pod's processes hold now (memory for README's per-node figures).
        print(f"memory: fakecri {rss(fakecri_proc.pid)} MiB for {K} nodes; kubelets "
              f"{', '.join(f'{m} MiB' for m in kubelet_rss(kubelets.pid))}")
        # fakecri's liveness probe still passes with K kubelets calling it.
        live = [pod.here(a) for a in pod.containers["fakecri"]["livenessProbe"]["exec"]["command"]]
        assert world.run(live, fakecri_env).stdout.strip() == "SERVING"

        # Stopping the container stops every kubelet, and the script exits 0.
        kubelets.send_signal(signal.SIGTERM)
        assert kubelets.wait(60) == 0, world.tail("kubelets")
        assert "every kubelet stopped" in world.tail("kubelets")
    finally:
        if world is not None:
            world.close()
        if os.environ.get("KEEP_POD_DIR"):
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
