"""A real standalone kubelet against a fakecri socket, for the slow interop tests.

It runs through the tool kit's `kubelet-standalone.sh` (its own mount namespace, static
pods from WORKDIR/manifests, API on https://127.0.0.1:10250). Those ports are fixed, so
every run holds the machine-wide lock /tmp/kubelet.lock (`flock`) while it lives.
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

LOCK = "/tmp/kubelet.lock"
API = "https://127.0.0.1:10250"
NODE = "fakecri-node"

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
                 gates: dict[str, bool] | None = None, config: str = "", args: tuple[str, ...] = ()) -> None:
        """`gates`: more feature gates; `config`: more KubeletConfiguration lines (a drop-in);
        `args`: more kubelet flags (a later -v wins over the kit's -v=2)."""
        self.script, self.socket, self.workdir, self.evented = script, socket, workdir, evented
        self.gates, self.config, self.args = dict(gates or {}), config, tuple(args)
        self.lock_wait_s = lock_wait_s
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
        args.extend(self.args)
        log = open(self.log_path, "w")
        self.proc = subprocess.Popen(["flock", "-w", str(int(self.lock_wait_s)), LOCK, *args],
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + self.lock_wait_s + 60
        while True:
            try:
                urllib.request.urlopen("http://127.0.0.1:10248/healthz", timeout=2).read()
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
            with urllib.request.urlopen(API + path, context=self._ctx, timeout=timeout) as resp:
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
            name = pod["metadata"]["name"].removesuffix("-" + NODE)
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
