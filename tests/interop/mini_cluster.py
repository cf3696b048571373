"""A real control plane and fake nodes (a kubelet and a fakecri each), for the slow interop tests.

It drives the mini-cluster scripts of the tool kit beside the checkout
(`shared/tools/mini-cluster` in a directory above it, or `FAKECRI_MINI_CLUSTER`): `start.sh` (etcd, apiserver,
controller manager, scheduler on loopback), `add-fake-node.sh` (a kubelet and this
checkout's fakecri in a private mount namespace, so fakecri sees the volumes the kubelet
mounts), `stop.sh`. Each cluster has its own state directory and free ports, so it can run
beside another engineer's. `missing()` says what this machine lacks, for a skip.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KIT = Path(os.environ.get("FAKECRI_MINI_CLUSTER") or next(
    (p / "shared" / "tools" / "mini-cluster" for p in REPO.parents if (p / "shared" / "tools" / "mini-cluster").is_dir()),
    REPO.parent / "shared" / "tools" / "mini-cluster"))  # beside the checkout, or beside the directory of worktrees
BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kubectl")


def _free_ports(n: int) -> list[int]:
    """`n` distinct ports free on loopback now."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            socks.append(s)
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _free_pair() -> int:
    """A free port whose next one is free too (a kubelet's API and healthz ports)."""
    for _ in range(100):
        first = _free_ports(1)[0]
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", first + 1))
            except OSError:
                continue
        return first
    raise RuntimeError("no two free ports in a row")


def fakecri_script() -> Path:
    """This checkout's fakecri console script (the venv running the tests)."""
    return Path(sys.executable).with_name("fakecri")


def missing(bin_dir: Path | None) -> str:
    """Why a cluster cannot run here ("" when it can)."""
    if os.geteuid() != 0:
        return "the mini-cluster needs root (mount namespaces, tmpfs for the kubelet's volumes)"
    if not (KIT / "start.sh").is_file():
        return f"the mini-cluster scripts are not at {KIT} (set FAKECRI_MINI_CLUSTER)"
    if bin_dir is None:
        return "no Kubernetes binaries: set FAKECRI_K8S_BIN to a directory holding " + ", ".join(BINARIES)
    absent = [b for b in BINARIES if not (bin_dir / b).is_file()]
    if absent:
        return f"{', '.join(absent)} not in {bin_dir}"
    for tool in ("openssl", "unshare", "setsid", "flock", "ss", "curl"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if not fakecri_script().is_file():
        return f"no fakecri console script beside {sys.executable}"
    return ""


class MiniCluster:
    def __init__(self, bin_dir: Path, run_dir: Path, *, kubelet_args: str = "") -> None:
        api, etcd, peer, kcm, sched = _free_ports(5)
        kubelet = _free_pair()
        self.run_dir = run_dir
        self.env = dict(os.environ, RUN=str(run_dir), BIN=str(bin_dir), FAKECRI=str(fakecri_script()),
                        API_PORT=str(api), ETCD_CLIENT_PORT=str(etcd), ETCD_PEER_PORT=str(peer), KCM_PORT=str(kcm),
                        SCHED_PORT=str(sched), KUBELET_PORT_BASE=str(kubelet), KUBELET_EXTRA_ARGS=kubelet_args)
        self.kubectl_bin = str(bin_dir / "kubectl")
        self.kubeconfig = str(run_dir / "admin.kubeconfig")

    def _script(self, name: str, *args: str, timeout: float = 180) -> None:
        out = subprocess.run([str(KIT / name), *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            raise RuntimeError(f"{name} {' '.join(args)} failed ({out.returncode}):\n{out.stdout[-3000:]}"
                               f"\n{out.stderr[-3000:]}")

    def start(self, node: str, pod_cidr: str) -> None:
        try:
            self._script("start.sh")
        except RuntimeError:  # a component that was slow to come up: once more, from scratch
            self.stop()
            self._script("start.sh")
        self._script("add-fake-node.sh", node, pod_cidr)
        self.wait(lambda: self.kubectl("get", "serviceaccount", "default", check=False).returncode == 0, 60,
                  "the default service account")

    def stop(self) -> None:
        subprocess.run([str(KIT / "stop.sh")], env=self.env, capture_output=True, timeout=120)

    def kubectl(self, *args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        out = subprocess.run([self.kubectl_bin, "--kubeconfig", self.kubeconfig, *args], input=stdin,
                             capture_output=True, text=True, timeout=60)
        if check and out.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: {out.stderr.strip()}")
        return out

    def apply(self, manifest: str) -> None:
        self.kubectl("apply", "-f", "-", stdin=manifest)

    def pod(self, name: str) -> dict:
        return json.loads(self.kubectl("get", "pod", name, "-o", "json").stdout)

    def logs(self, pod: str, container: str = "", *, check: bool = True) -> str:
        """What the container wrote (`check=False`: "" while it cannot tell, as before the start)."""
        out = self.kubectl("logs", pod, *(["-c", container] if container else []), check=check)
        return out.stdout if out.returncode == 0 else ""

    @staticmethod
    def wait(ready, timeout: float, what: str, step: float = 1.0):
        deadline = time.monotonic() + timeout
        while True:
            got = ready()
            if got:
                return got
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(step)

    def finished(self, name: str, timeout: float = 90) -> dict:
        """The pod once it succeeded or failed (its JSON)."""
        def done():
            pod = self.pod(name)
            return pod if pod["status"].get("phase") in ("Succeeded", "Failed") else None
        return self.wait(done, timeout, f"pod {name} to finish")

    def node_log_tail(self, node: str, lines: int = 40) -> str:
        out = []
        for name in ("fakecri.log", "kubelet.log"):
            path = self.run_dir / "nodes" / node / name
            if path.is_file():
                out.append(f"--- {name}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-lines:]))
        return "\n".join(out)
