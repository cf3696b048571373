"""A real standalone kubelet against a fakecri socket, for the slow interop tests.

It runs through the tool kit's `kubelet-standalone.sh` (its own mount namespace, static
pods from WORKDIR/manifests, API on https://127.0.0.1:10250 by default). A kubelet holds a
machine-wide lock on its port (`flock` on /tmp/kubelet.lock for 10250, /tmp/kubelet-PORT.lock
for another) while it lives; kubelets on other ports and node names run side by side.
"""
from __future__ import annotations

import json
import os
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest
from helpers.polling import first_true

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc

LOCK = "/tmp/kubelet.lock"
NODE = "fakecri-node"
PORT, HEALTHZ_PORT = 10250, 10248

# Crash-loop back-off capped at 2 s (instead of 5 min), so a crashing container restarts
# a handful of times within a minute. The drop-in repeats the kit's cgroup settings,
# which a drop-in merge would otherwise default back.
FAST_BACKOFF_DROPIN = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
featureGates: {KubeletCrashLoopBackOffMax: true}
crashLoopBackOff: {maxContainerRestartPeriod: 2s}
cgroupsPerQOS: false
enforceNodeAllocatable: ["none"]
"""


class Kubelet:
    """Start with `start()`, stop with `stop()` (or use as a context manager)."""

    def __init__(self, script: Path, socket: str, workdir: Path, *, evented: bool, lock_wait_s: float = 900,
                 gates: dict[str, bool] | None = None, config: str = "", args: tuple[str, ...] = (),
                 node: str = NODE, port: int = PORT, healthz_port: int = HEALTHZ_PORT) -> None:
        """`gates`: more feature gates; `config`: more KubeletConfiguration lines (a drop-in);
        `args`: more kubelet flags (a later -v wins over the kit's -v=2); `node`, `port` and
        `healthz_port` for a kubelet beside others (a farm's nodes)."""
        self.script, self.socket, self.workdir, self.evented = script, socket, workdir, evented
        self.gates, self.config, self.args = dict(gates or {}), config, tuple(args)
        self.lock_wait_s = lock_wait_s
        self.node, self.port, self.healthz_port = node, port, healthz_port
        self.lock = LOCK if port == PORT else f"/tmp/kubelet-{port}.lock"
        self.api = f"https://127.0.0.1:{port}"
        self.manifests = workdir / "manifests"
        self.log_path = workdir / "kubelet.log"
        self.proc: subprocess.Popen | None = None
        self._ctx = ssl.create_default_context()
        self._ctx.check_hostname = False
        self._ctx.verify_mode = ssl.CERT_NONE

    def start(self) -> Kubelet:
        self.manifests.mkdir(parents=True, exist_ok=True)
        dropin = self.workdir / "kubelet.conf.d"
        dropin.mkdir(exist_ok=True)
        (dropin / "10-fast-backoff.conf").write_text(FAST_BACKOFF_DROPIN)
        if self.gates or self.config:
            # A drop-in's featureGates replace the kit's, so EventedPLEG is repeated here.
            gates = {"KubeletCrashLoopBackOffMax": True, "EventedPLEG": self.evented, **self.gates}
            text = ", ".join(f"{k}: {str(v).lower()}" for k, v in gates.items())
            (dropin / "20-bug-lab.conf").write_text(
                "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                f"featureGates: {{{text}}}\n{self.config}")
        args = [str(self.script), self.socket, str(self.workdir)]
        if self.evented:
            args.append("--evented-pleg")
        args.append(f"--config-dir={dropin}")
        if (self.node, self.port, self.healthz_port) != (NODE, PORT, HEALTHZ_PORT):
            # A node name that DNS cannot resolve costs a standalone kubelet a resolver timeout at every
            # pod admission unless it is given its address.
            args += [f"--hostname-override={self.node}", f"--port={self.port}",
                     f"--healthz-port={self.healthz_port}", "--node-ip=127.0.0.1"]
        args.extend(self.args)
        log = open(self.log_path, "w")
        self.proc = subprocess.Popen(["flock", "-w", str(int(self.lock_wait_s)), self.lock, *args],
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + self.lock_wait_s + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.healthz_port}/healthz", timeout=2).read()
                return self
            except (urllib.error.URLError, OSError):
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"the kubelet exited {self.proc.returncode}: {self.log()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError("the kubelet never became healthy")
            time.sleep(0.5)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def __enter__(self) -> Kubelet:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def get(self, path: str, timeout: float = 10) -> tuple[int, str]:
        """(HTTP status, body) of a GET on the kubelet's API."""
        try:
            with urllib.request.urlopen(self.api + path, context=self._ctx, timeout=timeout) as resp:
                return resp.status, resp.read().decode(errors="replace")
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode(errors="replace")

    def pods(self) -> dict[str, dict]:
        """Pod name (without the node suffix) -> its status, from /pods."""
        code, body = self.get("/pods")
        if code != 200:
            return {}
        out = {}
        for pod in json.loads(body).get("items") or []:
            name = pod["metadata"]["name"].removesuffix("-" + self.node)
            out[name] = pod.get("status", {})
        return out

    def add_pod(self, name: str, manifest: str) -> None:
        (self.manifests / f"{name}.yaml").write_text(manifest)

    def remove_pods(self) -> None:
        for f in self.manifests.glob("*.yaml"):
            f.unlink()


def restarts(status: dict, container: str) -> int:
    for c in status.get("containerStatuses") or []:
        if c["name"] == container:
            return int(c.get("restartCount", 0))
    return 0


def running(status: dict, container: str) -> bool:
    return any(c["name"] == container and "running" in (c.get("state") or {})
               for c in status.get("containerStatuses") or [])


# ---------------------------------------------------------------- the static-pod scenario

WEB = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers:
  - {name: w, image: busybox:1.36, command: [sh, -c, 'echo serving requests; sleep 3600']}
"""
CRASH = """\
apiVersion: v1
kind: Pod
metadata: {name: crash, namespace: default}
spec:
  containers:
  - {name: c, image: busybox:1.36, command: [sh, -c, 'echo crashing; exit 7']}
"""
PROBE = """\
apiVersion: v1
kind: Pod
metadata:
  name: probe
  namespace: default
  annotations: {fakecri.io/probes: "cat /tmp/healthy = fail-after 3s"}
spec:
  containers:
  - name: p
    image: busybox:1.36
    command: [sleep, "3600"]
    livenessProbe:
      exec: {command: [cat, /tmp/healthy]}
      periodSeconds: 1
      failureThreshold: 1
"""
ALREADY_EXISTS = "already exists in sandbox"


def wait_for(what: str, check, timeout: float, kubelet: Kubelet, *, step: float = 1.0, shown=None):
    """`check()`'s first true answer, asked every `step` seconds; past `timeout` the test fails
    with `what` and `shown()` (by default the kubelet's pods)."""
    got = first_true(check, timeout, step)
    if got is None:
        said = shown() if shown is not None else f"pods: {json.dumps(kubelet.pods())[:3000]}"
        pytest.fail(f"{what} within {timeout:.0f} s; {said}")
    return got


def start_static_pods(kubelet: Kubelet) -> None:
    """The three pods, once web runs."""
    for name, manifest in (("web", WEB), ("crash", CRASH), ("probe", PROBE)):
        kubelet.add_pod(name, manifest)
    wait_for("web never ran", lambda: running(kubelet.pods().get("web", {}), "w"), 60, kubelet)


def static_pods_live_and_go(kubelet: Kubelet, socket: str) -> None:
    """What a kubelet does with the three pods on the runtime at `socket`: web runs and logs,
    crash restarts, the probe's container is restarted, the stats summary lists them, and
    removing the manifests tears every pod down."""
    start_static_pods(kubelet)
    wait_for("the crashing container never restarted 4 times",
          lambda: restarts(kubelet.pods().get("crash", {}), "c") > 3, 120, kubelet)
    wait_for("the liveness probe never restarted its container",
          lambda: restarts(kubelet.pods().get("probe", {}), "p") >= 1, 60, kubelet)
    assert kubelet.log().count(ALREADY_EXISTS) == 0, "the kubelet recreated an existing attempt"

    code, logs = kubelet.get(f"/containerLogs/default/web-{kubelet.node}/w")
    assert code == 200 and "serving requests" in logs

    code, body = kubelet.get("/stats/summary")
    assert code == 200, body[:500]
    summary = json.loads(body)
    listed = {p["podRef"]["name"].removesuffix("-" + kubelet.node): p for p in summary.get("pods") or []}
    # The kubelet lists the pods that have a running container.
    assert {"web", "probe"} <= set(listed), sorted(listed)
    for pod in listed.values():
        assert pod["cpu"]["usageNanoCores"] >= 0 and pod["memory"]["workingSetBytes"] > 0
        for c in pod["containers"]:
            assert "usageCoreNanoSeconds" in c["cpu"] and c["memory"]["workingSetBytes"] > 0, c

    kubelet.remove_pods()
    ch = grpc.insecure_channel("unix:" + socket)
    rt = api_pb2_grpc.RuntimeServiceStub(ch)

    def torn_down():
        sandboxes = rt.ListPodSandbox(pb.ListPodSandboxRequest()).items
        containers = rt.ListContainers(pb.ListContainersRequest()).containers
        return (all(s.state == pb.SANDBOX_NOTREADY for s in sandboxes)
                and all(c.state != pb.CONTAINER_RUNNING for c in containers))

    wait_for("deleting the manifests did not stop every pod", torn_down, 60, kubelet)
    wait_for("the kubelet still reports pods", lambda: not kubelet.pods(), 60, kubelet)
    ch.close()
