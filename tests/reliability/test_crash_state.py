"""Crash-safe state: kill -9 a `fakecri serve --state-file` at random moments, restart it.

The promise (fakecri/server/node/persistence.py): the snapshot is written atomically (temp file,
fsync, rename) before the reply goes out. So after a kill -9 at any moment:
- the file is always a complete, parseable snapshot (never half-written);
- every operation acknowledged before the kill is in the restored state;
- the one call in flight at the kill is either fully there or not at all.
A client model tracks what was acknowledged; after each restart the restored state is
checked against it through the CRI API, then the run goes on from the restored state.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import grpc
import pytest
from helpers.processes import end
from helpers.reliability import NOTES, add, check_invariants, container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import short_socket_path

READY, NOTREADY = pb.SANDBOX_READY, pb.SANDBOX_NOTREADY
CREATED, RUNNING, EXITED = pb.CONTAINER_CREATED, pb.CONTAINER_RUNNING, pb.CONTAINER_EXITED


def start_server(sock: str, state_file: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "fakecri.cli", "serve", "--socket", sock, "--state-file", state_file,
         "--log-level", "error", "--seed", "3"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    ch = grpc.insecure_channel("unix:" + sock)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"fakecri serve exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
            try:
                api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=2)
                return proc
            except grpc.RpcError:
                time.sleep(0.05)
        proc.kill()
        raise AssertionError("fakecri serve did not answer within 60 s")
    finally:
        ch.close()


class Model:
    """What the client was told: sandbox id -> state, container id -> (sandbox id, state)."""

    def __init__(self) -> None:
        self.sandboxes: dict[str, int] = {}
        self.containers: dict[str, tuple[str, int]] = {}
        self.images: set[str] = set()
        self.n = 0

    def sync(self, rt, img=None) -> None:
        self.sandboxes = {s.id: s.state for s in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=30).items}
        self.containers = {c.id: (c.pod_sandbox_id, c.state)
                           for c in rt.ListContainers(pb.ListContainersRequest(), timeout=30).containers}
        if img is not None:  # an in-flight pull or removal found applied (or not) is what the server says now
            tags = {t for i in img.ListImages(pb.ListImagesRequest(), timeout=30).images for t in i.repo_tags}
            self.images = {ref for ref in ("busybox", "nginx:latest")
                           if "docker.io/library/" + (ref if ":" in ref else ref + ":latest") in tags}


class Driver(threading.Thread):
    """Runs acknowledged operations until the server dies; records the one in flight."""

    def __init__(self, sock: str, model: Model, rng: random.Random) -> None:
        super().__init__(daemon=True)
        self.channel = grpc.insecure_channel("unix:" + sock)
        self.rt = api_pb2_grpc.RuntimeServiceStub(self.channel)
        self.img = api_pb2_grpc.ImageServiceStub(self.channel)
        self.model = model
        self.rng = rng
        self.inflight: tuple | None = None
        self.acked = 0
        self.error: grpc.RpcError | None = None

    def run(self) -> None:
        try:
            self.img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=30)
            self.model.images.add("busybox")
            while True:
                self.step()
        except grpc.RpcError as exc:
            self.error = exc
        finally:
            self.channel.close()

    def step(self) -> None:
        m, rng, rt = self.model, self.rng, self.rt
        ready = [s for s, st in m.sandboxes.items() if st == READY]
        choice = rng.random()
        if choice < 0.06:
            ref = "nginx:latest"
            if ref in m.images:
                self.inflight = ("remove_image", ref)
                self.img.RemoveImage(pb.RemoveImageRequest(image=pb.ImageSpec(image=ref)), timeout=30)
                m.images.discard(ref)
            else:
                self.inflight = ("pull", ref)
                self.img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=ref)), timeout=30)
                m.images.add(ref)
        elif not ready or choice < 0.2 or len(m.sandboxes) < 2:
            m.n += 1
            cfg = sandbox_config(f"k{m.n}")
            self.inflight = ("run_sandbox", cfg.metadata.name)
            sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=30).pod_sandbox_id
            m.sandboxes[sid] = READY
        elif choice < 0.45:
            sid = rng.choice(ready)
            m.n += 1
            self.inflight = ("create", sid, f"c{m.n}")
            cid = rt.CreateContainer(pb.CreateContainerRequest(
                pod_sandbox_id=sid, config=container_config(f"c{m.n}", command=["nginx"])), timeout=30).container_id
            m.containers[cid] = (sid, CREATED)
        else:
            live = list(m.containers.items())
            r = rng.random()
            if live and r < 0.7:
                cid, (sid, st) = rng.choice(live)
                if st == CREATED and m.sandboxes[sid] == READY:
                    self.inflight = ("start", cid)
                    rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=30)
                    m.containers[cid] = (sid, RUNNING)
                elif st == RUNNING:
                    self.inflight = ("stop", cid)
                    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0), timeout=30)
                    m.containers[cid] = (sid, EXITED)
                elif st == EXITED or m.sandboxes[sid] == NOTREADY:
                    self.inflight = ("remove", cid)
                    rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid), timeout=30)
                    del m.containers[cid]
            else:
                sid = rng.choice(list(m.sandboxes))
                if m.sandboxes[sid] == READY and r < 0.9:
                    self.inflight = ("stop_sandbox", sid)
                    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid), timeout=30)
                    m.sandboxes[sid] = NOTREADY
                    for cid, (csid, st) in list(m.containers.items()):
                        if csid == sid and st == RUNNING:
                            m.containers[cid] = (sid, EXITED)
                else:
                    self.inflight = ("remove_sandbox", sid)
                    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid), timeout=30)
                    del m.sandboxes[sid]
                    for cid, (csid, _) in list(m.containers.items()):
                        if csid == sid:
                            del m.containers[cid]
        self.inflight = None
        self.acked += 1


def check_restored(ch, model: Model, inflight: tuple | None) -> None:
    """The restored state holds every acknowledged operation; only the in-flight one may differ."""
    rt = api_pb2_grpc.RuntimeServiceStub(ch)
    sandboxes = {s.id: s for s in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=30).items}
    containers = {c.id: c for c in rt.ListContainers(pb.ListContainersRequest(), timeout=30).containers}
    kind = inflight[0] if inflight else None
    touched = inflight[1] if inflight else None
    images = set()
    for i in api_pb2_grpc.ImageServiceStub(ch).ListImages(pb.ListImagesRequest(), timeout=30).images:
        images.update(i.repo_tags)
    for ref in model.images:
        full = "docker.io/library/" + (ref if ":" in ref else ref + ":latest")
        assert full in images or (kind == "remove_image" and touched == ref), f"acknowledged image {ref} lost"
    if "nginx:latest" not in model.images and "docker.io/library/nginx:latest" in images:
        assert kind == "pull", "an acknowledged RemoveImage was undone"

    def in_flight_on_sandbox(sid: str) -> bool:
        return kind in ("stop_sandbox", "remove_sandbox") and touched == sid

    for sid, st in model.sandboxes.items():
        if kind == "remove_sandbox" and touched == sid and sid not in sandboxes:
            continue
        assert sid in sandboxes, f"acknowledged sandbox {sid} lost (in flight: {inflight})"
        if not (in_flight_on_sandbox(sid) and sandboxes[sid].state == NOTREADY):
            assert sandboxes[sid].state == st, f"sandbox {sid}: {sandboxes[sid].state} != acknowledged {st}"
    for sid, s in sandboxes.items():
        if sid not in model.sandboxes:
            assert kind == "run_sandbox" and s.metadata.name == touched, f"unexpected sandbox {sid} ({inflight})"
    for cid, (sid, st) in model.containers.items():
        if cid not in containers:
            assert (kind == "remove" and touched == cid) or (kind == "remove_sandbox" and touched == sid), (
                f"acknowledged container {cid} lost (in flight: {inflight})")
            continue
        got = containers[cid].state
        if got != st:
            allowed = {("start", RUNNING), ("stop", EXITED), ("remove", EXITED)}
            ok = ((kind, got) in allowed and touched == cid) or (in_flight_on_sandbox(sid) and got == EXITED)
            assert ok, f"container {cid}: {got} != acknowledged {st} (in flight: {inflight})"
    for cid, c in containers.items():
        if cid not in model.containers:
            assert kind == "create" and c.metadata.name == inflight[2], f"unexpected container {cid} ({inflight})"


def run_kills(iterations: int, seed: int) -> dict:
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="fc-crash-")
    state_file = os.path.join(tmp, "state.json")
    sock = short_socket_path()
    model = Model()
    figures = {"iterations": 0, "acknowledged": 0, "inflight_applied": 0, "inflight_absent": 0, "restored_objects": 0}
    proc = start_server(sock, state_file)
    try:
        for _ in range(iterations):
            driver = Driver(sock, model, rng)
            driver.start()
            time.sleep(rng.uniform(0.05, 0.6))
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
            driver.join(60)
            assert not driver.is_alive(), "the client did not notice the dead server"
            assert driver.error is not None and driver.error.code() in (
                grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN), driver.error
            figures["acknowledged"] += driver.acked
            # Never half-written: the file is a complete snapshot whatever moment the kill hit.
            with open(state_file, "rb") as f:
                doc = json.loads(f.read())
            assert doc["format"] == "fakecri-state"
            # A kill during a write may leave the temp file beside it; it is never the state file.
            figures["temp_files_left"] = len([n for n in os.listdir(tmp) if ".tmp-" in n])
            # Restart on the same file (and the same socket: a stale socket is replaced).
            proc = start_server(sock, state_file)
            ch = grpc.insecure_channel("unix:" + sock)
            rt = api_pb2_grpc.RuntimeServiceStub(ch)
            before = (dict(model.sandboxes), dict(model.containers))
            check_restored(ch, model, driver.inflight)
            check_invariants(rt)
            model.sync(rt, api_pb2_grpc.ImageServiceStub(ch))
            if driver.inflight is not None:
                figures["inflight_applied" if (model.sandboxes, model.containers) != before else "inflight_absent"] += 1
            figures["restored_objects"] += len(model.sandboxes) + len(model.containers)
            ch.close()
            figures["iterations"] += 1
            # Keep the world small so a restore stays quick.
            if len(model.sandboxes) > 30:
                ch = grpc.insecure_channel("unix:" + sock)
                rt = api_pb2_grpc.RuntimeServiceStub(ch)
                for sid in list(model.sandboxes)[:20]:
                    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid), timeout=30)
                model.sync(rt)
                ch.close()
    finally:
        end(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    return figures


def _report(figures: dict) -> None:
    add("kill -9 iterations", figures["iterations"])
    add("kill -9: acknowledged operations checked after restart", figures["acknowledged"])
    add("kill -9: in-flight call found applied", figures["inflight_applied"])
    add("kill -9: in-flight call found absent", figures["inflight_absent"])
    NOTES["kill -9: temp files left beside the state file (harmless)"] = str(figures.get("temp_files_left", 0))


def test_kill_minus_nine_keeps_every_acknowledged_operation():
    figures = run_kills(int(os.environ.get("FAKECRI_KILL_ITERATIONS_FAST", "4")), seed=int(time.time()) % 1000)
    _report(figures)
    assert figures["acknowledged"] > 0


@pytest.mark.slow
def test_kill_minus_nine_many_times():
    figures = run_kills(int(os.environ.get("FAKECRI_KILL_ITERATIONS", "100")), seed=12345)
    _report(figures)
    NOTES["kill -9 (slow run)"] = str(figures)
    assert figures["iterations"] == int(os.environ.get("FAKECRI_KILL_ITERATIONS", "100"))
