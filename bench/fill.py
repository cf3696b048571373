"""Fill a runtime the way a kubelet does, and time it against the others in the same run.

    python bench/fill.py [--containers 10000] [--per-pod 10] [--rounds 3]
                         [--server NAME=COMMAND ...] [--go-fake PATH] [--json FILE]

Each server is started as its own process on a fresh unix socket; the figures are

- ready: seconds from starting the process to the first answered Version call;
- fill: seconds for RunPodSandbox, then CreateContainer and StartContainer for each of its
  containers, pod after pod, through one client, until `--containers` containers run;
- server CPU: the server process's CPU seconds during the fill.

This checkout is byte-compiled first, as an installed fakecri is (see `byte_compile`).

By default the servers are this checkout's `fakecri serve` (`fakecri`), a bare grpc.aio
server that answers the same calls with canned bytes and does nothing else (`bare`: the
floor any Python gRPC server stands on), and, when found on PATH or through
FAKECRI_K8S_BIN, Kubernetes' Go fake runtime (`cri-client-fake`, as kubemark's hollow
nodes run it). `--server NAME=COMMAND` adds or replaces one; the command
gets `--socket PATH` appended for fakecri-like servers, or `{sock}` replaced where it
appears (and `{root}` by a fresh directory path). Rounds interleave the servers in a shuffled
order, and each ratio is the median over rounds of the ratio taken within a round, against
the first server named `go-fake` (else the first server). The client sends prebuilt request bytes and parses only the id
it needs, so its cost is the same for every server.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb

RT = "/runtime.v1.RuntimeService/"
READY_TIMEOUT_S = 30.0


def _identity(b: bytes) -> bytes:
    return b


@dataclass
class Server:
    name: str
    command: list[str]
    ready_s: list[float] = field(default_factory=list)
    fill_s: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def byte_compile() -> None:
    """Write this checkout's .pyc files, as pip does when it installs fakecri: a checkout run
    with PYTHONDONTWRITEBYTECODE=1 (as this sandbox sets it) would otherwise compile every
    module from source on each start, and its ready time would measure the compiler."""
    import compileall

    import fakecri

    compileall.compile_dir(os.path.dirname(fakecri.__file__), quiet=1)


def go_fake() -> str | None:
    kit = os.environ.get("FAKECRI_K8S_BIN")
    if kit and os.path.isfile(os.path.join(kit, "cri-client-fake")):
        return os.path.join(kit, "cri-client-fake")
    return shutil.which("cri-client-fake")


def command_for(template: list[str], sock: str) -> list[str]:
    if any("{sock}" in word for word in template):
        return [word.replace("{sock}", sock) for word in template]
    return template + ["--socket", sock]


def start(server: Server, workdir: str) -> tuple[subprocess.Popen, grpc.Channel, float]:
    sock = os.path.join(workdir, f"{server.name}-{random.getrandbits(32):08x}.sock")
    t0 = time.perf_counter()
    proc = subprocess.Popen(command_for(server.command, sock), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=workdir)
    version = pb.VersionRequest().SerializeToString()
    channel = None
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{server.name} exited with {proc.returncode} before it answered")
        if os.path.exists(sock):
            channel = channel or grpc.insecure_channel(f"unix://{sock}")
            try:
                channel.unary_unary(RT + "Version", request_serializer=_identity,
                                    response_deserializer=_identity)(version, timeout=1.0)
                return proc, channel, time.perf_counter() - t0
            except grpc.RpcError:
                pass
        if time.perf_counter() - t0 > READY_TIMEOUT_S:
            proc.kill()
            raise RuntimeError(f"{server.name} did not answer within {READY_TIMEOUT_S:.0f}s")
        time.sleep(0.002)


def requests(pods: int, per_pod: int) -> list[tuple[bytes, list[bytes]]]:
    """For each pod: its RunPodSandbox request, and the CreateContainer requests (the sandbox id left out)."""
    out = []
    for i in range(pods):
        sandbox = pb.PodSandboxConfig(
            metadata=pb.PodSandboxMetadata(name=f"fill-{i}", namespace="bench", uid=f"uid-{i}"),
            labels={"app": f"fill-{i % 100}", "io.kubernetes.pod.name": f"fill-{i}"},
            log_directory=f"/tmp/fakecri-fill/{i}")
        containers = [pb.ContainerConfig(
            metadata=pb.ContainerMetadata(name=f"c{j}"), image=pb.ImageSpec(image="registry.k8s.io/pause:3.9"),
            command=["sleep", "infinity"], log_path=f"c{j}/0.log",
            labels={"io.kubernetes.container.name": f"c{j}"}) for j in range(per_pod)]
        out.append((pb.RunPodSandboxRequest(config=sandbox).SerializeToString(),
                    [pb.CreateContainerRequest(config=c, sandbox_config=sandbox).SerializeToString()
                     for c in containers]))
    return out


def fill(channel: grpc.Channel, work: list[tuple[bytes, list[bytes]]]) -> float:
    call = {m: channel.unary_unary(RT + m, request_serializer=_identity, response_deserializer=_identity)
            for m in ("RunPodSandbox", "CreateContainer", "StartContainer")}
    image = pb.PullImageRequest(image=pb.ImageSpec(image="registry.k8s.io/pause:3.9")).SerializeToString()
    channel.unary_unary("/runtime.v1.ImageService/PullImage", request_serializer=_identity,
                        response_deserializer=_identity)(image, timeout=30)
    t0 = time.perf_counter()
    for run, creates in work:
        sid = pb.RunPodSandboxResponse.FromString(call["RunPodSandbox"](run, timeout=30)).pod_sandbox_id
        # pod_sandbox_id is field 1 of CreateContainerRequest: prepend it to the prebuilt rest.
        head = pb.CreateContainerRequest(pod_sandbox_id=sid).SerializeToString()
        for create in creates:
            cid = pb.CreateContainerResponse.FromString(call["CreateContainer"](head + create, timeout=30)).container_id
            call["StartContainer"](pb.StartContainerRequest(container_id=cid).SerializeToString(), timeout=30)
    return time.perf_counter() - t0


def serve_bare(sock: str) -> None:
    """A grpc.aio server with fakecri's message limits that answers every call with canned bytes."""
    import asyncio

    answers = {
        "Version": pb.VersionResponse(version="0.1.0", runtime_name="bare", runtime_api_version="v1"),
        "RunPodSandbox": pb.RunPodSandboxResponse(pod_sandbox_id="b" * 64),
        "CreateContainer": pb.CreateContainerResponse(container_id="c" * 64),
        "StartContainer": pb.StartContainerResponse(),
        "PullImage": pb.PullImageResponse(image_ref="sha256:" + "d" * 64),
    }
    canned = {name: msg.SerializeToString() for name, msg in answers.items()}

    async def run() -> None:
        size = 16 * 1024 * 1024
        server = grpc.aio.server(options=[("grpc.max_receive_message_length", size),
                                          ("grpc.max_send_message_length", size), ("grpc.so_reuseport", 0)])

        def handler(name: str):
            data = canned[name]

            async def answer(request: bytes, context: object) -> bytes:
                return data
            return grpc.unary_unary_rpc_method_handler(answer, request_deserializer=_identity,
                                                       response_serializer=_identity)

        for service, names in (("runtime.v1.RuntimeService", ("Version", "RunPodSandbox", "CreateContainer",
                                                              "StartContainer")),
                               ("runtime.v1.ImageService", ("PullImage",))):
            server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
                service, {n: handler(n) for n in names})])
        server.add_insecure_port(f"unix://{sock}")
        await server.start()
        await server.wait_for_termination()

    asyncio.run(run())


def main() -> int:
    if sys.argv[1:2] == ["--serve-bare"]:
        serve_bare(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--containers", type=int, default=10_000)
    ap.add_argument("--per-pod", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server", action="append", default=[], metavar="NAME=COMMAND")
    ap.add_argument("--go-fake", default=None, help="the cri-client-fake binary (default: FAKECRI_K8S_BIN or PATH)")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args()
    servers: dict[str, Server] = {}
    fake = args.go_fake or go_fake()
    if fake:
        servers["go-fake"] = Server("go-fake", [fake, "--sock", "{sock}"])
    servers["bare"] = Server("bare", [sys.executable, os.path.abspath(__file__), "--serve-bare", "{sock}"])
    here = os.path.join(os.path.dirname(sys.executable), "fakecri")  # this checkout's console script
    servers["fakecri"] = Server("fakecri", [here, "serve", "--log-level", "error", "--root", "{root}"])
    for item in args.server:
        name, _, command = item.partition("=")
        servers[name] = Server(name, shlex.split(command))
    byte_compile()
    pods = max(1, args.containers // args.per_pod)
    work = requests(pods, args.per_pod)
    base = next(iter(servers))
    ratios: dict[str, dict[str, list[float]]] = {n: {"ready": [], "fill": []} for n in servers}
    with tempfile.TemporaryDirectory(prefix="fc-fill-") as workdir:
        for r in range(args.rounds):
            order = list(servers.values())
            random.shuffle(order)
            got: dict[str, tuple[float, float]] = {}
            for s in order:
                root = os.path.join(workdir, f"root-{s.name}-{r}")  # a state root of its own, made by the server
                s_cmd = [w.replace("{root}", root) for w in s.command]
                proc, channel, ready = start(Server(s.name, s_cmd), workdir)
                try:
                    cpu0 = cpu_seconds(proc.pid)
                    took = fill(channel, work)
                    s.cpu_s.append(cpu_seconds(proc.pid) - cpu0)
                finally:
                    channel.close()
                    proc.terminate()
                    proc.wait(30)
                s.ready_s.append(ready)
                s.fill_s.append(took)
                got[s.name] = (ready, took)
                print(f"round {r + 1}: {s.name:<14} ready {ready * 1000:7.1f} ms   fill {took:7.2f} s", flush=True)
            for name, (ready, took) in got.items():
                ratios[name]["ready"].append(ready / got[base][0])
                ratios[name]["fill"].append(took / got[base][1])
    print(f"\n{pods * args.per_pod} containers ({pods} pods of {args.per_pod}); medians of {args.rounds} rounds; "
          f"ratios against {base}")
    print(f"{'server':<14} {'ready ms':>9} {'ready x':>8} {'fill s':>8} {'fill x':>7} {'per container ms':>17} "
          f"{'server CPU s':>13}")
    table = {}
    for s in servers.values():
        row = {"ready_ms": statistics.median(s.ready_s) * 1000,
               "ready_ratio": statistics.median(ratios[s.name]["ready"]),
               "fill_s": statistics.median(s.fill_s), "fill_ratio": statistics.median(ratios[s.name]["fill"])}
        row["per_container_ms"] = row["fill_s"] * 1000 / (pods * args.per_pod)
        row["server_cpu_s"] = statistics.median(s.cpu_s)
        table[s.name] = row
        print(f"{s.name:<14} {row['ready_ms']:9.1f} {row['ready_ratio']:8.2f} {row['fill_s']:8.2f} "
              f"{row['fill_ratio']:7.2f} {row['per_container_ms']:17.3f} {row['server_cpu_s']:13.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"containers": pods * args.per_pod, "per_pod": args.per_pod, "rounds": args.rounds,
                       "baseline": base, "servers": table}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
