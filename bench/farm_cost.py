"""What a node farm costs, and whether one node's heavy call holds the others.

    python bench/farm_cost.py [--nodes 50] [--pods 30] [--heavy 10000] [--json FILE]

Prints four tables, each from `fakecri serve --nodes N` run as its own process:

- ready: seconds from starting the process to every node's socket answering Version, for
  1 node and for --nodes; and a single `fakecri serve --socket` for comparison;
- memory: the farm's RSS empty and after every node holds --pods pods of 2 running
  containers (as a kubelet makes them), and the cost of each node added: (RSS with N nodes -
  RSS with 1 node) / (N - 1), both filled alike;
- idle CPU: the farm's CPU seconds over 10 s with nothing changing, after the fill;
- isolation: node-0 holds --heavy containers; while another process calls ListContainers,
  ListContainerStats and ListPodSandbox on node-0 back to back, this one times Version and
  ListPodSandbox on node-1 (p50, p99, max), against the same calls with node-0 idle.

The checkout is byte-compiled first, as an installed fakecri is (see bench/fill.py).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time

import grpc
from fill import byte_compile  # bench/fill.py, beside this script

from fakecri.api.runtime.v1 import api_pb2 as pb

RT = "/runtime.v1.RuntimeService/"
IMAGE = "registry.k8s.io/pause:3.9"
HERE = os.path.join(os.path.dirname(sys.executable), "fakecri")


def _identity(b: bytes) -> bytes:
    return b


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def call(channel: grpc.Channel, method: str, request: bytes, timeout: float = 60.0) -> bytes:
    return channel.unary_unary(RT + method, request_serializer=_identity, response_deserializer=_identity)(
        request, timeout=timeout)


def wait_ready(proc: subprocess.Popen, sockets: list[str], t0: float, limit: float = 60.0) -> float:
    version = pb.VersionRequest().SerializeToString()
    pending = list(sockets)
    channels: dict[str, grpc.Channel] = {}
    while pending:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode} before it answered")
        if time.perf_counter() - t0 > limit:
            raise RuntimeError(f"{len(pending)} sockets did not answer within {limit:.0f}s")
        sock = pending[0]
        if os.path.exists(sock):
            channel = channels.setdefault(sock, grpc.insecure_channel(f"unix://{sock}"))
            try:
                call(channel, "Version", version, timeout=1.0)
                pending.pop(0)
                continue
            except grpc.RpcError:
                pass
        time.sleep(0.002)
    elapsed = time.perf_counter() - t0
    for channel in channels.values():
        channel.close()
    return elapsed


def start_farm(workdir: str, nodes: int, tag: str, node_cidr_size: int = 20) -> tuple[subprocess.Popen, list[str],
                                                                                     float]:
    sockets = os.path.join(workdir, f"s-{tag}")
    t0 = time.perf_counter()
    proc = subprocess.Popen([HERE, "serve", "--nodes", str(nodes), "--socket-dir", sockets, "--root",
                             os.path.join(workdir, f"root-{tag}"), "--log-level", "error", "--pod-cidr", "10.0.0.0/8",
                             "--node-cidr-size", str(node_cidr_size),
                             "--max-subscribers", "1000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    paths = [os.path.join(sockets, f"node-{i}.sock") for i in range(nodes)]
    return proc, paths, wait_ready(proc, paths, t0)


def start_single(workdir: str, tag: str) -> tuple[subprocess.Popen, float]:
    sock = os.path.join(workdir, f"single-{tag}.sock")
    t0 = time.perf_counter()
    proc = subprocess.Popen([HERE, "serve", "--socket", sock, "--root", os.path.join(workdir, f"root-{tag}"),
                             "--log-level", "error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, wait_ready(proc, [sock], t0)


def fill(sock: str, pods: int, per_pod: int, prefix: str = "p") -> None:
    """`pods` pods of `per_pod` started containers, made as a kubelet makes them."""
    with grpc.insecure_channel(f"unix://{sock}", options=[("grpc.max_receive_message_length", 1 << 30)]) as ch:
        ch.unary_unary("/runtime.v1.ImageService/PullImage", request_serializer=_identity,
                       response_deserializer=_identity)(
            pb.PullImageRequest(image=pb.ImageSpec(image=IMAGE)).SerializeToString(), timeout=60)
        for i in range(pods):
            sandbox = pb.PodSandboxConfig(
                metadata=pb.PodSandboxMetadata(name=f"{prefix}-{i}", namespace="bench", uid=f"{prefix}-uid-{i}"),
                labels={"app": f"a{i % 10}", "io.kubernetes.pod.name": f"{prefix}-{i}",
                        "io.kubernetes.pod.namespace": "bench", "io.kubernetes.pod.uid": f"{prefix}-uid-{i}"},
                annotations={"kubernetes.io/config.source": "api"})
            sid = pb.RunPodSandboxResponse.FromString(call(ch, "RunPodSandbox", pb.RunPodSandboxRequest(
                config=sandbox).SerializeToString())).pod_sandbox_id
            for j in range(per_pod):
                config = pb.ContainerConfig(
                    metadata=pb.ContainerMetadata(name=f"c{j}"), image=pb.ImageSpec(image=IMAGE),
                    command=["sleep", "infinity"], log_path=f"c{j}/0.log",
                    labels={"io.kubernetes.container.name": f"c{j}", "io.kubernetes.pod.name": f"{prefix}-{i}"})
                cid = pb.CreateContainerResponse.FromString(call(ch, "CreateContainer", pb.CreateContainerRequest(
                    pod_sandbox_id=sid, config=config, sandbox_config=sandbox).SerializeToString())).container_id
                call(ch, "StartContainer", pb.StartContainerRequest(container_id=cid).SerializeToString())


def quantiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_ms": 1000 * ordered[len(ordered) // 2], "p99_ms": 1000 * ordered[int(len(ordered) * 0.99)],
            "max_ms": 1000 * ordered[-1], "calls": len(ordered)}


def probe(sock: str, seconds: float) -> dict[str, dict[str, float]]:
    """Version and ListPodSandbox on `sock`, one after the other, for `seconds`."""
    out: dict[str, list[float]] = {"Version": [], "ListPodSandbox": []}
    requests = {"Version": pb.VersionRequest().SerializeToString(),
                "ListPodSandbox": pb.ListPodSandboxRequest().SerializeToString()}
    with grpc.insecure_channel(f"unix://{sock}") as ch:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for method, request in requests.items():
                t0 = time.perf_counter()
                call(ch, method, request)
                out[method].append(time.perf_counter() - t0)
            time.sleep(0.002)
    return {m: quantiles(v) for m, v in out.items()}


def hammer(sock: str, stop: multiprocessing.synchronize.Event, counts: multiprocessing.Array) -> None:  # type: ignore[name-defined]
    """The heavy caller: the whole-node lists and stats, back to back, until told to stop."""
    requests = [("ListContainers", pb.ListContainersRequest()), ("ListContainerStats", pb.ListContainerStatsRequest()),
                ("ListPodSandbox", pb.ListPodSandboxRequest())]
    with grpc.insecure_channel(f"unix://{sock}", options=[("grpc.max_receive_message_length", 1 << 30)]) as ch:
        while not stop.is_set():
            for i, (method, request) in enumerate(requests):
                t0 = time.perf_counter()
                call(ch, method, request.SerializeToString())
                counts[i] += 1
                counts[3 + i] = max(counts[3 + i], time.perf_counter() - t0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=50)
    ap.add_argument("--pods", type=int, default=30, help="pods per node in the memory figures (2 containers each)")
    ap.add_argument("--heavy", type=int, default=10_000, help="containers on node-0 in the isolation figures")
    ap.add_argument("--probe-seconds", type=float, default=15.0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    byte_compile()
    figures: dict[str, object] = {"load_average": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="fc-farm-") as workdir:
        # ready
        ready: dict[str, list[float]] = {"single": [], "farm-1": [], f"farm-{args.nodes}": []}
        for r in range(3):
            proc, t = start_single(workdir, f"r{r}")
            ready["single"].append(t)
            proc.terminate()
            proc.wait()
            for n in (1, args.nodes):
                proc, _, t = start_farm(workdir, n, f"r{r}-{n}")
                ready[f"farm-{n}"].append(t)
                proc.terminate()
                proc.wait()
        figures["ready_s"] = {k: statistics.median(v) for k, v in ready.items()}
        print("\n## ready (median of 3)\n\n| server | seconds to every socket answering |\n|---|---|")
        for k, v in figures["ready_s"].items():  # type: ignore[attr-defined]
            print(f"| {k} | {v:.3f} |")
        # memory and idle CPU
        rows = []
        for n in (1, args.nodes):
            proc, sockets, _ = start_farm(workdir, n, f"m{n}")
            time.sleep(1.0)
            empty = rss_mb(proc.pid)
            for sock in sockets:
                fill(sock, args.pods, 2)
            time.sleep(2.0)
            filled = rss_mb(proc.pid)
            c0 = cpu_s(proc.pid)
            time.sleep(10.0)
            idle = cpu_s(proc.pid) - c0
            rows.append((n, empty, filled, idle))
            proc.terminate()
            proc.wait()
        (_, e1, f1, _), (n, en, fn, idle_n) = rows
        per_node = (fn - f1) / (n - 1)
        per_node_empty = (en - e1) / (n - 1)
        figures["memory"] = {"rows": rows, "per_added_node_mb": per_node, "per_added_empty_node_mb": per_node_empty}
        print(f"\n## memory and idle CPU ({args.pods} pods of 2 containers per node)\n")
        print("| nodes | RSS empty (MB) | RSS filled (MB) | CPU s over 10 s idle |\n|---|---|---|---|")
        for n_, e, f, c in rows:
            print(f"| {n_} | {e:.1f} | {f:.1f} | {c:.3f} |")
        print(f"\nper added node: {per_node:.2f} MB filled, {per_node_empty:.2f} MB empty")
        # isolation
        proc, sockets, _ = start_farm(workdir, 2, "iso")
        per_pod = 10
        fill(sockets[0], args.heavy // per_pod, per_pod, "heavy")
        fill(sockets[1], 30, 2)
        quiet = probe(sockets[1], args.probe_seconds / 3)
        stop = multiprocessing.Event()
        counts = multiprocessing.Array("d", 6)
        worker = multiprocessing.Process(target=hammer, args=(sockets[0], stop, counts))
        worker.start()
        time.sleep(1.0)
        busy = probe(sockets[1], args.probe_seconds)
        stop.set()
        worker.join(120)
        proc.terminate()
        proc.wait()
        heavy_calls = {m: {"calls": int(counts[i]), "slowest_s": counts[3 + i]}
                       for i, m in enumerate(("ListContainers", "ListContainerStats", "ListPodSandbox"))}
        figures["isolation"] = {"idle": quiet, "busy": busy, "heavy": heavy_calls}
        print(f"\n## isolation: node-1's calls while node-0 answers whole-node calls over {args.heavy} containers\n")
        print("| call on node-1 | node-0 idle p50 / p99 (ms) | node-0 busy p50 / p99 / max (ms) |\n|---|---|---|")
        for m in ("Version", "ListPodSandbox"):
            q, b = quiet[m], busy[m]
            print(f"| {m} | {q['p50_ms']:.1f} / {q['p99_ms']:.1f} | {b['p50_ms']:.1f} / {b['p99_ms']:.1f} / "
                  f"{b['max_ms']:.1f} |")
        print("\nnode-0's heavy calls meanwhile: " + ", ".join(
            f"{m} x{v['calls']} (slowest {v['slowest_s']:.2f} s)" for m, v in heavy_calls.items()))
    print(f"\nload average at start: {figures['load_average']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
