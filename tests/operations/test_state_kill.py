"""kill -9 of `fakecri serve --state-file` mid-run: the restart shows every acknowledged operation."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time

import grpc
import pytest
from helpers.operations import TIMEOUT, pod_config, wait_for

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import short_socket_path


def serve(socket: str, state_file: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "fakecri.cli", "serve", "--socket", socket, "--state-file", state_file,
           "--log-format", "json", "--log-level", "warning"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def connect(proc: subprocess.Popen, socket: str) -> grpc.Channel:
    ch = grpc.insecure_channel("unix:" + socket)
    try:
        grpc.channel_ready_future(ch).result(timeout=60)
    except grpc.FutureTimeoutError:
        proc.kill()
        raise AssertionError(f"fakecri serve did not come up: {proc.stderr.read().decode(errors='replace')}") from None
    return ch


class Workload(threading.Thread):
    """Runs sandboxes and containers until the server dies; records what was acknowledged."""

    def __init__(self, channel: grpc.Channel, tag: str) -> None:
        super().__init__(daemon=True)
        self.rt = api_pb2_grpc.RuntimeServiceStub(channel)
        self.img = api_pb2_grpc.ImageServiceStub(channel)
        self.tag = tag
        self.pods: list[str] = []
        self.running: list[str] = []
        self.stopped_pods: list[str] = []
        self.stop_in_flight = ""  # a stop whose reply never came may or may not have happened

    def run(self) -> None:
        try:
            self.img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox:latest")), timeout=TIMEOUT)
            for n in range(10_000):
                cfg = pod_config(f"{self.tag}-{n}", f"{self.tag}-uid-{n}")
                sid = self.rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=TIMEOUT).pod_sandbox_id
                self.pods.append(sid)
                ctr = pb.ContainerConfig(metadata=pb.ContainerMetadata(name="app"), command=["sleep", "3600"],
                                         image=pb.ImageSpec(image="busybox:latest"))
                cid = self.rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ctr,
                                                                        sandbox_config=cfg),
                                              timeout=TIMEOUT).container_id
                self.rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=TIMEOUT)
                self.running.append(cid)
                if n % 3 == 2:
                    self.stop_in_flight = sid
                    self.rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid), timeout=TIMEOUT)
                    self.stopped_pods.append(sid)
                    self.stop_in_flight = ""
        except grpc.RpcError:
            return  # the server was killed


def check_restored(rt, acked_pods: dict[str, int], uncertain: set[str], acked_running: set[str], r: int) -> None:
    """Every acknowledged sandbox has its acknowledged state and every started container is there,
    running unless its sandbox was stopped. A stop whose reply was lost may have happened or not."""
    pods = {p.id: p.state for p in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=TIMEOUT).items}
    ctrs = {c.id: c for c in rt.ListContainers(pb.ListContainersRequest(), timeout=TIMEOUT).containers}
    for sid in uncertain:
        assert pods.get(sid) in (pb.SANDBOX_READY, pb.SANDBOX_NOTREADY), f"round {r}: sandbox {sid[:12]} lost"
        acked_pods[sid] = pods[sid]
    uncertain.clear()
    assert {sid: pods.get(sid) for sid in acked_pods} == acked_pods, f"round {r}: a sandbox was lost or changed"
    for cid in acked_running:
        assert cid in ctrs, f"round {r}: container {cid[:12]} lost"
        ready = acked_pods.get(ctrs[cid].pod_sandbox_id) == pb.SANDBOX_READY
        assert ctrs[cid].state == (pb.CONTAINER_RUNNING if ready else pb.CONTAINER_EXITED)


def kill_rounds(tmp_path, rng: random.Random, rounds: int) -> None:
    socket, state_file = short_socket_path(), str(tmp_path / "state.json")
    acked_pods: dict[str, int] = {}  # sandbox id -> acknowledged state
    uncertain: set[str] = set()
    acked_running: set[str] = set()
    for r in range(rounds + 1):
        proc = serve(socket, state_file)
        try:
            ch = connect(proc, socket)
            check_restored(api_pb2_grpc.RuntimeServiceStub(ch), acked_pods, uncertain, acked_running, r)
            if r == rounds:
                ch.close()
                break
            work = Workload(ch, f"r{r}")
            work.start()
            enough = 1 + rng.randrange(4)
            wait_for(lambda work=work, enough=enough: len(work.pods) >= enough, what="some acknowledged sandboxes")
            time.sleep(rng.uniform(0, 0.05))  # land the kill at a random point of the workload
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(TIMEOUT)
            work.join(TIMEOUT)
            ch.close()
        finally:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(TIMEOUT)
            proc.stderr.close()
        stopped = set(work.stopped_pods)
        acked_pods.update({sid: pb.SANDBOX_NOTREADY if sid in stopped else pb.SANDBOX_READY for sid in work.pods})
        if work.stop_in_flight:
            uncertain.add(work.stop_in_flight)
            acked_pods.pop(work.stop_in_flight, None)
        acked_running |= set(work.running)


def test_kill_9_keeps_every_acknowledged_operation(tmp_path):
    kill_rounds(tmp_path, random.Random(1), rounds=2)


@pytest.mark.slow
def test_kill_9_soak(tmp_path):
    kill_rounds(tmp_path, random.Random(2), rounds=25)
