"""A server process driven over stdin/stdout (one JSON object per line each way).

    python bench/agent.py fake SOCKET     # fakecri, as `fakecri serve --log-level warning` runs it
    python bench/agent.py bare SOCKET     # a bare grpc.aio server answering from a table

The runner (bench/run.py) starts one of each so server CPU and RSS can be read from
/proc/<pid> of a process that does nothing else. Commands (each answered with one line):

  fake: populate / reset / rss / churn / subs / last_event / quit
  bare: load (a pickled {(method, request bytes): response bytes or [messages]}) / churn / subs / quit
"""
from __future__ import annotations

import asyncio
import gc
import json
import os
import pickle
import sys
import threading
import time
from collections import deque

import grpc
from google.protobuf import message_factory

from fakecri.api.runtime.v1 import api_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["RuntimeService"]
MAX_MSG = 64 * 1024 * 1024


def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


# ---------------------------------------------------------------- kubelet-like objects


def sandbox_config(i: int, group: int) -> pb.PodSandboxConfig:
    name = f"pod-{i}"
    uid = f"{i:08d}-0000-4000-8000-000000000000"
    return pb.PodSandboxConfig(
        metadata=pb.PodSandboxMetadata(name=name, namespace="bench", uid=uid, attempt=0),
        hostname=name,
        log_directory="",  # no log files: fakecri would write one per container under it
        labels={"io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": "bench",
                "io.kubernetes.pod.uid": uid, "app": "bench", "group": str(group)},
        annotations={"kubernetes.io/config.seen": "2026-11-22T08:00:00.000000000Z",
                     "kubernetes.io/config.source": "api"},
        linux=pb.LinuxPodSandboxConfig(cgroup_parent=f"/kubepods/besteffort/pod{uid}"),
    )


def container_config(sb_cfg: pb.PodSandboxConfig, j: int, group: int) -> pb.ContainerConfig:
    md = sb_cfg.metadata
    name = f"c{j}"
    return pb.ContainerConfig(
        metadata=pb.ContainerMetadata(name=name, attempt=0),
        image=pb.ImageSpec(image="registry.k8s.io/pause:3.9"),
        command=["/pause"],
        envs=[pb.KeyValue(key="POD_NAME", value=md.name.encode()),
              pb.KeyValue(key="KUBERNETES_SERVICE_HOST", value=b"10.96.0.1")],
        mounts=[pb.Mount(container_path="/var/run/secrets/kubernetes.io/serviceaccount",
                         host_path=f"/var/lib/kubelet/pods/{md.uid}/volumes/kubernetes.io~projected/kube-api-access",
                         readonly=True)],
        labels={"io.kubernetes.container.name": name, "io.kubernetes.pod.name": md.name,
                "io.kubernetes.pod.namespace": "bench", "io.kubernetes.pod.uid": md.uid, "group": str(group)},
        annotations={"io.kubernetes.container.hash": "3c2d8f1a", "io.kubernetes.container.restartCount": "0",
                     "io.kubernetes.container.terminationMessagePath": "/dev/termination-log"},
        log_path=f"{name}/0.log",
        linux=pb.LinuxContainerConfig(resources=pb.LinuxContainerResources(cpu_shares=2, oom_score_adj=1000)),
    )


# ---------------------------------------------------------------- fakecri


class FakeAgent:
    def __init__(self, socket: str) -> None:
        from fakecri.logs import configure_logging
        from fakecri.server.cri.runtime_service import runtime_servicers
        from fakecri.server.process.app import FakeCRIServer

        configure_logging("json", "warning")
        # No call log lines, as `fakecri serve --log-level warning`.
        self.server = FakeCRIServer(socket=socket, max_subscribers=None, subscriber_buffer=1_000_000,
                                    subscriber_policy="drop", pod_cidr="10.0.0.0/8", log_rpcs=False)
        self._servicers = runtime_servicers
        self.loop: asyncio.AbstractEventLoop | None = None
        self.next_pod = 0
        self.churn_task: asyncio.Task | None = None
        self.churned = 0
        self.configs: dict[str, pb.PodSandboxConfig] = {}  # sandbox id -> the config it was run with

    async def start(self) -> None:
        """On the main thread's loop, as `fakecri serve` runs it."""
        self.loop = asyncio.get_running_loop()
        await self.server.start_async()
        self.node = self.server.node
        # Each RPC by name, on the one servicer of its family that has it.
        self.svc = {name: getattr(s, name) for s in self._servicers(self.node) for name in dir(s) if name[:1].isupper()}

    async def serve(self) -> None:
        await self.server.serve_forever()

    async def _call(self, method: str, req):
        """One RPC through the servicer and the same after-call steps, minus the transport."""
        with self.node.changing():
            return await self.svc[method](req, None)

    async def _pod(self, containers: int, group: int, start: bool = True) -> tuple[str, list[str]]:
        i = self.next_pod
        self.next_pod += 1
        cfg = sandbox_config(i, group)
        sid = (await self._call("RunPodSandbox", pb.RunPodSandboxRequest(config=cfg))).pod_sandbox_id
        self.configs[sid] = cfg
        cids = []
        for j in range(containers):
            ccfg = container_config(cfg, j, group)
            req = pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg, sandbox_config=cfg)
            cid = (await self._call("CreateContainer", req)).container_id
            if start:
                await self._call("StartContainer", pb.StartContainerRequest(container_id=cid))
            cids.append(cid)
        return sid, cids

    async def populate(self, sandboxes: int, per_pod: int, with_containers: int | None = None,
                       groups: int = 100) -> dict:
        """`sandboxes` pods; the first `with_containers` (all by default) get `per_pod` containers."""
        self.node.runtime.images.pull("registry.k8s.io/pause:3.9")
        with_containers = sandboxes if with_containers is None else with_containers
        t0 = time.perf_counter()
        sample_sid = sample_cid = ""
        for n in range(sandboxes):
            sid, cids = await self._pod(per_pod if n < with_containers else 0, n % groups)
            if n == min(sandboxes, max(with_containers, 1)) // 2:
                sample_sid = sid
                sample_cid = cids[0] if cids else ""
            if n % 500 == 499:
                await asyncio.sleep(0)  # let calls in flight through
        rt = self.node.runtime
        counts = rt.counts()
        return {"sandboxes": counts["sandboxes"], "containers": counts["containers"],
                "seconds": time.perf_counter() - t0,
                "sample_sid": sample_sid, "sample_cid": sample_cid}

    async def add_containers(self, per_pod: int, group_count: int = 100) -> dict:
        """`per_pod` more started containers in every existing sandbox (the memory scenario)."""
        t0 = time.perf_counter()
        rt = self.node.runtime
        for n, sb in enumerate(rt.list_sandboxes()):
            cfg = self.configs[sb.id]
            base = len(sb.container_ids)
            for j in range(per_pod):
                ccfg = container_config(cfg, base + j, n % group_count)
                req = pb.CreateContainerRequest(pod_sandbox_id=sb.id, config=ccfg, sandbox_config=cfg)
                cid = (await self._call("CreateContainer", req)).container_id
                await self._call("StartContainer", pb.StartContainerRequest(container_id=cid))
            if n % 500 == 499:
                await asyncio.sleep(0)
        return {"containers": rt.counts()["containers"], "seconds": time.perf_counter() - t0}

    async def fill_wire(self) -> dict:
        """Build every record's cached list fragment: the first relist does."""
        n = len(await self._call("ListPodSandbox", pb.ListPodSandboxRequest()))
        n += len(await self._call("ListContainers", pb.ListContainersRequest()))
        return {"bytes": n}

    async def reset(self) -> dict:
        self.stop_churn()
        self.node.reset()
        self.configs.clear()
        self.next_pod = 0
        return {}

    async def _churn(self, rate: float) -> None:
        """Pod churn at about `rate` events/s: run, create, start, stop, remove (8 events a cycle)."""
        self.node.runtime.images.pull("registry.k8s.io/pause:3.9")
        loop = asyncio.get_running_loop()
        owed = 0.0
        last = loop.time()
        while True:
            await asyncio.sleep(0.01)
            now = loop.time()
            owed = min(owed + (now - last) * rate / 8, rate)  # cycles owed; no runaway catch-up
            last = now
            while owed >= 1:
                owed -= 1
                sid, _ = await self._pod(1, 0)
                await self._call("StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=sid))
                await self._call("RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
                self.churned += 1

    async def churn(self, rate: float) -> dict:
        self.stop_churn()
        if rate > 0:
            self.churn_task = asyncio.ensure_future(self._churn(rate))
        return {"emitted": self.node.bus.emitted}

    def stop_churn(self) -> None:
        if self.churn_task is not None:
            self.churn_task.cancel()
            self.churn_task = None

    async def subs(self) -> dict:
        return {"subs": len(self.node.bus.subscribers), "emitted": self.node.bus.emitted}

    async def rpc_count(self) -> dict:
        return {"rpcs": sum(n for k, n in self.node.counters.items() if k.startswith("rpc:"))}

    async def last_event(self) -> dict:
        hist = self.node.bus.history
        return {"hex": hist[-1].hex() if hist else ""}

    def handle(self, cmd: dict) -> dict:
        op = cmd.pop("op")
        if op == "rss":
            gc.collect()
            return {"rss": rss_bytes()}
        if op == "quit":
            asyncio.run_coroutine_threadsafe(self.server.stop_async(), self.loop).result(30)
            return {}
        return asyncio.run_coroutine_threadsafe(getattr(self, op)(**cmd), self.loop).result(3600)


# ---------------------------------------------------------------- the bare server


class BareAgent:
    """grpc.aio, same server options; each method parses its request (as any server would)
    and answers prebuilt bytes looked up by (method, request bytes)."""

    def __init__(self, socket: str) -> None:
        self.table: dict[tuple[str, bytes], object] = {}
        self.subscribers: list[tuple[deque, asyncio.Event]] = []
        self.event = b""
        self.churn_task: asyncio.Task | None = None
        self.socket = socket

    async def serve(self) -> None:
        await self.done.wait()

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.done = asyncio.Event()
        socket = self.socket
        self.grpc_server = grpc.aio.server(options=[("grpc.max_receive_message_length", 16 * 1024 * 1024),
                                                    ("grpc.max_send_message_length", 16 * 1024 * 1024),
                                                    ("grpc.so_reuseport", 0)])
        handlers = {}
        for m in SERVICE.methods:
            parse = message_factory.GetMessageClass(m.input_type).FromString
            if m.name == "GetContainerEvents":
                handlers[m.name] = grpc.unary_stream_rpc_method_handler(self._events, request_deserializer=parse)
            elif m.server_streaming:
                handlers[m.name] = grpc.unary_stream_rpc_method_handler(self._stream(m.name),
                                                                        request_deserializer=parse)
            else:
                handlers[m.name] = grpc.unary_unary_rpc_method_handler(self._unary(m.name), request_deserializer=parse)
        self.grpc_server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE.full_name, handlers)])
        self.grpc_server.add_insecure_port(f"unix://{socket}")
        await self.grpc_server.start()

    def _unary(self, name: str):
        async def handler(request, context):
            resp = self.table.get((name, request.SerializeToString()))
            if resp is None:
                resp = self.table.get((name, b"*"))
            if resp is None:
                await context.abort(grpc.StatusCode.NOT_FOUND, f"bare: no response loaded for {name}")
            return resp
        return handler

    def _stream(self, name: str):
        async def handler(request, context):
            for msg in self.table.get((name, request.SerializeToString()), ()):
                yield msg
        return handler

    async def _events(self, request, context):
        q: deque = deque()
        wake = asyncio.Event()
        entry = (q, wake)
        self.subscribers.append(entry)
        try:
            while True:
                while q:
                    yield q.popleft()
                wake.clear()
                await wake.wait()
        finally:
            self.subscribers.remove(entry)

    async def _churn(self, rate: float) -> None:
        loop = asyncio.get_running_loop()
        owed, last = 0.0, loop.time()
        while True:
            await asyncio.sleep(0.01)
            now = loop.time()
            owed = min(owed + (now - last) * rate, rate)
            last = now
            while owed >= 1:
                owed -= 1
                for q, wake in self.subscribers:
                    q.append(self.event)
                    wake.set()

    def handle(self, cmd: dict) -> dict:
        op = cmd.pop("op")
        if op == "load":
            with open(cmd["path"], "rb") as f:
                self.table.update(pickle.load(f))
            return {"entries": len(self.table)}
        if op == "clear":
            self.table.clear()
            return {}
        if op == "event":
            self.event = bytes.fromhex(cmd["hex"])
            return {}
        if op == "churn":
            def go():
                if self.churn_task is not None:
                    self.churn_task.cancel()
                    self.churn_task = None
                if cmd["rate"] > 0:
                    self.churn_task = asyncio.ensure_future(self._churn(cmd["rate"]))
            self.loop.call_soon_threadsafe(go)
            return {}
        if op == "subs":
            return {"subs": len(self.subscribers)}
        if op == "rss":
            return {"rss": rss_bytes()}
        if op == "quit":
            async def stop():
                await self.grpc_server.stop(0.2)
                self.done.set()
            asyncio.run_coroutine_threadsafe(stop(), self.loop).result(5)
            return {}
        raise ValueError(f"unknown op {op}")


def main() -> None:
    kind, socket = sys.argv[1], sys.argv[2]
    agent = FakeAgent(socket) if kind == "fake" else BareAgent(socket)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    loop.run_until_complete(agent.start())  # the server's loop owns the main thread
    out = sys.stdout

    def commands() -> None:
        out.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
        out.flush()
        for line in sys.stdin:
            cmd = json.loads(line)
            op = cmd.get("op")
            try:
                reply = agent.handle(cmd)
            except Exception as exc:  # report, keep serving
                reply = {"error": repr(exc)}
            out.write(json.dumps(reply) + "\n")
            out.flush()
            if op == "quit":
                break

    threading.Thread(target=commands, daemon=True).start()
    loop.run_until_complete(agent.serve())
    loop.close()


if __name__ == "__main__":
    main()
