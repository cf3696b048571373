"""A real control plane and a fake node (a real kubelet on this checkout's fakecri), for the
slow interop tests.

It drives the mini-cluster scripts of the tool kit beside the checkout
(`shared/tools/mini-cluster` in a directory above it, or `FAKECRI_MINI_CLUSTER`): `start.sh`
(etcd, apiserver, controller manager, scheduler on loopback), `add-fake-node.sh` (a kubelet
and this checkout's fakecri in a private mount namespace, so fakecri sees the volumes the
kubelet mounts), `stop.sh`. Each cluster has its own state directory and ports found free
just before, so it can run beside another engineer's. `usable()` says why this machine
cannot run one (not root, a binary, script or host tool missing), for a skip. Every wait is
bounded.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from helpers.polling import first_true

from interop.conftest import REPO, find_binary

BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kubectl")
HOST_TOOLS = ("openssl", "curl", "unshare", "setsid", "flock", "ss")
NODE = "fn1"
# The kubelet's default hard eviction thresholds (imagefs under 15 % free, nodefs under 10 %)
# are about the host's disk, which fakecri reports as its image and container filesystems,
# as containerd reports its root's. On a shared host with little disk left the node would be
# tainted disk-pressure and take no pods; the cluster is about the runtime, so only a host
# that is really out of space (or memory) stops it.
EVICTION_HARD = ("--eviction-hard=memory.available<1Mi,nodefs.available<1%,nodefs.inodesFree<1%,"
                 "imagefs.available<1%,imagefs.inodesFree<1%")
POD_CIDR = os.environ.get("FAKECRI_MC_POD_CIDR", "127.93.1.0/24")


def scripts_dir() -> Path | None:
    """The mini-cluster scripts: `FAKECRI_MINI_CLUSTER`, or `shared/tools/mini-cluster` in a
    directory above the checkout (beside it, or beside the directory of worktrees)."""
    env = os.environ.get("FAKECRI_MINI_CLUSTER")
    candidates = [Path(env)] if env else [p / "shared" / "tools" / "mini-cluster" for p in REPO.parents]
    return next((p for p in candidates if (p / "start.sh").is_file()), None)


def fakecri_script() -> Path:
    """This checkout's fakecri console script (the venv running the tests)."""
    return Path(sys.executable).with_name("fakecri")


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
    if not fakecri_script().is_file():
        return f"no fakecri console script beside {sys.executable}"
    return ""


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


def _is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def _free_base() -> int:
    """A kubelet port base (its API and healthz ports) with the port after it free too, on every address."""
    for _ in range(50):
        base = _free_ports(1)[0]
        if base < 65000 and all(_is_free(p) for p in (base, base + 1)):
            return base
    raise RuntimeError("no two free ports in a row")


@contextlib.contextmanager
def running(make: Callable[[], MiniCluster] | None = None, *, env: Mapping[str, str] | None = None,
            **start: str) -> Iterator[MiniCluster]:
    """A module's cluster: `make()` (default MiniCluster()) with `env` added to its scripts'
    environment, started with `start` (node, pod_cidr), stopped after; where no cluster can
    run here the test is skipped, saying why."""
    why = usable()
    if why:
        pytest.skip(why)
    cluster = make() if make is not None else MiniCluster()
    cluster.env.update(env or {})
    try:
        yield cluster.start(**start)
    finally:
        cluster.stop()


class MiniCluster:
    """One cluster: `start()`, then kubectl and pod helpers, then `stop()`. `run_dir`: its state
    directory (by default a temporary one, removed at the stop unless FAKECRI_MC_KEEP=1 keeps it
    for a look); `kubelet_args`: more flags for the node's kubelet (after `EVICTION_HARD`, so one of its
    own `--eviction-hard` wins)."""

    def __init__(self, run_dir: Path | None = None, *, kubelet_args: str = "") -> None:
        self.owns_run_dir = run_dir is None
        self.run_dir = run_dir if run_dir is not None else Path(tempfile.mkdtemp(prefix="fakecri-mc-"))
        self.kubeconfig = self.run_dir / "admin.kubeconfig"
        self.node = NODE
        api, etcd, peer, kcm, sched = _free_ports(5)
        kubelet = find_binary("kubelet")
        assert kubelet is not None
        self.env = {**os.environ, "RUN": str(self.run_dir), "BIN": str(kubelet.parent),
                    "FAKECRI": str(fakecri_script()),
                    "API_PORT": str(api), "ETCD_CLIENT_PORT": str(etcd), "ETCD_PEER_PORT": str(peer),
                    "KCM_PORT": str(kcm), "SCHED_PORT": str(sched), "KUBELET_PORT_BASE": str(_free_base()),
                    "KUBELET_EXTRA_ARGS": f"{EVICTION_HARD} {kubelet_args}".strip(), "NODE_READY_TIMEOUT": "90"}
        self.scripts = scripts_dir()
        self.kubectl_bin = str(find_binary("kubectl"))

    def _script(self, *argv: str, timeout: float) -> None:
        assert self.scripts is not None
        done = subprocess.run([str(self.scripts / argv[0]), *argv[1:]], env=self.env, capture_output=True, text=True,
                              timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-3000:]}\n"
                               f"{done.stderr[-3000:]}")

    def start(self, node: str = NODE, pod_cidr: str = POD_CIDR) -> MiniCluster:
        """The control plane, then one fake node `node` with `pod_cidr`; ready for pods."""
        self.node = node
        try:
            self._script("start.sh", timeout=240)
        except RuntimeError:  # a component that was slow to come up: once more, from scratch
            self._stop_scripts()
            self._script("start.sh", timeout=240)
        self._script("add-fake-node.sh", node, pod_cidr, timeout=180)
        self.until(lambda: self.kubectl("get", "serviceaccount", "default", check=False) != "", 60,
                   "the default service account")
        return self

    def _stop_scripts(self) -> None:
        if self.scripts is not None:
            subprocess.run([str(self.scripts / "stop.sh")], env=self.env, capture_output=True, timeout=180)

    def stop(self) -> None:
        """Stop everything it started; a state directory it made goes too (unless FAKECRI_MC_KEEP)."""
        self._stop_scripts()
        if self.owns_run_dir and not os.environ.get("FAKECRI_MC_KEEP"):
            shutil.rmtree(self.run_dir, ignore_errors=True)

    @property
    def node_dir(self) -> Path:
        return self.run_dir / "nodes" / self.node

    def node_log_tail(self, lines: int = 40) -> str:
        """The last lines of the node's fakecri and kubelet logs, for a failure's message."""
        out = []
        for name in ("fakecri.log", "kubelet.log"):
            path = self.node_dir / name
            if path.is_file():
                out.append(f"--- {name}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-lines:]))
        return "\n".join(out)

    # ------------------------------------------------------------ kubectl

    def kubectl(self, *args: str, input: str | None = None, check: bool = True, timeout: float = 60) -> str:
        """What kubectl printed; AssertionError when it fails (`check=False`: "" then)."""
        done = subprocess.run([self.kubectl_bin, "--kubeconfig", str(self.kubeconfig), *args], input=input,
                              capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            if check:
                raise AssertionError(f"kubectl {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
            return ""
        return done.stdout

    def apply(self, manifest: str) -> None:
        self.kubectl("apply", "-f", "-", input=manifest)

    def pod(self, name: str) -> dict[str, Any]:
        return json.loads(self.kubectl("get", "pod", name, "-o", "json"))

    def logs(self, name: str, container: str = "", *, previous: bool = False, check: bool = True) -> str:
        """What the container wrote (`check=False`: "" while it cannot tell, as before the start)."""
        args = ["logs", name] + (["-c", container] if container else []) + (["--previous"] if previous else [])
        return self.kubectl(*args, check=check)

    def exec(self, name: str, *argv: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.kubectl_bin, "--kubeconfig", str(self.kubeconfig), "exec", name, "--", *argv],
                              capture_output=True, text=True, timeout=60, check=check)

    def status(self, name: str, container: str = "") -> dict[str, Any]:
        statuses = self.pod(name)["status"].get("containerStatuses", [])
        return next(s for s in statuses if not container or s["name"] == container)

    # ------------------------------------------------------------ waiting

    @staticmethod
    def until(ready: Callable[[], Any], timeout: float, what: str, step: float = 1.0) -> Any:
        """Poll `ready()` until it gives something true, and return that; AssertionError naming
        `what` after `timeout` s."""
        got = first_true(ready, timeout, step)
        if got is None:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        return got

    def wait(self, name: str, done: Callable[[dict[str, Any]], bool], what: str, timeout: float = 90) -> dict[str, Any]:
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

    def finished(self, name: str, timeout: float = 90) -> dict[str, Any]:
        """The pod once it succeeded or failed (its JSON)."""
        return self.wait_phase(name, "Succeeded", "Failed", timeout=timeout)

    def wait_ready(self, name: str, timeout: float = 90) -> dict[str, Any]:
        def ready(p: dict[str, Any]) -> bool:
            conditions = p.get("status", {}).get("conditions", [])
            return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)
        return self.wait(name, ready, "Ready", timeout)
