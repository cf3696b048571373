"""`fakecri serve --nodes` as a process, set up only by FAKECRI_* variables (as a pod sets it up),
and `fakecri health` and `fakecri ctl` finding the farm through the same FAKECRI_SOCKET_DIR."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

FAKECRI = [sys.executable, "-m", "fakecri.cli"]


def test_a_farm_from_variables_and_its_health_from_the_same_variables():
    directory = tempfile.mkdtemp(prefix="fmc-", dir="/tmp")
    sockets = os.path.join(directory, "s")
    os.makedirs(sockets)  # there already, as a pod's emptyDir is
    env = {**os.environ, "FAKECRI_NODES": "3", "FAKECRI_SOCKET_DIR": sockets, "FAKECRI_NODE_NAME": "pod-7-{i}",
           "FAKECRI_POD_CIDR": "198.18.0.0/15", "FAKECRI_FARM_INDEX": "7",
           # An image's FAKECRI_SOCKET, emptied: an empty variable is no setting.
           "FAKECRI_SOCKET": "", "FAKECRI_LOG_FORMAT": "json", "FAKECRI_LOG_LEVEL": "warning",
           "FAKECRI_ROOT": os.path.join(directory, "root"), "FAKECRI_STATE_DIR": directory}
    proc = subprocess.Popen([*FAKECRI, "serve"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        ready = json.loads(proc.stderr.readline())
        assert ready["nodes"] == ["pod-7-0", "pod-7-1", "pod-7-2"], ready
        health = subprocess.run([*FAKECRI, "health"], env=env, capture_output=True, text=True, timeout=30)
        assert (health.returncode, health.stdout.strip()) == (0, "SERVING"), health.stderr
        # ctl finds the farm's control socket the same way.
        nodes = subprocess.run([*FAKECRI, "ctl", "nodes"], env=env, capture_output=True, text=True, timeout=30)
        assert nodes.returncode == 0, nodes.stderr
        cidrs = sorted(json.loads(line)["pod_cidr"] for line in nodes.stdout.splitlines())
        assert cidrs == ["198.18.21.0/24", "198.18.22.0/24", "198.18.23.0/24"]  # subnets 21 to 23: farm 7 of 3
        # --socket (here FAKECRI_SOCKET) wins over the farm's directory.
        other = subprocess.run([*FAKECRI, "health", "--timeout", "1"], capture_output=True, text=True, timeout=30,
                               env={**env, "FAKECRI_SOCKET": os.path.join(directory, "none.sock")})
        assert other.returncode != 0 and "none.sock" in other.stderr + other.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    try:
        gone = subprocess.run([*FAKECRI, "health", "--timeout", "1"], env=env, capture_output=True, text=True,
                              timeout=30)
        assert gone.returncode != 0
    finally:
        shutil.rmtree(directory, ignore_errors=True)
