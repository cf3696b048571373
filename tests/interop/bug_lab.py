"""What the bug-lab tests share: a fakecri with some faults and a real standalone kubelet on
it, and the few ways they look at what the kubelet did (its /pods, its log, its metrics,
fakecri's call log and records)."""
from __future__ import annotations

import datetime
import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers.polling import first_true

from fakecri.faults.flags import faults_from
from fakecri.server.node.call_path import CallRecord
from fakecri.server.process.app import FakeCRIServer
from interop.kubelet_run import NODE, Kubelet, restarts, running


def pod(name: str, *containers: tuple[str, str]) -> str:
    """A static pod manifest: (container name, shell command) each."""
    lines = [f"  - {{name: {c}, image: busybox:1.36, command: [sh, -c, '{cmd}']}}" for c, cmd in containers]
    return ("apiVersion: v1\nkind: Pod\n"
            f"metadata: {{name: {name}, namespace: default}}\nspec:\n  containers:\n" + "\n".join(lines) + "\n")


WEB = pod("web", ("w", "echo serving; sleep 3600"))
LATE = pod("late", ("l", "sleep 5; exit 3"))  # lives a while, then fails: its exit reaches the kubelet by event
CRASH = pod("crash", ("c", "exit 7"))


class Lab:
    def __init__(self, server: FakeCRIServer, kubelet: Kubelet) -> None:
        self.server, self.kubelet = server, kubelet

    # ------------------------------------------------------------ fakecri's side

    def calls(self, method: str | None = None) -> list[CallRecord]:
        records = self.server.call(lambda: list(self.server.node.call_log))
        return [r for r in records if method is None or r.method == method]

    def containers(self, pod_name: str | None = None, name: str | None = None) -> list[Any]:
        """fakecri's container records (of one static pod, one container name), oldest first."""
        found = self.server.call(lambda: list(self.server.node.runtime.list_containers()))
        out = [c for c in found
               if (pod_name is None or c.labels.get("io.kubernetes.pod.name") == f"{pod_name}-{NODE}")
               and (name is None or c.name == name)]
        return sorted(out, key=lambda c: (c.created_at, c.attempt))

    def counter(self, name: str) -> int:
        return self.server.call(lambda: self.server.node.counters[name])

    # ------------------------------------------------------------ the kubelet's side

    def pods(self) -> dict[str, dict]:
        return self.kubelet.pods()

    def restarts(self, pod_name: str, container: str) -> int:
        return restarts(self.pods().get(pod_name, {}), container)

    def log_lines(self, pattern: str) -> list[str]:
        return [line for line in self.kubelet.log().splitlines() if re.search(pattern, line)]

    def metric(self, name: str) -> float:
        code, body = self.kubelet.get("/metrics")
        assert code == 200, body[:300]
        for line in body.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    def wait(self, what: str, check: Callable[[], Any], timeout: float) -> Any:
        got = first_true(check, timeout, 1)
        if got is None:
            pytest.fail(f"{what} within {timeout:.0f} s; pods: {json.dumps(self.pods())[:2000]}")
        return got

    def idle(self, seconds: float) -> None:
        """Let the kubelet work undisturbed for a while."""
        time.sleep(seconds)

    def watch_exits(self, pod_name: str, container: str, seconds: float) -> dict[str, int]:
        """Watch for `seconds`: every attempt of `container` that fakecri saw exit, by id, with
        its finished_at (ns). The kubelet removes old attempts, so they are caught while here."""
        exits: dict[str, int] = {}
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for c in self.containers(pod_name, container):
                if c.finished_at:
                    exits[c.id] = c.finished_at
            time.sleep(0.3)
        return exits

    def died_delays(self, exits: dict[str, int]) -> dict[str, float]:
        """For each exit, the seconds until the kubelet logged its first PLEG ContainerDied
        for that container (inf: never)."""
        first: dict[str, float] = {}
        for line in self.log_lines(r'"SyncLoop \(PLEG\): event for pod".*"Type":"ContainerDied"'):
            cid = line.rsplit('"Data":"', 1)[1][:64]
            first.setdefault(cid, klog_time_ns(line))
        return {cid: (first[cid] - at) / 1e9 if cid in first else float("inf") for cid, at in exits.items()}

    def stale_running(self, pod_name: str, container: str, seconds: float) -> float:
        """Watch for `seconds`: the longest the kubelet went on reporting `container` running
        while fakecri's newest attempt of it had exited (in seconds)."""
        longest, deadline = 0.0, time.monotonic() + seconds
        while time.monotonic() < deadline:
            newest = self.containers(pod_name, container)[-1:]
            if newest and newest[0].finished_at and running(self.pods().get(pod_name, {}), container):
                longest = max(longest, (time.time_ns() - newest[0].finished_at) / 1e9)
            time.sleep(0.5)
        return longest


@contextmanager
def lab(script: Path, tmp_path: Path, *, flags: dict[str, Any] | None = None, evented: bool = False,
        gates: dict[str, bool] | None = None, pods: dict[str, str] | None = None,
        **server_settings: Any) -> Iterator[Lab]:
    """fakecri with the faults of `flags` (as `fakecri serve` takes them: {"quirks": "...",
    "recipe": "..."}), a standalone kubelet on it, and the static `pods` given to it."""
    faults = faults_from(flags or {})
    with FakeCRIServer(seed=5, state_root=str(tmp_path / "root"), faults=faults, call_log_size=200_000,
                       **server_settings) as server:
        with Kubelet(script, server.config.socket, tmp_path / "kubelet", evented=evented, gates=gates) as kubelet:
            for name, manifest in (pods or {}).items():
                kubelet.add_pod(name, manifest)
            yield Lab(server, kubelet)


def klog_time_ns(line: str) -> float:
    """The time of a klog line ('I1126 10:14:04.863654 ...', local time, this year) in ns."""
    stamp = datetime.datetime.strptime(f"{datetime.date.today().year}{line[1:5]} {line[6:21]}", "%Y%m%d %H:%M:%S.%f")
    return stamp.timestamp() * 1e9


def report(lab_: Lab, *patterns: str, limit: int = 3) -> str:
    """The first kubelet log lines matching each pattern, for a failure message."""
    return "\n".join(line[:400] for p in patterns for line in lab_.log_lines(p)[:limit])
