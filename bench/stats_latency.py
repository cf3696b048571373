"""How long other calls wait while one big stats call is answered.

    python bench/stats_latency.py [--containers 50000] [--per-pod 10] [--rounds 3] [--idle-seconds 2] [--json FILE]

A `fakecri serve` child is started on a state file holding `--containers` running containers
(made here with the engine, so the fill takes seconds, not minutes). Then, per round, one client
thread sends ListContainerStats (and then StreamContainerStats) while another sends Version
back to back; the figures are the big call's duration and Version's p50, p99 and worst latency
while the big call was in flight, next to Version's latency on the idle server.

The server and the clients are separate processes, so the client's threads do not share the
server's interpreter lock. The message limit is raised to 256 MiB on both sides so the unary
call can carry 50,000 stats at all.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb

RT = "/runtime.v1.RuntimeService/"
LIMIT = 256 << 20
OPTIONS = [("grpc.max_receive_message_length", LIMIT), ("grpc.max_send_message_length", LIMIT)]


def _identity(b: bytes) -> bytes:
    return b


def make_state(path: str, containers: int, per_pod: int) -> None:
    """A state file with `containers` running containers, `per_pod` to a pod."""
    from fakecri.engine.clock import RandomIds, SystemClock
    from fakecri.engine.runtime import Runtime
    from fakecri.server.node.persistence import StateFile
    from fakecri.sim.catalog import Catalog
    from fakecri.sim.simulation import Simulation

    class _Quiet:
        def info(self, *a: object, **k: object) -> None:
            pass

    catalog = Catalog()
    clock = SystemClock()
    sim = Simulation(catalog, clock=clock)
    rt = Runtime(clock, RandomIds(1), programs=sim, registry=catalog, pod_cidr="10.0.0.0/8")
    sim.watch(rt)
    rt.images.pull("registry.k8s.io/pause:3.9", None)
    for i in range(max(1, containers // per_pod)):
        sb = rt.run_pod_sandbox(name=f"p{i}", namespace="bench", uid=f"u{i}",
                                labels={"io.kubernetes.pod.name": f"p{i}", "app": f"a{i % 100}"})
        for j in range(per_pod):
            c = rt.create_container(sb.id, name=f"c{j}", image="registry.k8s.io/pause:3.9",
                                    command=("sleep", "infinity"),
                                    labels={"io.kubernetes.container.name": f"c{j}"})
            rt.start_container(c.id)
        rt.drain_events()
    doc = StateFile(rt, rt.clock, rt.ids, path, _Quiet()).encode()
    with open(path, "wb") as f:
        f.write(doc)


def start(sock: str, state: str, root: str) -> subprocess.Popen:
    here = os.path.join(os.path.dirname(sys.executable), "fakecri")
    proc = subprocess.Popen([here, "serve", "--socket", sock, "--state-file", state, "--root", root,
                             "--log-level", "error", "--max-message-bytes", str(LIMIT)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ch = grpc.insecure_channel(f"unix://{sock}", options=OPTIONS)
    version = ch.unary_unary(RT + "Version", request_serializer=_identity, response_deserializer=_identity)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"fakecri serve exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
            try:
                version(pb.VersionRequest().SerializeToString(), timeout=2)
                return proc
            except grpc.RpcError:
                time.sleep(0.05)
        proc.kill()
        raise RuntimeError("fakecri serve did not answer within 300 s")
    finally:
        ch.close()


def versions_while(sock: str, busy: threading.Event, done: threading.Event) -> list[float]:
    """Version latencies (seconds), sent back to back while `busy` is set, until `done`."""
    ch = grpc.insecure_channel(f"unix://{sock}", options=OPTIONS)
    call = ch.unary_unary(RT + "Version", request_serializer=_identity, response_deserializer=_identity)
    req = pb.VersionRequest().SerializeToString()
    out: list[float] = []
    try:
        while not done.is_set():
            t0 = time.perf_counter()
            call(req, timeout=120)
            dt = time.perf_counter() - t0
            if busy.is_set():
                out.append(dt)
            time.sleep(0.001)
    finally:
        ch.close()
    return out


def big_call(sock: str, method: str, lead_s: float = 0.3) -> tuple[float, int, list[float]]:
    """(seconds, stats received, Version latencies meanwhile) for one `method` call."""
    busy, done = threading.Event(), threading.Event()
    lat: list[float] = []
    t = threading.Thread(target=lambda: lat.extend(versions_while(sock, busy, done)), daemon=True)
    t.start()
    time.sleep(lead_s)
    ch = grpc.insecure_channel(f"unix://{sock}", options=OPTIONS)
    try:
        busy.set()
        t0 = time.perf_counter()
        if method == "ListContainerStats":
            call = ch.unary_unary(RT + method, request_serializer=_identity, response_deserializer=_identity)
            n = len(pb.ListContainerStatsResponse.FromString(
                call(pb.ListContainerStatsRequest().SerializeToString(), timeout=600)).stats)
        else:
            call = ch.unary_stream(RT + method, request_serializer=_identity, response_deserializer=_identity)
            n = sum(len(pb.StreamContainerStatsResponse.FromString(m).container_stats)
                    for m in call(pb.StreamContainerStatsRequest().SerializeToString(), timeout=600))
        dt = time.perf_counter() - t0
        busy.clear()
    finally:
        ch.close()
    done.set()
    t.join(150)
    return dt, n, lat


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--containers", type=int, default=50_000)
    ap.add_argument("--per-pod", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--idle-seconds", type=float, default=2.0, help="how long Version is timed on the idle server")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fc-statlat-")
    results: dict[str, object] = {"containers": args.containers, "load": os.getloadavg()[0]}
    try:
        state = os.path.join(work, "state.json")
        t0 = time.perf_counter()
        make_state(state, args.containers, args.per_pod)
        print(f"state file with {args.containers} containers made in {time.perf_counter() - t0:.1f} s", flush=True)
        sock = os.path.join(work, "cri.sock")
        proc = start(sock, state, os.path.join(work, "root"))
        try:
            idle: list[float] = []
            busy, done = threading.Event(), threading.Event()
            busy.set()
            t = threading.Thread(target=lambda: idle.extend(versions_while(sock, busy, done)), daemon=True)
            t.start()
            time.sleep(args.idle_seconds)
            done.set()
            t.join(30)
            results["version_idle_p50_ms"] = round(pct(idle, 50) * 1000, 2)
            results["version_idle_p99_ms"] = round(pct(idle, 99) * 1000, 2)
            print(f"Version on the idle server: p50 {pct(idle, 50) * 1000:.2f} ms, p99 {pct(idle, 99) * 1000:.2f} ms")
            for method in ("ListContainerStats", "StreamContainerStats"):
                rows = []
                for _ in range(args.rounds):
                    dt, n, lat = big_call(sock, method)
                    rows.append({"seconds": round(dt, 3), "stats": n, "versions": len(lat),
                                 "version_p50_ms": round(pct(lat, 50) * 1000, 2),
                                 "version_p99_ms": round(pct(lat, 99) * 1000, 2),
                                 "version_max_ms": round(max(lat, default=float("nan")) * 1000, 2)})
                    print(f"{method}: {n} stats in {dt:.2f} s; Version meanwhile x{len(lat)}: "
                          f"p50 {rows[-1]['version_p50_ms']} ms, p99 {rows[-1]['version_p99_ms']} ms, "
                          f"max {rows[-1]['version_max_ms']} ms", flush=True)
                results[method] = rows
                results[f"{method}_version_p99_ms_median"] = statistics.median(r["version_p99_ms"] for r in rows)
        finally:
            proc.kill()
            proc.wait(30)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({k: v for k, v in results.items() if not isinstance(v, list)}))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
