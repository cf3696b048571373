"""Soak: churn with call faults for FAKECRI_SOAK_MINUTES (default 5) against a `fakecri serve`
process; its RSS stays flat and the events stay correct. Runs only with --run-slow.

Faults are on calls (UNAVAILABLE errors before the handler, latency), not on events, so the
event stream must still be complete and legal: one subscriber, open from the start, sees
every transition once in order, and replaying it gives the final list.
"""
from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import threading
import time

import grpc
import pytest
from helpers.processes import end
from helpers.reliability import (
    FORBIDDEN,
    NOTES,
    Subscriber,
    add,
    check_invariants,
    container_config,
    legal_order_problems,
    listed_state,
    replay,
    sandbox_config,
    wait_until,
)

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.control.v1 import control_pb2_grpc
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import short_socket_path

COMMANDS = (["nginx"], ["true"], ["sleep", "0.3"], ["sh", "-c", "echo hi; exit 2"], ["sleep", "1000"])
FAULTS = ["--error", "StartContainer=UNAVAILABLE@5%", "--error", "RunPodSandbox=UNAVAILABLE@3%",
          "--latency", "ListContainers=2ms±1ms"]


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def churn(target: str, index: int, until: float, counts: dict, errors: list) -> None:
    ch = grpc.insecure_channel(target)
    rt, img = api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
    rng = random.Random(index)
    n = 0

    def call(fn, req):
        counts["ops"] += 1
        try:
            return fn(req, timeout=60)
        except grpc.RpcError as exc:
            if exc.code() in FORBIDDEN:
                errors.append(exc)
            if exc.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            counts["faults seen"] += 1
            return None

    try:
        while call(img.PullImage, pb.PullImageRequest(image=pb.ImageSpec(image="busybox"))) is None:
            pass
        while time.monotonic() < until:
            n += 1
            cfg = sandbox_config(f"soak{index}-{n}")
            resp = call(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=cfg))
            if resp is None:
                continue
            sid = resp.pod_sandbox_id
            for j in range(rng.randint(1, 4)):
                c = call(rt.CreateContainer, pb.CreateContainerRequest(
                    pod_sandbox_id=sid, config=container_config(f"c{j}", command=rng.choice(COMMANDS)),
                    sandbox_config=cfg))
                call(rt.StartContainer, pb.StartContainerRequest(container_id=c.container_id))
            call(rt.ListContainers, pb.ListContainersRequest(filter=pb.ContainerFilter(pod_sandbox_id=sid)))
            call(rt.PodSandboxStatus, pb.PodSandboxStatusRequest(pod_sandbox_id=sid))
            if rng.random() < 0.9:  # most pods go away; a few stay, the world grows slowly
                call(rt.StopPodSandbox, pb.StopPodSandboxRequest(pod_sandbox_id=sid))
                call(rt.RemovePodSandbox, pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
            if n % 50 == 0:  # and is trimmed now and then, as a kubelet's GC would
                for sb in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=60).items:
                    if sb.metadata.name.startswith(f"soak{index}-"):
                        call(rt.RemovePodSandbox, pb.RemovePodSandboxRequest(pod_sandbox_id=sb.id))
    except BaseException as exc:  # reported by the test
        errors.append(exc)
    finally:
        ch.close()


def soak(minutes: float, threads: int = 4) -> dict:
    sock = short_socket_path()
    proc = subprocess.Popen([sys.executable, "-m", "fakecri.cli", "serve", "--socket", sock, "--seed", "77",
                             "--log-level", "error", *FAULTS], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    target = "unix:" + sock
    ch = grpc.insecure_channel(target)
    rt = api_pb2_grpc.RuntimeServiceStub(ch)
    assert wait_until(lambda: os.path.exists(sock), timeout=60)
    rt.Version(pb.VersionRequest(), timeout=60, wait_for_ready=True)
    sub = Subscriber(target)
    try:
        time.sleep(0.5)
        start = time.monotonic()
        until = start + minutes * 60
        counts = {"ops": 0, "faults seen": 0}
        errors: list = []
        workers = [threading.Thread(target=churn, args=(target, i, until, counts, errors), daemon=True)
                   for i in range(threads)]
        for w in workers:
            w.start()
        samples = []
        while any(w.is_alive() for w in workers):
            samples.append((time.monotonic() - start, rss_kib(proc.pid)))
            time.sleep(min(10.0, max(1.0, minutes * 60 / 60)))
        for w in workers:
            w.join(120)
        assert not errors, errors[:3]
        # Quiet: the short exits have happened, the subscriber has every event.
        time.sleep(1.0)
        info = control_pb2_grpc.ControlStub(ch).GetServerInfo(cpb.GetServerInfoRequest(), timeout=60)
        assert not info.errors, info.errors[:3]

        def emitted() -> int:
            return control_pb2_grpc.ControlStub(ch).GetServerInfo(
                cpb.GetServerInfoRequest(), timeout=60).counters["events_emitted"]

        assert wait_until(lambda: len(sub.events) == emitted(), timeout=120), (len(sub.events), emitted())
        assert sub.error is None, sub.error
        problems = legal_order_problems(sub.events)
        assert not problems, problems[:20]
        assert replay(sub.events) == listed_state(rt)
        check_invariants(rt)
        # RSS flat: after a warm-up fifth, the last third's median is within 15% (+8 MiB) of the first third's.
        steady = [kib for t, kib in samples if t >= minutes * 60 / 5] or [kib for _, kib in samples]
        third = max(1, len(steady) // 3)
        early, late = statistics.median(steady[:third]), statistics.median(steady[-third:])
        figures = {"minutes": minutes, "ops": counts["ops"], "faults seen": counts["faults seen"],
                   "events": len(sub.events), "rss_first_mib": round(samples[0][1] / 1024, 1),
                   "rss_early_mib": round(early / 1024, 1), "rss_late_mib": round(late / 1024, 1),
                   "rss_max_mib": round(max(k for _, k in samples) / 1024, 1), "rss_samples": len(samples)}
        assert late <= early * 1.15 + 8 * 1024, f"RSS grew: {figures}"
        return figures
    finally:
        sub.close()
        ch.close()
        end(proc)


@pytest.mark.slow
def test_soak_churn_with_faults_rss_flat_events_correct():
    figures = soak(float(os.environ.get("FAKECRI_SOAK_MINUTES", "5")))
    NOTES["soak"] = str(figures)
    add("soak: operations", figures["ops"])
    add("soak: events checked", figures["events"])
