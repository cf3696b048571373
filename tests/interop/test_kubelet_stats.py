"""A real kubelet 1.36 reads scripted stats: /stats/summary reports what a static pod's
fakecri.io/ annotations and a SetStats call say, and the eviction manager acts on them.

A standalone kubelet runs only static pods, which it never evicts (they are critical), so
the eviction is seen where the eviction manager decides it: a pod whose scripted writable
layer outgrows its ephemeral-storage limit is picked for eviction and refused as critical.
(Node memory pressure is judged from the machine's own memory, which no container script
moves.) Slow, and serialised machine-wide with the other kubelet runs.
"""
from __future__ import annotations

import json

import pytest

from fakecri.control_client import ControlClient
from fakecri.server.process.app import FakeCRIServer
from interop.kubelet_run import Kubelet, wait_for

pytestmark = pytest.mark.slow

MIB = 1024 * 1024
HOG = """\
apiVersion: v1
kind: Pod
metadata:
  name: hog
  namespace: default
  annotations:
    fakecri.io/memory: "123Mi"
    fakecri.io/cpu: "750m"
    fakecri.io/psi: "memory.some=25"
    fakecri.io/disk: "steps 1Mi@0s,200Mi@20s"
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sleep, "3600"]
    resources:
      limits: {ephemeral-storage: 50Mi}
"""
CRITICAL = 'cannot evict a critical pod" pod="default/hog-fakecri-node"'


def _wait(what: str, check, timeout: float, kubelet: Kubelet):
    return wait_for(what, check, timeout, kubelet, step=2.0, shown=lambda: f"kubelet log tail: {kubelet.log()[-2000:]}")


def _app(kubelet: Kubelet) -> dict | None:
    """The `app` container of the hog pod in /stats/summary, once listed."""
    code, body = kubelet.get("/stats/summary")
    if code != 200:
        return None
    for pod in json.loads(body).get("pods") or []:
        if pod["podRef"]["name"] == "hog-fakecri-node":
            return next((c for c in pod.get("containers") or [] if c["name"] == "app"), None)
    return None


def test_summary_reports_scripted_figures_and_eviction_acts_on_them(kubelet_standalone, tmp_path):
    with FakeCRIServer(seed=5, state_root=str(tmp_path / "root"), quiet=True) as server:
        with Kubelet(kubelet_standalone, server.config.socket, tmp_path / "kubelet", evented=False) as kubelet:
            kubelet.add_pod("hog", HOG)
            app = _wait("the pod never showed in /stats/summary", lambda: _app(kubelet), 120, kubelet)
            assert app["memory"]["workingSetBytes"] == 123 * MIB
            assert app["memory"]["usageBytes"] == 123 * MIB
            assert app["cpu"]["usageNanoCores"] == 750_000_000

            _wait("memory PSI never reached 25 %", lambda: (_app(kubelet) or {}).get("memory", {})
                  .get("psi", {}).get("some", {}).get("avg10") == 25, 60, kubelet)

            cid = next(c.id for c in server.call(lambda: server.node.runtime.list_containers()) if c.name == "app")
            with ControlClient(server.control_endpoint) as control:
                control.set_stats(cid, memory="456Mi")
            _wait("SetStats never reached /stats/summary",
                  lambda: (_app(kubelet) or {}).get("memory", {}).get("workingSetBytes") == 456 * MIB, 60, kubelet)

            # 200Mi of writable layer from 20 s on, over the pod's 50Mi ephemeral-storage limit
            _wait("the writable layer never grew", lambda: (_app(kubelet) or {}).get("rootfs", {})
                  .get("usedBytes") == 200 * MIB, 60, kubelet)
            _wait("the eviction manager never picked the pod", lambda: CRITICAL in kubelet.log(), 60, kubelet)
