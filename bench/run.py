"""fakecri benchmarks: every figure side by side with a baseline, in one run.

    .venv/bin/python bench/run.py [--size tiny|default|full] [--only unary,lists,...] [--json FILE]

Scenarios: unary, lists, fanout, memory, pleg, conformance. Servers run as separate
processes (bench/agent.py): fakecri as `fakecri serve --log-level warning` runs it, and a
bare grpc.aio server (same options, same unix socket kind) answering prebuilt bytes
captured from fakecri. The client is a sync grpcio channel that does not parse replies.
Rounds are interleaved (both servers once per round, in shuffled order) and each ratio is
the median over rounds of the ratio taken within a round. See BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
RT = "/runtime.v1.RuntimeService/"
KUBELET_MAX_MSG = 16 * 1024 * 1024
CLK_TCK = os.sysconf("SC_CLK_TCK")

SIZES: dict[str, dict[str, Any]] = {
    # tiny: the scenarios end to end for tests/bench (no figure means anything at this size), with
    # short measuring windows and warm-ups, and the suite's waits that decide nothing here short too.
    "tiny": dict(rounds=2, unary_n=20, list_sizes=[100], list_n=lambda n: 3, fan_subs=[1, 2], fan_secs=0.2,
                 fan_warm=0.1, fan_rounds=1, mixed_n=20, mem_sandboxes=200, mem_per_pod=10, pleg_pods=[20], pleg_n=2,
                 conf_examples=3, conf_steps=10, suite_examples=1, suite_steps=3,
                 suite_options=dict(probe_wait=0.2, relist_scale=0.25)),
    "default": dict(rounds=7, unary_n=300, list_sizes=[100, 1000, 10000],
                    list_n=lambda n: max(5, min(200, 200_000 // n)), fan_subs=[1, 10, 100], fan_secs=2.0,
                    fan_warm=0.3, fan_rounds=3, mixed_n=300, mem_sandboxes=2000, mem_per_pod=10, pleg_pods=[110, 1000],
                    pleg_n=5, conf_examples=30, conf_steps=30, suite_examples=5, suite_steps=10),
    "full": dict(rounds=9, unary_n=400, list_sizes=[100, 1000, 10000, 100000],
                 list_n=lambda n: max(5, min(200, 200_000 // n)), fan_subs=[1, 10, 100], fan_secs=3.0,
                 fan_warm=0.3, fan_rounds=5, mixed_n=500, mem_sandboxes=10000, mem_per_pod=10,
                 pleg_pods=[110, 1000, 10000], pleg_n=5, conf_examples=50, conf_steps=30, suite_examples=10,
                 suite_steps=20),
}
# Offered event rate (events/s) per subscriber count in the fan-out scenario.
FAN_RATE = {1: 2000, 2: 1000, 10: 1000, 100: 100}


# ---------------------------------------------------------------- processes


def read_json(proc: subprocess.Popen) -> dict:
    """The next JSON line from a helper process (anything else a library printed is skipped)."""
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"helper process {proc.args} exited (code {proc.poll()})")
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass


class Agent:
    """A server process (bench/agent.py) driven over stdin/stdout."""

    def __init__(self, kind: str, workdir: str) -> None:
        self.kind = kind
        self.socket = os.path.join(workdir, f"{kind}.sock")
        self.target = f"unix://{self.socket}"
        self.proc = subprocess.Popen([PY, os.path.join(HERE, "agent.py"), kind, self.socket],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.pid = read_json(self.proc)["pid"]

    def __call__(self, op: str, **kw: Any) -> dict:
        self.proc.stdin.write(json.dumps({"op": op, **kw}) + "\n")
        self.proc.stdin.flush()
        reply = read_json(self.proc)
        if "error" in reply:
            raise RuntimeError(f"{self.kind} agent {op}: {reply['error']}")
        return reply

    def cpu_s(self) -> float:
        with open(f"/proc/{self.pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / CLK_TCK

    def close(self) -> None:
        try:
            self("quit")
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Subscribers:
    def __init__(self, target: str, n: int) -> None:
        self.proc = subprocess.Popen([PY, os.path.join(HERE, "subs.py"), target, str(n)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        read_json(self.proc)

    def count(self) -> int:
        self.proc.stdin.write("count\n")
        self.proc.stdin.flush()
        return read_json(self.proc)["count"]

    def close(self) -> None:
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(5)
        except Exception:
            self.proc.kill()


def wait_subs(agent: Agent, n: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while agent("subs")["subs"] < n:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{agent.kind}: {n} subscribers did not connect")
        time.sleep(0.05)


# ---------------------------------------------------------------- raw client


class Raw:
    """Sync grpcio channel; requests and replies stay bytes (no parsing on the client)."""

    def __init__(self, target: str, max_msg: int = KUBELET_MAX_MSG) -> None:
        self.channel = grpc.insecure_channel(target, options=[("grpc.max_receive_message_length", max_msg),
                                                              ("grpc.max_send_message_length", max_msg)])
        self._u: dict[str, Any] = {}
        self._s: dict[str, Any] = {}

    def unary(self, method: str, req: bytes, timeout: float = 120.0) -> bytes:
        fn = self._u.get(method) or self._u.setdefault(method, self.channel.unary_unary(RT + method))
        return fn(req, timeout=timeout)

    def stream(self, method: str, req: bytes, timeout: float = 120.0) -> list[bytes]:
        fn = self._s.get(method) or self._s.setdefault(method, self.channel.unary_stream(RT + method))
        return list(fn(req, timeout=timeout))

    def close(self) -> None:
        self.channel.close()


def call_fn(raw: Raw, method: str, req: bytes) -> Callable[[], Any]:
    if method.startswith("Stream"):
        return lambda: raw.stream(method, req)
    return lambda: raw.unary(method, req)


def timed(fn: Callable[[], Any], n: int, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    pc = time.perf_counter
    for _ in range(n):
        t = pc()
        fn()
        out.append(pc() - t)
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


@dataclass
class Pair:
    """Fake-vs-bare latencies collected over interleaved rounds."""

    fake_p50: list[float] = field(default_factory=list)
    bare_p50: list[float] = field(default_factory=list)
    fake_p99: list[float] = field(default_factory=list)
    bare_p99: list[float] = field(default_factory=list)
    max_s: float = 0.0

    def add(self, fake: list[float], bare: list[float]) -> None:
        self.fake_p50.append(pct(fake, 0.5))
        self.bare_p50.append(pct(bare, 0.5))
        self.fake_p99.append(pct(fake, 0.99))
        self.bare_p99.append(pct(bare, 0.99))
        self.max_s = max(self.max_s, max(fake))

    def summary(self) -> dict:
        return {
            "fake_p50_us": med(self.fake_p50) * 1e6, "bare_p50_us": med(self.bare_p50) * 1e6,
            "p50_ratio": med([f / b for f, b in zip(self.fake_p50, self.bare_p50, strict=False)]),
            "fake_p99_us": med(self.fake_p99) * 1e6, "bare_p99_us": med(self.bare_p99) * 1e6,
            "p99_ratio": med([f / b for f, b in zip(self.fake_p99, self.bare_p99, strict=False)]),
            "fake_max_s": self.max_s,
        }


def run_pairs(cases: dict[str, tuple[Callable, Callable]], rounds: int, n_for: Callable[[str], int]) -> dict:
    """cases: name -> (fake call, bare call). Per round, each case, both servers in shuffled order."""
    pairs = {name: Pair() for name in cases}
    for _ in range(rounds):
        for name, (fake, bare) in cases.items():
            f, b = timed_alternating(fake, bare, n_for(name))
            pairs[name].add(f, b)
    return {name: p.summary() for name, p in pairs.items()}


def timed_alternating(fake: Callable[[], Any], bare: Callable[[], Any], n: int) -> tuple[list[float], list[float]]:
    """n calls to each, alternating call by call (random pair order), so drift hits both alike."""
    fake(), bare()
    pc = time.perf_counter
    f, b = [], []
    for _ in range(n):
        first, second, fl, bl = (fake, bare, f, b) if random.random() < 0.5 else (bare, fake, b, f)
        t = pc()
        first()
        t2 = pc()
        second()
        t3 = pc()
        fl.append(t2 - t)
        bl.append(t3 - t2)
    return f, b


def load_bare(bare: Agent, workdir: str, table: dict) -> None:
    path = os.path.join(workdir, "table.pkl")
    with open(path, "wb") as f:
        pickle.dump(table, f)
    bare("clear")
    bare("load", path=path)
    os.unlink(path)


def capture(raw: Raw, method: str, req: bytes) -> Any:
    return raw.stream(method, req) if method.startswith("Stream") else raw.unary(method, req)


# ---------------------------------------------------------------- scenarios


def s_unary(ctx: dict) -> dict:
    fake, bare, cfg = ctx["fake"], ctx["bare"], ctx["cfg"]
    fake("reset")
    info = fake("populate", sandboxes=10, per_pod=1)
    reqs = {
        "Version": pb.VersionRequest(version="v1").SerializeToString(),
        "ContainerStatus": pb.ContainerStatusRequest(container_id=info["sample_cid"]).SerializeToString(),
        "PodSandboxStatus": pb.PodSandboxStatusRequest(pod_sandbox_id=info["sample_sid"]).SerializeToString(),
    }
    rf, rb = Raw(fake.target), Raw(bare.target)
    table = {(m, r): rf.unary(m, r) for m, r in reqs.items()}
    load_bare(bare, ctx["workdir"], table)
    cases = {m: (call_fn(rf, m, r), call_fn(rb, m, r)) for m, r in reqs.items()}
    out = run_pairs(cases, cfg["rounds"], lambda _: cfg["unary_n"])
    for m in out:
        out[m]["bytes"] = len(table[(m, reqs[m])])
    rf.close(), rb.close()
    return out


def _filter_reqs(info: dict, label: dict[str, str]) -> dict[str, tuple[str, bytes]]:
    cf, sf = pb.ContainerFilter, pb.PodSandboxFilter
    lc, ls = pb.ListContainersRequest, pb.ListPodSandboxRequest
    return {
        "ListContainers": ("ListContainers", lc().SerializeToString()),
        "ListContainers id": ("ListContainers", lc(filter=cf(id=info["sample_cid"])).SerializeToString()),
        "ListContainers pod_sandbox_id": ("ListContainers",
                                          lc(filter=cf(pod_sandbox_id=info["sample_sid"])).SerializeToString()),
        "ListContainers label": ("ListContainers", lc(filter=cf(label_selector=label)).SerializeToString()),
        "StreamContainers": ("StreamContainers", pb.StreamContainersRequest().SerializeToString()),
        "ListPodSandbox": ("ListPodSandbox", ls().SerializeToString()),
        "ListPodSandbox id": ("ListPodSandbox", ls(filter=sf(id=info["sample_sid"])).SerializeToString()),
        "ListPodSandbox label": ("ListPodSandbox", ls(filter=sf(label_selector=label)).SerializeToString()),
        "StreamPodSandboxes": ("StreamPodSandboxes", pb.StreamPodSandboxesRequest().SerializeToString()),
    }


def s_lists(ctx: dict) -> dict:
    """N sandboxes and N containers: the first N/10 sandboxes hold 10 containers each."""
    fake, bare, cfg = ctx["fake"], ctx["bare"], ctx["cfg"]
    out: dict[str, Any] = {}
    for n in cfg["list_sizes"]:
        fake("reset")
        info = fake("populate", sandboxes=n, per_pod=10, with_containers=max(1, n // 10))
        rf = Raw(fake.target)
        rb = Raw(bare.target)
        reqs = _filter_reqs(info, {"group": "7"})
        table, cases, meta = {}, {}, {}
        for name, (m, r) in reqs.items():
            t = time.perf_counter()
            try:
                resp = capture(rf, m, r)
            except grpc.RpcError as err:  # over the 16 MiB limit: the Stream* twin is the way
                meta[name] = {"error": err.code().name, "first_call_s": time.perf_counter() - t}
                continue
            size = sum(map(len, resp)) if isinstance(resp, list) else len(resp)
            biggest = max(map(len, resp), default=0) if isinstance(resp, list) else len(resp)
            meta[name] = {"bytes": size, "max_message_bytes": biggest, "first_call_s": time.perf_counter() - t}
            table[(m, r)] = resp
            cases[name] = (call_fn(rf, m, r), call_fn(rb, m, r))
        load_bare(bare, ctx["workdir"], table)
        del table
        per_n = cfg["list_n"](n)
        res = run_pairs(cases, cfg["rounds"] if n <= 10_000 else 5,
                        lambda name, per_n=per_n: per_n if " " not in name else max(per_n, 50))
        for name in reqs:
            out[f"{name} @{n}"] = {**meta[name], **res.get(name, {}), "populate_s": info["seconds"]}
        rf.close(), rb.close()
    return out


def s_fanout(ctx: dict) -> dict:
    """Deliveries/s and server CPU per delivery under pod churn, fake vs bare, per subscriber count."""
    fake, bare, cfg = ctx["fake"], ctx["bare"], ctx["cfg"]
    fake("reset")
    warm = cfg["fan_warm"]  # churn running this long before a window opens
    fake("churn", rate=100)
    time.sleep(warm)
    fake("churn", rate=0)
    bare("event", hex=fake("last_event")["hex"])
    secs = cfg["fan_secs"]
    out: dict[str, Any] = {}

    def window(agent: Agent, subs: Subscribers | None, rate: float) -> tuple[float, float]:
        agent("churn", rate=rate)
        time.sleep(warm)
        c0, t0, w0 = subs.count() if subs else 0, agent.cpu_s(), time.perf_counter()
        time.sleep(secs)
        c1, t1, w1 = subs.count() if subs else 0, agent.cpu_s(), time.perf_counter()
        agent("churn", rate=0)
        return (c1 - c0) / (w1 - w0), (t1 - t0) / (w1 - w0)

    for s in cfg["fan_subs"]:
        rate = FAN_RATE.get(s, 1000)
        rows: dict[str, list[float]] = {k: [] for k in ("fake_dps", "bare_dps", "fake_us", "fake_net_us", "bare_us")}
        for _ in range(cfg["fan_rounds"]):
            order = ["fake", "bare"]
            random.shuffle(order)
            for who in order:
                agent = fake if who == "fake" else bare
                base_cpu = window(agent, None, rate)[1] if who == "fake" else 0.0  # churn alone, no subscriber
                subs = Subscribers(agent.target, s)
                try:
                    wait_subs(agent, s)
                    dps, cpu = window(agent, subs, rate)
                finally:
                    subs.close()
                rows[f"{who}_dps"].append(dps)
                rows[f"{who}_us"].append(cpu / dps * 1e6 if dps else float("nan"))
                if who == "fake":
                    rows["fake_net_us"].append((cpu - base_cpu) / dps * 1e6 if dps else float("nan"))
        out[f"{s} subs"] = {"offered_dps": rate * s, **{k: med(v) for k, v in rows.items()},
                            "us_ratio": med([f / b for f, b in zip(rows["fake_us"], rows["bare_us"], strict=False)])}

    # Unary p50 while 10 subscribers x 500 events/s stream, against idle (same subscribers open).
    rf = Raw(fake.target)
    v = pb.VersionRequest(version="v1").SerializeToString()
    idle, busy, dps = [], [], []
    subs = Subscribers(fake.target, 10)
    try:
        wait_subs(fake, 10)
        for _ in range(cfg["rounds"]):
            idle.append(pct(timed(lambda: rf.unary("Version", v), cfg["mixed_n"]), 0.5))
            fake("churn", rate=500)
            time.sleep(warm)
            c0, w0 = subs.count(), time.perf_counter()
            busy.append(pct(timed(lambda: rf.unary("Version", v), cfg["mixed_n"]), 0.5))
            dps.append((subs.count() - c0) / (time.perf_counter() - w0))
            fake("churn", rate=0)
            time.sleep(warm * 2 / 3)
    finally:
        subs.close()
        rf.close()
    out["mixed"] = {"idle_p50_us": med(idle) * 1e6, "streaming_p50_us": med(busy) * 1e6,
                    "ratio": med([b / i for b, i in zip(busy, idle, strict=False)]), "deliveries_per_s": med(dps)}
    return out


def s_memory(ctx: dict) -> dict:
    """A fresh fakecri process: RSS delta per sandbox, then per container."""
    cfg = ctx["cfg"]
    agent = Agent("fake", ctx["workdir"] + "/m")  # its own socket dir
    try:
        agent("populate", sandboxes=20, per_pod=2)  # warm up imports and caches
        agent("reset")
        r0 = agent("rss")["rss"]
        n_sb = cfg["mem_sandboxes"]
        a = agent("populate", sandboxes=n_sb, per_pod=0)
        r1 = agent("rss")["rss"]
        b = agent("add_containers", per_pod=cfg["mem_per_pod"])
        r2 = agent("rss")["rss"]
        agent("fill_wire")
        r3 = agent("rss")["rss"]
        raw = Raw(agent.target)  # a relist through the Stream* calls (its cached batches stay)
        for _ in range(2):
            raw.stream("StreamContainers", b"")
            raw.stream("StreamPodSandboxes", b"")
        raw.close()
        r4 = agent("rss")["rss"]
        n_c = b["containers"]
        return {"fakecri": {"sandboxes": n_sb, "containers": n_c,
                "rss_base_mib": r0 / 2**20, "rss_total_mib": r4 / 2**20,
                "bytes_per_sandbox": (r1 - r0) / n_sb, "bytes_per_container": (r2 - r1) / n_c,
                "bytes_per_container_with_wire_cache": (r3 - r1) / n_c,
                # everything after the sandboxes, relist caches included, charged to containers
                "bytes_per_container_after_relist": (r4 - r1) / n_c,
                "populate_s": a["seconds"] + b["seconds"]}}
    finally:
        agent.close()


def s_pleg(ctx: dict) -> dict:
    """GenericPLEG.relist() (fakecri.client) against fakecri; the steady relist also against bare."""
    from fakecri.client import CRIClient
    from fakecri.client.pleg.generic import GenericPLEG

    fake, bare, cfg = ctx["fake"], ctx["bare"], ctx["cfg"]
    out = {}
    for pods in cfg["pleg_pods"]:
        fake("reset")
        fake("populate", sandboxes=pods, per_pod=2)
        rf = Raw(fake.target)
        table = {("ListPodSandbox", b"*"): rf.unary("ListPodSandbox", b""),
                 ("ListContainers", b"*"): rf.unary("ListContainers", b"")}
        rf.close()
        load_bare(bare, ctx["workdir"], table)
        cf, cb = CRIClient(fake.target), CRIClient(bare.target)
        pf, pbare = GenericPLEG(cf), GenericPLEG(cb)
        t = time.perf_counter()
        assert pf.relist()
        cold = time.perf_counter() - t
        pbare._old = dict(pf._old)  # same records: bare's steady relist finds no change either
        pbare._relisted_once = True
        steady_f, steady_b = [], []
        for _ in range(cfg["pleg_n"]):
            order = [(pf, steady_f), (pbare, steady_b)]
            random.shuffle(order)
            for p, acc in order:
                t = time.perf_counter()
                assert p.relist()
                acc.append(time.perf_counter() - t)
        cf.close(), cb.close()
        out[f"{pods} pods"] = {"cold_relist_ms": cold * 1e3, "cold_ms_per_pod": cold * 1e3 / pods,
                               "steady_relist_ms": med(steady_f) * 1e3, "bare_steady_ms": med(steady_b) * 1e3,
                               "steady_ratio": med([f / b for f, b in zip(steady_f, steady_b, strict=False)])}
    return out


def s_conformance(ctx: dict) -> dict:
    from bench_conformance import run_machine  # bench/ is on sys.path

    fake, cfg = ctx["fake"], ctx["cfg"]
    fake("reset")
    rf = Raw(fake.target)
    v = pb.VersionRequest(version="v1").SerializeToString()
    rates, rpcs, ratio, version_rates = [], [], [], []
    for _ in range(max(1, cfg["rounds"] // 3)):
        lat = timed(lambda: rf.unary("Version", v), 100)
        version_rate = len(lat) / sum(lat)
        version_rates.append(version_rate)
        steps, calls, secs = run_machine(fake.target, cfg["conf_examples"], cfg["conf_steps"])
        rates.append(steps / secs)
        rpcs.append(calls / secs)
        ratio.append(calls / secs / version_rate)
    rf.close()
    out = {"lifecycle machine": {"steps_per_s": med(rates), "rpcs_per_s": med(rpcs),
                                 "rpc_rate_vs_version_loop": med(ratio),
                                 "what": "bench/bench_conformance.py: raw stubs, model check per step"}}
    try:
        from fakecri.conformance import Options, run_suite
    except ImportError:
        return out
    fake("reset")
    examples, steps = cfg["suite_examples"], cfg["suite_steps"]
    n0 = fake("rpc_count")["rpcs"]
    t = time.perf_counter()
    res = run_suite(Options(endpoint=fake.target, max_examples=examples, steps=steps, shrink=False, seed=1,
                            image="registry.k8s.io/pause:3.9", **cfg.get("suite_options", {})))
    secs = time.perf_counter() - t
    rpcs = fake("rpc_count")["rpcs"] - n0
    verdict = 'FAILED ' + ','.join(r.name for r in res.must_failures) if res.failed() else 'passed'
    out["fakecri.conformance"] = {"steps_per_s": examples * steps / secs, "rpcs_per_s": rpcs / secs,
                                  "rpc_rate_vs_version_loop": rpcs / secs / med(version_rates),
                                  "what": f"run_suite: {examples} examples x {steps} steps (upper bound on steps), "
                                          f"{verdict}, "
                                          f"{secs:.1f} s incl. settle waits"}
    return out


SCENARIOS = {"unary": s_unary, "lists": s_lists, "fanout": s_fanout, "memory": s_memory, "pleg": s_pleg,
             "conformance": s_conformance}


# ---------------------------------------------------------------- output


def fmt(v: Any) -> str:
    if isinstance(v, float):
        if v != v:
            return "nan"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        return f"{v:.2f}" if abs(v) >= 1 else f"{v:.3f}"
    return str(v)


def print_table(title: str, rows: dict[str, dict]) -> None:
    cols: list[str] = []
    for r in rows.values():
        cols += [k for k in r if k not in cols]
    print(f"\n## {title}\n")
    print("| case | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for name, r in rows.items():
        print(f"| {name} | " + " | ".join(fmt(r.get(c, "")) for c in cols) + " |")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=sorted(SIZES), default="default")
    ap.add_argument("--only", default="", help="comma-separated scenarios: " + ",".join(SCENARIOS))
    ap.add_argument("--json", dest="json_path", help="also write the results as JSON to this file ('-': stdout)")
    ap.add_argument("--seed", type=int, default=1, help="shuffle seed")
    args = ap.parse_args(argv)
    random.seed(args.seed)
    sys.path.insert(0, HERE)
    names = [s for s in args.only.split(",") if s] or list(SCENARIOS)
    for n in names:
        if n not in SCENARIOS:
            ap.error(f"unknown scenario {n!r}")
    cfg = SIZES[args.size]
    workdir = tempfile.mkdtemp(prefix="fcb-", dir="/tmp")
    os.makedirs(workdir + "/m")
    results: dict[str, Any] = {"size": args.size, "load_avg_start": os.getloadavg()[0]}
    fake = Agent("fake", workdir)
    bare = Agent("bare", workdir)
    ctx = {"fake": fake, "bare": bare, "cfg": cfg, "workdir": workdir}
    try:
        for name in names:
            t = time.perf_counter()
            results[name] = SCENARIOS[name](ctx)
            print_table(f"{name} ({time.perf_counter() - t:.0f} s)", results[name])
    finally:
        fake.close()
        bare.close()
        shutil.rmtree(workdir, ignore_errors=True)
    results["load_avg_end"] = os.getloadavg()[0]
    if args.json_path:
        text = json.dumps(results, indent=1, default=str)
        if args.json_path == "-":
            print(text)
        else:
            with open(args.json_path, "w") as f:
                f.write(text)
    return results


if __name__ == "__main__":
    main()
