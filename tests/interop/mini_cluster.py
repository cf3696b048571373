"""A real control plane on loopback with one fake node (a real kubelet on this checkout's
fakecri), started by the tool kit's mini-cluster scripts, for the slow interop tests.

`MiniCluster.start()` runs `start.sh` and `add-fake-node.sh` under a state directory of its
own, on ports found free just before, and `stop()` runs `stop.sh` with the same settings.
`usable()` says why this machine cannot run one (not root, a binary or script missing).
Every wait is bounded.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from interop.conftest import REPO, find_binary

BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kubectl")
HOST_TOOLS = ("openssl", "curl", "unshare", "setsid", "flock", "ss")
NODE = "fn1"
POD_CIDR = os.environ.get("FAKECRI_MC_POD_CIDR", "127.93.1.0/24")


def scripts_dir() -> Path | None:
    env = os.environ.get("FAKECRI_MINI_CLUSTER")
    candidates = [Path(env)] if env else [REPO.parent / "shared" / "tools" / "mini-cluster",
                                          REPO.parent.parent / "shared" / "tools" / "mini-cluster"]
    return next((p for p in candidates if (p / "start.sh").is_file()), None)


def usable() -> str:
    """Why a mini cluster cannot run here ("" when it can)."""
    if os.geteuid() != 0:
        return "the mini cluster runs as root (its nodes mount tmpfs in a namespace of their own)"
    if scripts_dir() is None:
        return "the tool kit's mini-cluster scripts were not found (set FAKECRI_MINI_CLUSTER to their directory)"
    missing = [b for b in BINARIES if find_binary(b) is None]
    if missing:
        return f"{', '.join(missing)} not found (set FAKECRI_K8S_BIN to a directory holding them, or put them on PATH)"
    tools = [t for t in HOST_TOOLS if shutil.which(t) is None]
    if tools:
        return f"host tools missing: {', '.join(tools)}"
    return ""


def _free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _free_base() -> int:
    """A kubelet port base with the port after it free too (on every loopback address)."""
    for _ in range(50):
        base = _free_ports(1)[0]
        if base < 65000 and all(_is_free(p) for p in (base, base + 1)):
            return base
    raise RuntimeError("no two free ports in a row")


def _is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


class MiniCluster:
    def __init__(self) -> None:
        self.run_dir = Path(tempfile.mkdtemp(prefix="fakecri-mc-"))
        self.kubeconfig = self.run_dir / "admin.kubeconfig"
        api, etcd, peer, kcm, sched = _free_ports(5)
        kit = find_binary("kubelet")
        assert kit is not None
        self.env = {**os.environ, "RUN": str(self.run_dir), "API_PORT": str(api), "ETCD_CLIENT_PORT": str(etcd),
                    "ETCD_PEER_PORT": str(peer), "KCM_PORT": str(kcm), "SCHED_PORT": str(sched),
                    "KUBELET_PORT_BASE": str(_free_base()), "BIN": str(kit.parent),
                    "FAKECRI": str(Path(sys.executable).parent / "fakecri"), "NODE_READY_TIMEOUT": "90"}
        self.scripts = scripts_dir()
        self.kubectl_bin = str(find_binary("kubectl"))

    def _script(self, *argv: str, timeout: float) -> None:
        assert self.scripts is not None
        done = subprocess.run([str(self.scripts / argv[0]), *argv[1:]], env=self.env, capture_output=True, text=True,
                              timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-3000:]}")

    def start(self) -> MiniCluster:
        self._script("start.sh", timeout=240)
        self._script("add-fake-node.sh", NODE, POD_CIDR, timeout=180)
        return self

    def stop(self) -> None:
        """Stop everything it started; its state directory goes too (FAKECRI_MC_KEEP=1 keeps it for a look)."""
        if self.scripts is not None:
            subprocess.run([str(self.scripts / "stop.sh")], env=self.env, capture_output=True, timeout=180)
        if not os.environ.get("FAKECRI_MC_KEEP"):
            shutil.rmtree(self.run_dir, ignore_errors=True)

    @property
    def node_dir(self) -> Path:
        return self.run_dir / "nodes" / NODE

    # ------------------------------------------------------------ kubectl

    def kubectl(self, *args: str, input: str | None = None, check: bool = True, timeout: float = 60) -> str:
        done = subprocess.run([self.kubectl_bin, "--kubeconfig", str(self.kubeconfig), *args], input=input,
                              capture_output=True, text=True, timeout=timeout)
        if check and done.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def apply(self, manifest: str) -> None:
        self.kubectl("apply", "-f", "-", input=manifest)

    def pod(self, name: str) -> dict[str, Any]:
        return json.loads(self.kubectl("get", "pod", name, "-o", "json"))

    def wait(self, name: str, done, what: str, timeout: float = 90) -> dict[str, Any]:
        """Poll pod `name` until `done(pod)` holds; AssertionError naming `what` after `timeout` s."""
        deadline = time.monotonic() + timeout
        pod: dict[str, Any] = {}
        while time.monotonic() < deadline:
            pod = self.pod(name)
            if done(pod):
                return pod
            time.sleep(1)
        raise AssertionError(f"pod {name}: not {what} after {timeout} s: {json.dumps(pod.get('status'))[:2000]}")

    def wait_phase(self, name: str, *phases: str, timeout: float = 90) -> dict[str, Any]:
        return self.wait(name, lambda p: p.get("status", {}).get("phase") in phases, "in " + "/".join(phases), timeout)

    def wait_ready(self, name: str, timeout: float = 90) -> dict[str, Any]:
        def ready(p: dict[str, Any]) -> bool:
            conditions = p.get("status", {}).get("conditions", [])
            return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)
        return self.wait(name, ready, "Ready", timeout)

    def logs(self, name: str, container: str = "", *, previous: bool = False) -> str:
        args = ["logs", name] + (["-c", container] if container else []) + (["--previous"] if previous else [])
        return self.kubectl(*args)

    def exec(self, name: str, *argv: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.kubectl_bin, "--kubeconfig", str(self.kubeconfig), "exec", name, "--", *argv],
                              capture_output=True, text=True, timeout=60, check=check)

    def status(self, name: str, container: str = "") -> dict[str, Any]:
        statuses = self.pod(name)["status"].get("containerStatuses", [])
        return next(s for s in statuses if not container or s["name"] == container)
