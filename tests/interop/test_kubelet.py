"""A real kubelet 1.36 runs static pods on fakecri, with the EventedPLEG gate off and on.

Slow (about a minute per case) and serialised machine-wide: the kubelet's ports are fixed.
The third case pins what a kubelet with EventedPLEG does when a runtime lists a sandbox's
container statuses oldest first (the `oldest-first-container-statuses` quirk): it takes
attempt 0 for the latest, asks for attempt 1 again and again, and gets AlreadyExists.
"""
from __future__ import annotations

import json
import time

import grpc
import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.faults.spec import parse_quirks
from fakecri.server.app import FakeCRIServer

from interop.kubelet_run import Kubelet, restarts, running

pytestmark = pytest.mark.slow

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


def _wait(what: str, check, timeout: float, kubelet: Kubelet):
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout:.0f} s; pods: {json.dumps(kubelet.pods())[:3000]}")
        time.sleep(1)


@pytest.mark.parametrize("evented, quirks", [
    pytest.param(False, [], id="generic-pleg"),
    pytest.param(True, [], id="evented-pleg"),
    pytest.param(True, ["oldest-first-container-statuses"], id="evented-pleg-oldest-first-quirk"),
])
def test_kubelet_runs_static_pods(kubelet_standalone, tmp_path, evented, quirks):
    faults = parse_quirks(",".join(quirks)) if quirks else []
    with FakeCRIServer(seed=5, state_root=str(tmp_path / "root"), faults=faults) as server:
        server.node.log_rpcs = False
        with Kubelet(kubelet_standalone, server.config.socket, tmp_path / "kubelet", evented=evented) as kubelet:
            for name, manifest in (("web", WEB), ("crash", CRASH), ("probe", PROBE)):
                kubelet.add_pod(name, manifest)
            _wait("web never ran", lambda: running(kubelet.pods().get("web", {}), "w"), 60, kubelet)

            if quirks:  # the storm the kubelet falls into on an oldest-first list
                _wait("no AlreadyExists", lambda: kubelet.log().count(ALREADY_EXISTS) >= 3, 90, kubelet)
                assert restarts(kubelet.pods()["crash"], "c") <= 1
                return

            _wait("the crashing container never restarted 4 times",
                  lambda: restarts(kubelet.pods().get("crash", {}), "c") > 3, 120, kubelet)
            _wait("the liveness probe never restarted its container",
                  lambda: restarts(kubelet.pods().get("probe", {}), "p") >= 1, 60, kubelet)
            assert kubelet.log().count(ALREADY_EXISTS) == 0, "the kubelet recreated an existing attempt"

            code, logs = kubelet.get("/containerLogs/default/web-fakecri-node/w")
            assert code == 200 and "serving requests" in logs

            code, body = kubelet.get("/stats/summary")
            assert code == 200, body[:500]
            summary = json.loads(body)
            listed = {p["podRef"]["name"].removesuffix("-fakecri-node"): p for p in summary.get("pods") or []}
            # The kubelet lists the pods that have a running container.
            assert {"web", "probe"} <= set(listed), sorted(listed)
            for pod in listed.values():
                assert pod["cpu"]["usageNanoCores"] >= 0 and pod["memory"]["workingSetBytes"] > 0
                for c in pod["containers"]:
                    assert "usageCoreNanoSeconds" in c["cpu"] and c["memory"]["workingSetBytes"] > 0, c

            kubelet.remove_pods()
            ch = grpc.insecure_channel("unix:" + server.config.socket)
            rt = api_pb2_grpc.RuntimeServiceStub(ch)

            def torn_down():
                sandboxes = rt.ListPodSandbox(pb.ListPodSandboxRequest()).items
                containers = rt.ListContainers(pb.ListContainersRequest()).containers
                return (all(s.state == pb.SANDBOX_NOTREADY for s in sandboxes)
                        and all(c.state != pb.CONTAINER_RUNNING for c in containers))

            _wait("deleting the manifests did not stop every pod", torn_down, 60, kubelet)
            _wait("the kubelet still reports pods", lambda: not kubelet.pods(), 60, kubelet)
            ch.close()
