"""Real kubelets on one fakecri node farm, against the same kubelets on one fakecri process per node.

    sudo .venv/bin/python bench/farm_kubelets.py [--nodes 1,10,25] [--pods 30] [--evented | --generic]
        [--max] [--steady 30] [--bound 60] [--json FILE] [--raise-inotify-limit] [--kubelet-standalone PATH]

For each N and each PLEG (generic, evented), N standalone kubelets (kubelet-standalone.sh: no API
server, static pods, each kubelet with its own ports in 21000-23999, node name, workdir and a private
tmpfs on /var/lib/kubelet) run against

- farm: one `fakecri serve --nodes N --socket-dir DIR`, kubelet i on DIR/node-i.sock;
- separate: N `fakecri serve --socket DIR/node-i.sock` processes, one per kubelet;

one after the other in the same run (the order alternates), so their ratios are taken side by side.
Each kubelet then gets `--pods` static pods at once (written within milliseconds of each other): one
crash-looping busybox (`sh -c 'exit 1'`, restartPolicy Always), every fifth a pause container, every
tenth two containers, the rest `busybox sleep infinity`. Figures per run:

- running s: seconds from writing the manifests until every pod of every kubelet is up in the
  kubelet's own /pods (polled every `--poll` 0.5 s, so that late): phase Running and every container has started
  at least once (running now, or terminated with a start time, or restarted): the crash-looping pod
  counts once its container has started once.
- start p50/p99: per-pod startup latency from the manifest write to the kubelet's PLEG reporting the
  pod's sandbox and every container started (the "SyncLoop (PLEG): event for pod" lines of its -v=2 log:
  ContainerStarted, or ContainerDied for a container that started and exited between two relists),
  exact quantiles over all pods of all kubelets. The kubelet's kubelet_pod_start_sli_duration_seconds is
  never observed for static pods (pkg/kubelet/config ignores them for the SLI: it is measured on the API
  watch), so a standalone kubelet cannot report it. The kubelet's kubelet_pod_start_duration_seconds
  (first seen to Running) is given too, as Prometheus' histogram_quantile computes it from the buckets
  summed over all kubelets; note that it observes each pod twice (once at its first sync, once when it
  turns Running), which pulls its quantiles down.
- fakecri CPU: utime+stime from /proc of the fakecri process(es): seconds from the manifest write to
  all pods up, and % of one core over the steady window that follows (`--steady` seconds).
- RSS: fakecri's VmRSS (all processes for separate) per node, and for the farm the increment over an
  empty farm (`--nodes 0`) per node; the kubelets' mean VmRSS.
- relist p99: kubelet_pleg_relist_duration_seconds over the steady window (bucket delta).
- machine: CPU busy % over the steady window (/proc/stat), memory available, load average.

A run "fits" when every pod is up within `--bound` seconds, still up after the steady window, and
every kubelet still answers. `--max` then tries larger N on the farm (x1.5 each step) until one does
not fit or memory would fall below `--min-available-gb`, and runs the largest fitting N side by side.
A last phase runs one kubelet with 110 pods (the kubelet's default max-pods) on a farm node for the
kubelet's own relist cost.

Needs root (the kubelets do), a kubelet on PATH or in FAKECRI_K8S_BIN, and kubelet-standalone.sh
(FAKECRI_KUBELET_STANDALONE, FAKECRI_K8S_BIN or PATH, or --kubelet-standalone). Each kubelet holds 6
inotify instances: with --raise-inotify-limit the script raises fs.inotify.max_user_instances (never
lowers it) when N kubelets would not fit. Every kubelet and fakecri process is stopped and the work
directory removed on exit, Ctrl-C or failure. Prints markdown tables; --json writes every figure.
"""
from __future__ import annotations

import argparse
import atexit
import concurrent.futures
import contextlib
import datetime as dt
import http.client
import json
import math
import os
import re
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field

PORT_BASE = 21000  # kubelet i: API on PORT_BASE + i, healthz on HEALTHZ_BASE + i (this bench's range: 21000-23999)
HEALTHZ_BASE = 22000
MAX_KUBELETS = 1000
INOTIFY_PER_KUBELET = 6
SLO_P99_S = 5.0
CLK_TCK = os.sysconf("SC_CLK_TCK")
FAKECRI = [sys.executable, "-m", "fakecri.cli"]
INOTIFY_LIMIT = "/proc/sys/fs/inotify/max_user_instances"
LEGACY_LOG_DIR = "/var/log/containers"
FAKECRI_LOG_LEVEL = os.environ.get("BENCH_FAKECRI_LOG_LEVEL", "warning")  # info logs every CRI call


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ processes and /proc

_children: list[subprocess.Popen] = []
_children_lock = threading.Lock()


def spawn(argv: list[str], log_path: str, env: dict | None = None) -> subprocess.Popen:
    """A child in a session of its own (so its whole group can be stopped), output to log_path."""
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=env)
    with _children_lock:
        _children.append(proc)
    return proc


def stop_all(procs: list[subprocess.Popen], grace_s: float = 15.0) -> None:
    """SIGTERM each process group, SIGKILL what is left after grace_s."""
    for proc in procs:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    for proc in procs:
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
    with _children_lock:
        for proc in procs:
            if proc in _children:
                _children.remove(proc)


def stop_every_child() -> None:
    with _children_lock:
        left = list(_children)
    if left:
        stop_all(left, grace_s=10.0)


def remove_log_links(under: str) -> int:
    """Remove the symlinks the kubelets left in the host's /var/log/containers (its legacy log links,
    which the tmpfs on /var/lib/kubelet does not cover) that point into `under`."""
    removed = 0
    prefix = os.path.abspath(under) + os.sep
    with contextlib.suppress(OSError):
        for entry in os.scandir(LEGACY_LOG_DIR):
            with contextlib.suppress(OSError):
                if entry.is_symlink() and os.readlink(entry.path).startswith(prefix):
                    os.unlink(entry.path)
                    removed += 1
    return removed


def cpu_s(pid: int) -> float:
    """utime + stime of a process, in seconds (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def meminfo_gb() -> dict[str, float]:
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            key, value = line.split(":", 1)
            if key in ("MemTotal", "MemAvailable"):
                out[key] = int(value.split()[0]) / 1024 / 1024
    return out


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def inotify_in_use() -> int:
    count = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:inotify":
                        count += 1
        except OSError:
            continue
    return count


def ensure_inotify(kubelets: int, raise_limit: bool) -> str:
    """Room for `kubelets` more kubelets' inotify instances, or a RuntimeError that says what to do."""
    with open(INOTIFY_LIMIT) as f:
        limit = int(f.read())
    used = inotify_in_use()
    need = used + kubelets * INOTIFY_PER_KUBELET + 16
    if need <= limit:
        return ""
    if not raise_limit:
        raise RuntimeError(f"{kubelets} kubelets need about {kubelets * INOTIFY_PER_KUBELET} inotify instances; "
                           f"{used} of fs.inotify.max_user_instances={limit} are in use. Rerun with "
                           f"--raise-inotify-limit, or: sysctl -w fs.inotify.max_user_instances={need + 64}")
    with open(INOTIFY_LIMIT, "w") as f:
        f.write(str(need + 64))
    return f"fs.inotify.max_user_instances raised from {limit} to {need + 64}"


# ------------------------------------------------------------------ quantiles and metrics


def quantile(values: list[float], q: float) -> float:
    """The q-quantile of the samples, interpolated between closest ranks (numpy's default)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    if pos == lo or ordered[hi] == ordered[lo]:
        return ordered[lo]
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def histogram_quantile(q: float, buckets: dict[float, float]) -> float:
    """What Prometheus' histogram_quantile(q, ...) returns for cumulative `buckets` {le: count}:
    linear interpolation inside the bucket the rank falls in, the lowest bucket starting at 0, and
    the highest finite bound when the rank falls in the +Inf bucket."""
    if not buckets or math.inf not in buckets:
        return math.nan
    les = sorted(buckets)
    total = buckets[math.inf]
    if total <= 0:
        return math.nan
    rank = q * total
    for i, le in enumerate(les):
        if buckets[le] >= rank:
            if le == math.inf:
                return les[-2] if len(les) > 1 else math.nan
            lower = les[i - 1] if i > 0 else 0.0
            if i == 0 and le <= 0:
                return le
            below = buckets[les[i - 1]] if i > 0 else 0.0
            inside = buckets[le] - below
            return lower + (le - lower) * ((rank - below) / inside if inside else 1.0)
    return math.nan


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)')
_LE = re.compile(r'le="([^"]+)"')


def parse_metrics(text: str, names: tuple[str, ...]) -> dict[str, dict]:
    """{name: {"buckets": {le: count}, "sum": s, "count": c}} for histograms, {name: {"value": v}}
    for the rest, labels other than le summed over."""
    out: dict[str, dict] = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        m = _SAMPLE.match(line)
        if not m:
            continue
        metric, labels, raw = m.group(1), m.group(2) or "", m.group(3)
        try:
            value = float(raw)
        except ValueError:
            continue
        for name in names:
            if metric == name + "_bucket":
                le = _LE.search(labels)
                if le:
                    bound = math.inf if le.group(1) == "+Inf" else float(le.group(1))
                    b = out.setdefault(name, {}).setdefault("buckets", {})
                    b[bound] = b.get(bound, 0.0) + value
            elif metric in (name + "_sum", name + "_count"):
                key = metric[len(name) + 1:]
                out.setdefault(name, {})[key] = out.get(name, {}).get(key, 0.0) + value
            elif metric == name:
                out.setdefault(name, {})["value"] = out.get(name, {}).get("value", 0.0) + value
    return out


def add_histograms(into: dict[float, float], more: dict[float, float], sign: float = 1.0) -> dict[float, float]:
    for le, count in more.items():
        into[le] = into.get(le, 0.0) + sign * count
    return into


METRICS = ("kubelet_pod_start_sli_duration_seconds", "kubelet_pod_start_duration_seconds",
           "kubelet_pleg_relist_duration_seconds", "kubelet_evented_pleg_connection_success_count",
           "kubelet_evented_pleg_connection_error_count", "kubelet_runtime_operations_errors_total",
           "kubelet_running_pods", "kubelet_running_containers")


# ------------------------------------------------------------------ the kubelet's log

_KLOG = re.compile(r'^[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6})\s')
_PLEG = re.compile(r'"SyncLoop \(PLEG\): event for pod" pod="([^"]+)" event=\{[^}]*"Type":"(Container\w+)",'
                   r'"Data":"([0-9a-f]+)"')


def klog_time(line: str, year: int) -> float | None:
    m = _KLOG.match(line)
    if not m:
        return None
    month, day, hh, mm, ss, us = (int(g) for g in m.groups())
    return dt.datetime(year, month, day, hh, mm, ss, us).timestamp()  # klog writes local time


def started_from_log(lines, containers: dict[str, int], year: int) -> dict[str, float]:
    """{pod "ns/name": time} when the kubelet's PLEG had reported the pod's sandbox and each of its
    `containers[pod]` containers: the moment it had seen 1 + containers distinct ids started (or died:
    a container that starts and exits between two generic relists shows as ContainerDied only)."""
    seen: dict[str, set[str]] = {}
    out: dict[str, float] = {}
    for line in lines:
        if "SyncLoop (PLEG)" not in line:
            continue
        m = _PLEG.search(line)
        if not m:
            continue
        pod, kind, cid = m.groups()
        if pod in out or pod not in containers or kind not in ("ContainerStarted", "ContainerDied"):
            continue
        ids = seen.setdefault(pod, set())
        ids.add(cid)
        if len(ids) >= containers[pod] + 1:
            when = klog_time(line, year)
            if when is not None:
                out[pod] = when
    return out


# ------------------------------------------------------------------ pods


def pod_specs(count: int) -> list[tuple[str, int, str]]:
    """(name, number of containers, manifest) for `count` pods: pod 0 crash-loops, every fifth (2, 7,
    ...) is a pause container, every tenth (5, 15, ...) has two containers, the rest sleep."""
    out = []
    for i in range(count):
        name = "crash" if i == 0 else f"p{i:03d}"
        if i == 0:
            ctrs = [("c", "busybox:1.36", ["sh", "-c", "exit 1"])]
        elif i % 10 == 5:
            ctrs = [("app", "busybox:1.36", ["sleep", "infinity"]), ("side", "registry.k8s.io/pause:3.10", ["/pause"])]
        elif i % 5 == 2:
            ctrs = [("pause", "registry.k8s.io/pause:3.10", ["/pause"])]
        else:
            ctrs = [("app", "busybox:1.36", ["sleep", "infinity"])]
        manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                    "spec": {"restartPolicy": "Always", "terminationGracePeriodSeconds": 1,
                             "containers": [{"name": n, "image": img, "command": cmd} for n, img, cmd in ctrs]}}
        out.append((name, len(ctrs), json.dumps(manifest)))
    return out


def container_started(status: dict) -> bool:
    state = status.get("state") or {}
    if "running" in state or int(status.get("restartCount") or 0) > 0:
        return True
    if (state.get("terminated") or {}).get("startedAt"):
        return True
    return bool((status.get("lastState") or {}).get("terminated"))


def pods_up(items: list[dict], suffix: str, want: dict[str, int]) -> set[str]:
    """Names (without the node suffix) of the pods that are up: phase Running and each of their
    `want[name]` containers started at least once."""
    up = set()
    for pod in items:
        name = pod.get("metadata", {}).get("name", "").removesuffix(suffix)
        if name not in want:
            continue
        status = pod.get("status") or {}
        statuses = status.get("containerStatuses") or []
        if status.get("phase") == "Running" and len(statuses) >= want[name] and all(map(container_started, statuses)):
            up.add(name)
    return up


# ------------------------------------------------------------------ runtimes


class Runtime:
    """fakecri serving N node sockets: one farm process, or one process per node."""

    def __init__(self, kind: str, nodes: int, workdir: str) -> None:
        self.kind, self.nodes, self.workdir = kind, nodes, workdir
        self.procs: list[subprocess.Popen] = []
        self.sockdir = os.path.join(workdir, "s")
        self.ready_s = math.nan

    def socket(self, i: int) -> str:
        return os.path.join(self.sockdir, f"node-{i}.sock")

    def start(self, timeout: float) -> None:
        os.makedirs(self.sockdir, exist_ok=True)
        t0 = time.monotonic()
        if self.kind == "farm":
            self.procs.append(spawn([*FAKECRI, "serve", "--nodes", str(self.nodes), "--socket-dir", self.sockdir,
                                     "--root", os.path.join(self.workdir, "root"), "--log-level", FAKECRI_LOG_LEVEL],
                                    os.path.join(self.workdir, "fakecri.log")))
        else:
            for i in range(self.nodes):
                self.procs.append(spawn([*FAKECRI, "serve", "--socket", self.socket(i), "--seed", str(i),
                                         "--root", os.path.join(self.workdir, "root", f"node-{i}"),
                                         "--log-level", FAKECRI_LOG_LEVEL],
                                        os.path.join(self.workdir, f"fakecri-{i}.log")))
        self._wait_ready(t0 + timeout)
        self.ready_s = time.monotonic() - t0

    def _wait_ready(self, deadline: float) -> None:
        import grpc

        from fakecri.api.runtime.v1 import api_pb2 as pb
        from fakecri.api.runtime.v1 import api_pb2_grpc

        pending = list(range(self.nodes))
        while pending:
            for proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"fakecri exited {proc.returncode}: see {self.workdir}/fakecri*.log")
            still = []
            for i in pending:
                try:
                    with grpc.insecure_channel("unix:" + self.socket(i)) as ch:
                        api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=2)
                except grpc.RpcError:
                    still.append(i)
            pending = still
            if pending and time.monotonic() > deadline:
                raise RuntimeError(f"fakecri: {len(pending)} node sockets never answered")
            if pending:
                time.sleep(0.2)

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def cpu(self) -> float:
        return sum(cpu_s(pid) for pid in self.pids())

    def rss(self) -> float:
        return sum(rss_mb(pid) for pid in self.pids())

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.procs)

    def stop(self) -> None:
        stop_all(self.procs)


def idle_rss(kind: str, workdir: str) -> float:
    """VmRSS (MB) of an idle fakecri: an empty farm (--nodes 0) or one runtime, 2 s after it answers."""
    os.makedirs(workdir, exist_ok=True)
    if kind == "farm":
        proc = spawn([*FAKECRI, "serve", "--nodes", "0", "--socket-dir", os.path.join(workdir, "s"),
                      "--root", os.path.join(workdir, "root"), "--log-level", "warning"],
                     os.path.join(workdir, "fakecri.log"))
        ready = os.path.join(workdir, "s", "farm.sock")
    else:
        ready = os.path.join(workdir, "one.sock")
        proc = spawn([*FAKECRI, "serve", "--socket", ready, "--root", os.path.join(workdir, "root"),
                      "--log-level", "warning"], os.path.join(workdir, "fakecri.log"))
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(ready):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"an idle fakecri ({kind}) never came up: see {workdir}/fakecri.log")
            time.sleep(0.1)
        time.sleep(2)
        return rss_mb(proc.pid)
    finally:
        stop_all([proc])


# ------------------------------------------------------------------ kubelets


class Kubelet:
    def __init__(self, index: int, script: str, sock: str, workdir: str, evented: bool) -> None:
        self.index, self.script, self.sock, self.workdir, self.evented = index, script, sock, workdir, evented
        self.name = f"node-{index}"
        self.port, self.healthz = PORT_BASE + index, HEALTHZ_BASE + index
        self.manifests = os.path.join(workdir, "manifests")
        self.log_path = os.path.join(workdir, "kubelet.log")
        self.proc: subprocess.Popen | None = None
        self.conn: http.client.HTTPSConnection | None = None
        self.t0 = math.nan
        self.up: set[str] = set()
        self.all_up_at = math.nan

    def start(self) -> None:
        os.makedirs(self.manifests, exist_ok=True)
        argv = [self.script, self.sock, self.workdir]
        if self.evented:
            argv.append("--evented-pleg")
        # --node-ip: without it a standalone kubelet resolves its node name through DNS each time it builds
        # its node object (at every pod admission, in the sync loop); where that lookup hangs until the
        # resolver's 5 s timeout, as Go's resolver does in this sandbox, pods are admitted 5 s apart.
        argv += [f"--port={self.port}", f"--healthz-port={self.healthz}", f"--hostname-override={self.name}",
                 "--node-ip=127.0.0.1"]
        self.proc = spawn(argv, self.log_path)

    def healthy(self) -> bool:
        try:
            c = http.client.HTTPConnection("127.0.0.1", self.healthz, timeout=2)
            c.request("GET", "/healthz")
            ok = c.getresponse().read() == b"ok"
            c.close()
            return ok
        except OSError:
            return False

    def get(self, path: str, timeout: float = 20) -> bytes:
        """GET on the kubelet's API over one kept-alive TLS connection; b"" when it does not answer."""
        for _ in range(2):
            try:
                if self.conn is None:
                    ctx = ssl.create_default_context()
                    ctx.check_hostname = False
                    ctx.verify_mode = ssl.CERT_NONE
                    self.conn = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout, context=ctx)
                self.conn.request("GET", path)
                resp = self.conn.getresponse()
                body = resp.read()
                return body if resp.status == 200 else b""
            except (OSError, http.client.HTTPException):
                with contextlib.suppress(Exception):
                    self.conn.close()  # type: ignore[union-attr]
                self.conn = None
        return b""

    def pods(self) -> list[dict]:
        body = self.get("/pods")
        if not body:
            return []
        try:
            return json.loads(body).get("items") or []
        except ValueError:
            return []

    def write_pods(self, specs: list[tuple[str, int, str]]) -> None:
        self.t0 = time.time()
        for name, _, manifest in specs:
            hidden = os.path.join(self.manifests, f".{name}.tmp")  # the kubelet skips dot files
            with open(hidden, "w") as f:
                f.write(manifest)
            os.rename(hidden, os.path.join(self.manifests, f"{name}.json"))

    def rss(self) -> float:
        return rss_mb(self.proc.pid) if self.proc else 0.0

    def cpu(self) -> float:
        return cpu_s(self.proc.pid) if self.proc else 0.0

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n: int = 15) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""


def find_standalone(given: str | None) -> str:
    candidates = [given, os.environ.get("FAKECRI_KUBELET_STANDALONE")]
    kit = os.environ.get("FAKECRI_K8S_BIN")
    if kit:
        candidates.append(os.path.join(kit, "kubelet-standalone.sh"))
    candidates.append(shutil.which("kubelet-standalone.sh"))
    for c in candidates:
        if c and os.path.isfile(c):
            return os.path.abspath(c)
    raise SystemExit("kubelet-standalone.sh not found: give --kubelet-standalone PATH or set "
                     "FAKECRI_KUBELET_STANDALONE (or put it in FAKECRI_K8S_BIN or on PATH)")


def find_kubelet() -> str:
    kit = os.environ.get("FAKECRI_K8S_BIN")
    if kit and os.path.isfile(os.path.join(kit, "kubelet")):
        return os.path.join(kit, "kubelet")
    found = shutil.which("kubelet")
    if not found:
        raise SystemExit("no kubelet: put one on PATH or in FAKECRI_K8S_BIN")
    return found


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


# ------------------------------------------------------------------ one run


@dataclass
class Result:
    nodes: int
    runtime: str  # farm | separate
    pleg: str  # generic | evented
    pods_per_node: int
    fits: bool = False
    why: str = ""
    runtime_ready_s: float = math.nan
    kubelets_healthy_s: float = math.nan
    running_s: float = math.nan  # manifests written -> all pods up in /pods (poll: +-1 s)
    pods_up: int = 0
    pods_up_after_steady: int = 0
    start_p50_s: float = math.nan  # from the kubelets' PLEG log lines
    start_p99_s: float = math.nan
    start_max_s: float = math.nan
    start_samples: int = 0
    pod_start_duration_p50_s: float = math.nan  # kubelet_pod_start_duration_seconds, histogram_quantile
    pod_start_duration_p99_s: float = math.nan
    sli_p99_s: float = math.nan  # kubelet_pod_start_sli_duration_seconds (absent for static pods)
    fakecri_cpu_start_s: float = math.nan  # manifests written -> all up
    fakecri_cpu_steady_pct: float = math.nan  # % of one core over the steady window
    fakecri_rss_mb: float = math.nan
    fakecri_rss_per_node_mb: float = math.nan
    fakecri_rss_increment_per_node_mb: float = math.nan  # farm: over an empty farm
    fakecri_rss_connected_mb: float = math.nan  # kubelets connected, no pods yet
    kubelet_rss_mean_mb: float = math.nan
    kubelet_cpu_start_s: float = math.nan  # all kubelets
    kubelet_cpu_steady_pct: float = math.nan  # all kubelets, % of one core
    relist_p99_steady_s: float = math.nan
    relist_p99_all_s: float = math.nan
    relists_steady: float = 0.0
    evented_connections: float = 0.0
    evented_connection_errors: float = 0.0
    runtime_operation_errors: float = 0.0
    machine_busy_pct: float = math.nan  # over the steady window, all cores
    mem_available_gb: float = math.nan
    min_mem_available_gb: float = math.nan
    load: str = ""
    notes: list[str] = field(default_factory=list)


class MemoryWatch:
    """Samples MemAvailable every second; `low` is set once it falls below the floor."""

    def __init__(self, floor_gb: float) -> None:
        self.floor = floor_gb
        self.low = threading.Event()
        self.minimum = math.inf
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            avail = meminfo_gb()["MemAvailable"]
            self.minimum = min(self.minimum, avail)
            if avail < self.floor:
                self.low.set()

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def run_one(nodes: int, kind: str, evented: bool, pods: int, args, base: str, script: str,
            empty_farm_mb: float) -> Result:
    res = Result(nodes=nodes, runtime=kind, pleg="evented" if evented else "generic", pods_per_node=pods)
    res.load = loadavg()
    workdir = tempfile.mkdtemp(prefix=f"{kind[0]}{nodes}{res.pleg[0]}-", dir=base)
    runtime = Runtime(kind, nodes, os.path.join(workdir, "rt"))
    kubelets = [Kubelet(i, script, runtime.socket(i), os.path.join(workdir, f"k{i}"), evented) for i in range(nodes)]
    specs = pod_specs(pods)
    want = {name: n for name, n, _ in specs}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(16, max(1, nodes)))
    log(f"N={nodes} {kind} {res.pleg}: starting (load {res.load}, {meminfo_gb()['MemAvailable']:.1f} GB available)")
    try:
        with MemoryWatch(args.min_available_gb) as mem:
            try:
                _run_phases(res, runtime, kubelets, specs, want, pool, mem, args, empty_farm_mb)
            finally:
                res.min_mem_available_gb = mem.minimum if mem.minimum != math.inf else math.nan
    except RuntimeError as exc:
        res.fits = False
        res.why = res.why or str(exc)
        log(f"N={nodes} {kind} {res.pleg}: {res.why}")
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        stop_all([k.proc for k in kubelets if k.proc is not None])
        runtime.stop()
        remove_log_links(workdir)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    log(f"N={nodes} {kind} {res.pleg}: {'fits' if res.fits else 'does not fit: ' + res.why}; "
        f"running {res.running_s:.1f} s, start p99 {res.start_p99_s:.2f} s")
    return res


def _run_phases(res: Result, runtime: Runtime, kubelets: list[Kubelet], specs, want, pool, mem: MemoryWatch,
                args, empty_farm_mb: float) -> None:
    nodes = len(kubelets)
    busy = [port for k in kubelets for port in (k.port, k.healthz) if not port_free(port)]
    if busy:
        raise RuntimeError(f"ports already in use: {busy[:10]}")
    runtime.start(timeout=60 + nodes)
    res.runtime_ready_s = runtime.ready_s

    # kubelets: start them all, wait until every one answers healthz
    t0 = time.monotonic()
    for k in kubelets:
        k.start()
    pending = list(kubelets)
    deadline = t0 + 90 + 3 * nodes
    while pending:
        dead = [k for k in pending if not k.alive()]
        if dead:
            raise RuntimeError(f"kubelet {dead[0].name} exited {dead[0].proc.returncode}: {dead[0].log_tail()}")
        if mem.low.is_set():
            res.why = f"memory: MemAvailable fell below {args.min_available_gb} GB while the kubelets started"
            raise RuntimeError(res.why)
        if time.monotonic() > deadline:
            res.why = f"CPU: {len(pending)} of {nodes} kubelets not healthy within {deadline - t0:.0f} s"
            raise RuntimeError(res.why)
        pending = [k for k, ok in zip(pending, pool.map(Kubelet.healthy, pending), strict=True) if not ok]
        if pending:
            time.sleep(0.5)
    res.kubelets_healthy_s = time.monotonic() - t0
    time.sleep(args.settle)
    res.fakecri_rss_connected_mb = runtime.rss()

    # pods: all manifests at once, then poll /pods until every pod is up or the bound passes
    rt_cpu0, kl_cpu0 = runtime.cpu(), sum(k.cpu() for k in kubelets)
    t_write = time.time()
    for k in kubelets:
        k.write_pods(specs)
    total = nodes * len(specs)

    def poll(k: Kubelet) -> None:
        if len(k.up) < len(specs):
            k.up = pods_up(k.pods(), "-" + k.name, want)
            if len(k.up) == len(specs) and math.isnan(k.all_up_at):
                k.all_up_at = time.time()

    complete = False
    while True:
        round_start = time.monotonic()
        list(pool.map(poll, kubelets))
        res.pods_up = sum(len(k.up) for k in kubelets)
        if res.pods_up == total:
            res.running_s = max(k.all_up_at for k in kubelets) - t_write
            complete = True
            break
        if mem.low.is_set():
            res.why = f"memory: MemAvailable fell below {args.min_available_gb} GB"
            raise RuntimeError(res.why)
        dead = [k for k in kubelets if not k.alive()]
        if dead:
            raise RuntimeError(f"kubelet {dead[0].name} exited: {dead[0].log_tail()}")
        if time.time() - t_write > args.bound:  # measure on all the same: it says what ran out
            res.why = f"only {res.pods_up} of {total} pods up within {args.bound:.0f} s"
            break
        time.sleep(max(0.0, args.poll - (time.monotonic() - round_start)))
    res.fakecri_cpu_start_s = runtime.cpu() - rt_cpu0
    res.kubelet_cpu_start_s = sum(k.cpu() for k in kubelets) - kl_cpu0

    # the steady window (or, when the pods did not all come up, a window of the same length after the bound)
    before = list(pool.map(lambda k: parse_metrics(k.get("/metrics").decode(errors="replace"), METRICS), kubelets))
    rt_cpu1, kl_cpu1, ticks1, w0 = runtime.cpu(), sum(k.cpu() for k in kubelets), cpu_ticks(), time.monotonic()
    end = w0 + args.steady
    while time.monotonic() < end:
        if mem.low.is_set():
            res.why = f"memory: MemAvailable fell below {args.min_available_gb} GB in the steady window"
            raise RuntimeError(res.why)
        time.sleep(min(1.0, max(0.0, end - time.monotonic())))
    window = time.monotonic() - w0
    ticks2 = cpu_ticks()
    res.fakecri_cpu_steady_pct = 100 * (runtime.cpu() - rt_cpu1) / window
    res.kubelet_cpu_steady_pct = 100 * (sum(k.cpu() for k in kubelets) - kl_cpu1) / window
    res.machine_busy_pct = 100 * (ticks2[0] - ticks1[0]) / max(1, ticks2[1] - ticks1[1])
    res.fakecri_rss_mb = runtime.rss()
    res.fakecri_rss_per_node_mb = res.fakecri_rss_mb / nodes
    if runtime.kind == "farm" and not math.isnan(empty_farm_mb):
        res.fakecri_rss_increment_per_node_mb = (res.fakecri_rss_mb - empty_farm_mb) / nodes
    res.kubelet_rss_mean_mb = statistics.mean(k.rss() for k in kubelets)
    res.mem_available_gb = meminfo_gb()["MemAvailable"]
    after = list(pool.map(lambda k: parse_metrics(k.get("/metrics").decode(errors="replace"), METRICS), kubelets))
    _metrics_into(res, before, after)

    # still up?
    for k in kubelets:
        k.up = set()
    list(pool.map(poll, kubelets))
    res.pods_up_after_steady = sum(len(k.up) for k in kubelets)
    dead = [k.name for k in kubelets if not k.alive()]
    if dead or not runtime.alive():
        res.why = f"processes died in the steady window: {dead or 'fakecri'}"
        raise RuntimeError(res.why)
    if not complete:
        res.why += f" ({res.pods_up_after_steady} up {args.steady:.0f} s later)"
    elif res.running_s > args.bound:  # all up, but /pods said so only after the bound (a slow poll round)
        res.why = f"all {total} pods up only after {res.running_s:.0f} s (bound {args.bound:.0f} s)"
    elif res.pods_up_after_steady < total:
        res.why = f"{total - res.pods_up_after_steady} pods no longer up after the steady window"
    else:
        res.fits = True
    res.load = f"{res.load} -> {loadavg()}"

    # per-pod start latency from the kubelets' logs (read after the window: nothing is lost)
    year = dt.datetime.fromtimestamp(t_write).year
    latencies: list[float] = []
    missing = short = 0
    for k in kubelets:
        with open(k.log_path, errors="replace") as f:
            started = started_from_log(f, {f"default/{n}-{k.name}": c for n, c in want.items()}, year)
        latencies += [t - k.t0 for t in started.values()]
        if len(started) < len(want):
            missing += len(want) - len(started)
            short += 1
    res.start_samples = len(latencies)
    if missing:  # a pod that never started counts as infinitely late
        res.notes.append(f"{missing} pods on {short} kubelets have no PLEG start lines (counted as never started)")
        latencies += [math.inf] * missing
    res.start_p50_s, res.start_p99_s = quantile(latencies, 0.5), quantile(latencies, 0.99)
    res.start_max_s = max(latencies) if latencies else math.nan
    if res.start_samples and res.start_samples == total and complete and res.start_max_s > res.running_s + 2:
        res.notes.append(f"the last PLEG start line came {res.start_max_s:.1f} s after the write, later than /pods")


def _metrics_into(res: Result, before: list[dict], after: list[dict]) -> None:
    start: dict[float, float] = {}
    sli: dict[float, float] = {}
    relist_all: dict[float, float] = {}
    relist_win: dict[float, float] = {}
    for b, a in zip(before, after, strict=True):
        add_histograms(start, a.get("kubelet_pod_start_duration_seconds", {}).get("buckets", {}))
        add_histograms(sli, a.get("kubelet_pod_start_sli_duration_seconds", {}).get("buckets", {}))
        rel_a = a.get("kubelet_pleg_relist_duration_seconds", {}).get("buckets", {})
        add_histograms(relist_all, rel_a)
        add_histograms(relist_win, rel_a)
        add_histograms(relist_win, b.get("kubelet_pleg_relist_duration_seconds", {}).get("buckets", {}), -1.0)
        res.evented_connections += a.get("kubelet_evented_pleg_connection_success_count", {}).get("value", 0.0)
        res.evented_connection_errors += a.get("kubelet_evented_pleg_connection_error_count", {}).get("value", 0.0)
        res.runtime_operation_errors += a.get("kubelet_runtime_operations_errors_total", {}).get("value", 0.0)
    res.pod_start_duration_p50_s = histogram_quantile(0.5, start)
    res.pod_start_duration_p99_s = histogram_quantile(0.99, start)
    res.sli_p99_s = histogram_quantile(0.99, sli)
    res.relist_p99_all_s = histogram_quantile(0.99, relist_all)
    res.relist_p99_steady_s = histogram_quantile(0.99, relist_win)
    res.relists_steady = relist_win.get(math.inf, 0.0)


# ------------------------------------------------------------------ tables


def fmt(v: float, digits: int = 1) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if v == math.inf:
        return "never"
    return f"{v:,.{digits}f}"


def ms(v: float) -> str:
    return "–" if math.isnan(v) else f"{v * 1000:,.0f}"


def print_tables(results: list[Result], relist: list[Result], meta: dict) -> str:
    out = [f"Node farm with real kubelets ({meta['kubelet']}), {meta['date']}, {meta['cpus']} CPUs, "
           f"{meta['mem_total_gb']:.0f} GB; load average {meta['load_start']} at the start, {meta['load_end']} "
           f"at the end. Empty farm {fmt(meta['empty_farm_mb'])} MB, one idle fakecri {fmt(meta['idle_single_mb'])} MB."
           f" {meta['pods']} pods per kubelet.", ""]
    out.append("| N | PLEG | runtime | fits | running s | start p50 / p99 s | kubelet pod_start p50 / p99 s "
               "| fakecri CPU s | kubelets CPU s | fakecri CPU % | kubelets CPU % | machine busy % | fakecri RSS MB "
               "| MB/node | +MB/node | kubelet RSS MB | relist p99 ms | load |")
    out.append("|" + "---|" * 18)
    for r in results:
        out.append(f"| {r.nodes} | {r.pleg} | {r.runtime} | {'yes' if r.fits else 'no: ' + r.why} "
                   f"| {fmt(r.running_s)} | {fmt(r.start_p50_s, 2)} / {fmt(r.start_p99_s, 2)} "
                   f"| {fmt(r.pod_start_duration_p50_s, 2)} / {fmt(r.pod_start_duration_p99_s, 2)} "
                   f"| {fmt(r.fakecri_cpu_start_s)} | {fmt(r.kubelet_cpu_start_s)} | {fmt(r.fakecri_cpu_steady_pct)} "
                   f"| {fmt(r.kubelet_cpu_steady_pct, 0)} | {fmt(r.machine_busy_pct, 0)} | {fmt(r.fakecri_rss_mb, 0)} "
                   f"| {fmt(r.fakecri_rss_per_node_mb)} | {fmt(r.fakecri_rss_increment_per_node_mb)} "
                   f"| {fmt(r.kubelet_rss_mean_mb, 0)} | {ms(r.relist_p99_steady_s)} | {r.load} |")
    pairs = {}
    for r in results:
        pairs.setdefault((r.nodes, r.pleg), {})[r.runtime] = r
    rows = []
    for (n, pleg), both in pairs.items():
        f, s = both.get("farm"), both.get("separate")
        if not f or not s:
            continue

        def ratio(a: float, b: float) -> str:
            return "–" if math.isnan(a) or math.isnan(b) or b == 0 else f"{a / b:.2f}"

        rows.append(f"| {n} | {pleg} | {ratio(f.fakecri_rss_mb, s.fakecri_rss_mb)} "
                    f"| {ratio(f.fakecri_cpu_start_s, s.fakecri_cpu_start_s)} "
                    f"| {ratio(f.fakecri_cpu_steady_pct, s.fakecri_cpu_steady_pct)} "
                    f"| {ratio(f.running_s, s.running_s)} | {ratio(f.start_p99_s, s.start_p99_s)} |")
    if rows:
        out += ["", "Farm ÷ one process per node (same N kubelets, same run; below 1 the farm costs less):", "",
                "| N | PLEG | fakecri RSS | fakecri CPU to Running | fakecri CPU steady | running s | start p99 |",
                "|---|---|---|---|---|---|---|", *rows]
    if relist:
        out += ["", "One kubelet, 110 pods on a farm node (kubelet_pleg_relist_duration_seconds, histogram_quantile):",
                "", "| PLEG | fits | running s | start p50 / p99 s | relist p99 ms steady | relists in window "
                "| relist p99 ms whole run | kubelet RSS MB | kubelet CPU % | fakecri CPU % |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r in relist:
            out.append(f"| {r.pleg} | {'yes' if r.fits else 'no: ' + r.why} | {fmt(r.running_s)} "
                       f"| {fmt(r.start_p50_s, 2)} / {fmt(r.start_p99_s, 2)} | {ms(r.relist_p99_steady_s)} "
                       f"| {r.relists_steady:.0f} | {ms(r.relist_p99_all_s)} | {fmt(r.kubelet_rss_mean_mb, 0)} "
                       f"| {fmt(r.kubelet_cpu_steady_pct)} | {fmt(r.fakecri_cpu_steady_pct)} |")
    if meta.get("max"):
        out += ["", f"Largest N that fit: {meta['max']['fits']}; first that did not: {meta['max']['failed']} "
                    f"({meta['max']['why']})."]
    slo = sorted({r.nodes for r in results if r.runtime == "farm" and r.fits and r.start_p99_s <= SLO_P99_S})
    if slo:
        out += ["", f"Largest N whose farm runs kept start p99 within the {SLO_P99_S:.0f} s SLO: {slo[-1]}."]
    notes = [f"- {r.nodes} {r.runtime} {r.pleg}: {n}" for r in results + relist for n in r.notes]
    if notes:
        out += ["", "Notes:", *notes[:40]]
    text = "\n".join(out)
    print(text)
    return text


# ------------------------------------------------------------------ main


def parse_args(argv: list[str] | None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", default="1,10,25", help="comma-separated N (default 1,10,25)")
    p.add_argument("--pods", type=int, default=30, help="static pods per kubelet (default 30)")
    pleg = p.add_mutually_exclusive_group()
    pleg.add_argument("--evented", action="store_true", help="only EventedPLEG")
    pleg.add_argument("--generic", action="store_true", help="only the generic PLEG")
    p.add_argument("--max", action="store_true", help="then probe larger N on the farm until one does not fit")
    p.add_argument("--max-limit", type=int, default=400, help="never probe beyond this N (default 400)")
    p.add_argument("--no-separate", action="store_true", help="farm only (no process-per-node runs)")
    p.add_argument("--no-110", action="store_true", help="skip the 110-pod relist run")
    p.add_argument("--steady", type=float, default=30.0, help="steady window in seconds (default 30)")
    p.add_argument("--relist-steady", type=float, default=60.0,
                   help="steady window of the 110-pod run, in seconds (default 60: about 60 generic relists)")
    p.add_argument("--bound", type=float, default=60.0, help="seconds all pods have to be up (default 60)")
    p.add_argument("--poll", type=float, default=0.5, help="seconds between /pods polls (default 0.5)")
    p.add_argument("--settle", type=float, default=5.0, help="seconds between healthy kubelets and the pods")
    p.add_argument("--min-available-gb", type=float, default=3.0,
                   help="stop a run when MemAvailable falls below this (default 3 GB: ~20 GB used of 23)")
    p.add_argument("--kubelet-standalone", help="path of kubelet-standalone.sh")
    p.add_argument("--raise-inotify-limit", action="store_true",
                   help="raise fs.inotify.max_user_instances when the kubelets would not fit (6 each)")
    p.add_argument("--workdir", help="parent of the work directory (default /tmp)")
    p.add_argument("--keep", action="store_true", help="keep each run's work directory (logs, manifests)")
    p.add_argument("--json", help="write every figure to this file")
    args = p.parse_args(argv)
    args.node_list = [int(x) for x in args.nodes.split(",") if x.strip()]
    if any(n < 1 or n > MAX_KUBELETS for n in args.node_list):
        p.error(f"--nodes: each N must be 1..{MAX_KUBELETS}")
    args.plegs = [True] if args.evented else [False] if args.generic else [False, True]
    return args


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("the kubelets need root (they mount a tmpfs in their own mount namespace)")
    script = find_standalone(args.kubelet_standalone)
    kubelet = find_kubelet()
    version = subprocess.run([kubelet, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    base = tempfile.mkdtemp(prefix="fkb-", dir=args.workdir or "/tmp")
    atexit.register(lambda: shutil.rmtree(base, ignore_errors=True) if not args.keep else None)
    atexit.register(lambda: remove_log_links(base))
    atexit.register(stop_every_child)  # atexit runs last in, first out: the processes stop first

    def on_signal(sig, _frame):
        raise KeyboardInterrupt(f"signal {sig}")

    signal.signal(signal.SIGTERM, on_signal)
    meta = {"kubelet": version, "date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(),
            "mem_total_gb": meminfo_gb()["MemTotal"], "load_start": loadavg(), "pods": args.pods,
            "argv": sys.argv[1:], "notes": []}
    results: list[Result] = []
    relist: list[Result] = []
    try:
        meta["empty_farm_mb"] = idle_rss("farm", os.path.join(base, "empty-farm"))
        meta["idle_single_mb"] = idle_rss("separate", os.path.join(base, "idle-one"))
        kinds = ["farm"] if args.no_separate else ["farm", "separate"]
        flip = False

        def side_by_side(n: int, done: tuple[str, bool] | None = None) -> list[Result]:
            nonlocal flip
            out = []
            note = ensure_inotify(n, args.raise_inotify_limit)
            if note:
                meta["notes"].append(note)
                log(note)
            for evented in args.plegs:
                for kind in (kinds[::-1] if flip else kinds):
                    if (kind, evented) != done:
                        out.append(run_one(n, kind, evented, args.pods, args, base, script, meta["empty_farm_mb"]))
                flip = not flip
            return out

        for n in args.node_list:
            results += side_by_side(n)
        if args.max:
            fits, failed, why = max(args.node_list), None, ""
            n = max(args.node_list)
            while True:
                n = min(args.max_limit, max(n + 1, int(n * 1.5)))
                if n > args.max_limit or n <= fits:
                    why = f"--max-limit {args.max_limit}"
                    break
                per = (results[-1].kubelet_rss_mean_mb or 80) + (results[-1].fakecri_rss_increment_per_node_mb or 5)
                need_gb = n * per / 1024
                if meminfo_gb()["MemAvailable"] - need_gb < args.min_available_gb:
                    failed, why = n, (f"memory: {n} kubelets would need about {need_gb:.1f} GB, leaving under "
                                      f"{args.min_available_gb} GB")
                    break
                note = ensure_inotify(n, args.raise_inotify_limit)
                if note:
                    meta["notes"].append(note)
                probe = run_one(n, "farm", args.plegs[0], args.pods, args, base, script, meta["empty_farm_mb"])
                probe.notes.append("probe (--max)")
                results.append(probe)
                if not probe.fits:
                    failed, why = n, probe.why
                    break
                fits = n
            meta["max"] = {"fits": fits, "failed": failed, "why": why}
            if fits > max(args.node_list) and not args.no_separate:
                results += side_by_side(fits, done=("farm", args.plegs[0]))
        if not args.no_110:
            relist_args = argparse.Namespace(**{**vars(args), "steady": args.relist_steady})
            for evented in args.plegs:
                relist.append(run_one(1, "farm", evented, 110, relist_args, base, script, meta["empty_farm_mb"]))
    except KeyboardInterrupt:
        log("interrupted: stopping every kubelet and fakecri")
        meta["notes"].append("interrupted")
    except RuntimeError as exc:  # a limit found before a run started (inotify instances)
        log(str(exc))
        meta["notes"].append(f"stopped: {exc}")
    finally:
        stop_every_child()
    meta["load_end"] = loadavg()
    meta.setdefault("empty_farm_mb", math.nan)
    meta.setdefault("idle_single_mb", math.nan)
    text = print_tables(results, relist, meta)
    for note in meta["notes"]:
        print(f"- {note}")
    out = {"meta": meta, "runs": [asdict(r) for r in results], "relist_110": [asdict(r) for r in relist],
           "table": text}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, default=str)
    return out


if __name__ == "__main__":
    main()
