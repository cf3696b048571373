"""Plausible resource figures for containers and sandboxes. Pure functions.

Every figure is derived from a record's id, its timestamps and `now_ns`, so the
same inputs always give the same answer and nothing needs storing:

- CPU: each container has a repeating pattern of per-10-second rates (5 to 225
  millicores); the cumulative counter is the exact integer integral of that
  pattern over the time it has run, so it only grows and stops at exit.
- Memory: a working set that starts at what the container's program holds (sim/footprint.py:
  under a MiB for busybox, some MiB for a server, 4 to 64 MiB for an unknown program), warms
  up by half over ten minutes and always stays under the container's memory limit when one
  is set (so does usage); zero once exited.
- Writable layer: a fixed size per container.
- Network (sandbox): per-pod byte rates over the sandbox's ready lifetime.
- Scripted figures (sim/stats_script.py): what a container's `StatsScript` sets replaces
  the default of that figure, from when it holds: CPU, memory (working set, usage, RSS),
  the writable layer and pressure (PSI, reported only when scripted).

The server turns these dataclasses into runtime.v1 messages.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from fakecri.engine.clock import NS_PER_S
from fakecri.engine.images import IMAGE_FS_MOUNTPOINT, FsUsage
from fakecri.engine.records import Container, ContainerState, Sandbox, SandboxState
from fakecri.sim import footprint
from fakecri.sim.stats_script import PSI_KINDS, StatsScript, Track, end_of, scripted_total

# The same filesystem as the images: a kubelet that sees two different mountpoints
# switches to split image/container disk handling, which real runtimes do not ask for.
CONTAINER_FS_MOUNTPOINT = IMAGE_FS_MOUNTPOINT
WINDOW_NS = 10 * NS_PER_S  # each CPU rate holds for this long
WINDOWS = 12  # the rate pattern repeats every WINDOWS * WINDOW_NS
WARMUP_NS = 600 * NS_PER_S
PAUSE_WORKING_SET = 320 * 1024
BLOCK = 4096


@dataclass(frozen=True, slots=True)
class PsiData:
    total_ns: int  # cumulative time stalled, nanoseconds (as CRI's PsiData.Total)
    avg10: float  # percent of the last 10 s stalled
    avg60: float
    avg300: float


@dataclass(frozen=True, slots=True)
class Psi:
    some: PsiData  # some task stalled
    full: PsiData  # every task stalled


@dataclass(frozen=True, slots=True)
class CpuUsage:
    timestamp_ns: int
    usage_core_nano_seconds: int  # cumulative
    usage_nano_cores: int  # current rate
    psi: Psi | None = None


@dataclass(frozen=True, slots=True)
class MemoryUsage:
    timestamp_ns: int
    working_set_bytes: int
    available_bytes: int  # limit - working set; 0 without a limit
    usage_bytes: int
    rss_bytes: int
    page_faults: int  # cumulative
    major_page_faults: int  # cumulative
    psi: Psi | None = None


@dataclass(frozen=True, slots=True)
class IoUsage:
    timestamp_ns: int
    psi: Psi | None = None


@dataclass(frozen=True, slots=True)
class SwapUsage:
    timestamp_ns: int
    swap_available_bytes: int
    swap_usage_bytes: int


@dataclass(frozen=True, slots=True)
class NetworkUsage:
    timestamp_ns: int
    interface: str
    rx_bytes: int
    rx_errors: int
    tx_bytes: int
    tx_errors: int


@dataclass(frozen=True, slots=True)
class ContainerStats:
    container_id: str
    sandbox_id: str
    name: str
    attempt: int
    image: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    cpu: CpuUsage
    memory: MemoryUsage
    swap: SwapUsage
    writable_layer: FsUsage
    io: IoUsage | None = None  # only with scripted I/O pressure


@dataclass(frozen=True, slots=True)
class PodSandboxStats:
    sandbox_id: str
    name: str
    namespace: str
    uid: str
    attempt: int
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    cpu: CpuUsage
    memory: MemoryUsage
    network: NetworkUsage | None  # None once the sandbox is not ready
    process_count: int
    containers: tuple[ContainerStats, ...]
    io: IoUsage | None = None


# ---------------------------------------------------------------- derivations


def _seed(key: str, salt: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{salt}\0{key}".encode()).digest()[:8], "big")


@lru_cache(maxsize=8192)
def _rates(container_id: str) -> tuple[int, ...]:
    """Millicores for each window of the repeating pattern."""
    base = 5 + _seed(container_id, "cpu") % 146
    return tuple(max(1, base * (50 + _seed(container_id, f"w{k}") % 101) // 100) for k in range(WINDOWS))


def running_ns(c: Container, now_ns: int) -> int:
    """How long `c` has run: up to now, or up to its exit."""
    if not c.started_at:
        return 0
    end = c.finished_at if c.finished_at else now_ns
    return max(0, end - c.started_at)


def cpu_total_ns(c: Container, now_ns: int, script: StatsScript | None = None) -> int:
    """Cumulative CPU nanoseconds `c` has used. Never decreases as `now_ns` grows."""
    track = script.get("cpu") if script is not None else None
    if track is not None:
        return scripted_total(track, c, now_ns, lambda t: cpu_total_ns(c, t))
    rates = _rates(c.id)
    elapsed = running_ns(c, now_ns)
    full, rem = divmod(elapsed, WINDOW_NS * WINDOWS)
    per_window = [r * WINDOW_NS // 1000 for r in rates]
    total = full * sum(per_window)
    k, part = divmod(rem, WINDOW_NS)
    total += sum(per_window[:k]) + rates[k] * part // 1000
    return total


def _scripted(script: StatsScript | None, name: str, c: Container, at_ns: int) -> int | None:
    """A scripted figure's value at `at_ns`, None when no curve holds it then."""
    track = script.get(name) if script is not None else None
    return None if track is None or not c.started_at else track.value(c.started_at, at_ns)


def _cpu(c: Container, now_ns: int, script: StatsScript | None = None) -> CpuUsage:
    nano_cores = 0
    if c.state == ContainerState.RUNNING and c.started_at:
        scripted = _scripted(script, "cpu", c, now_ns)
        if scripted is not None:
            nano_cores = scripted
        else:
            k = running_ns(c, now_ns) % (WINDOW_NS * WINDOWS) // WINDOW_NS
            nano_cores = _rates(c.id)[k] * 1_000_000
    return CpuUsage(now_ns, cpu_total_ns(c, now_ns, script), nano_cores, _psi(script, "cpu", c, now_ns))


def _psi_data(track: Track | None, c: Container, now_ns: int) -> PsiData:
    if track is None or not c.started_at:
        return PsiData(0, 0.0, 0.0, 0.0)
    end = max(c.started_at, end_of(c, now_ns))
    total = int(track.integral(c.started_at, end) // 1_000_000)  # parts per million x ns -> ns stalled
    if c.state != ContainerState.RUNNING:
        return PsiData(total, 0.0, 0.0, 0.0)
    now_integral = track.integral(c.started_at, now_ns)
    avgs = []
    for window_s in (10, 60, 300):  # the share of each window stalled (before the start: none)
        window = window_s * NS_PER_S
        part = now_integral - track.integral(c.started_at, now_ns - window)
        avgs.append(round(float(part / window) / 10_000, 2))  # parts per million -> percent
    return PsiData(total, avgs[0], avgs[1], avgs[2])


def _psi(script: StatsScript | None, resource: str, c: Container, now_ns: int) -> Psi | None:
    """Pressure on `resource` when the script sets any (an unscripted kind reads 0)."""
    if script is None or not script.has_psi:
        return None
    some, full = (script.get(f"psi:{resource}.{kind}") for kind in PSI_KINDS)
    if some is None and full is None:
        return None
    return Psi(_psi_data(some, c, now_ns), _psi_data(full, c, now_ns))


def _memory(c: Container, now_ns: int, script: StatsScript | None = None) -> MemoryUsage:
    elapsed = running_ns(c, now_ns)
    rate = 50 + _seed(c.id, "pf") % 200  # minor faults per second of running
    faults = (elapsed * rate // NS_PER_S + 300) if elapsed else 0
    major = faults // 1000
    limit = c.resources.memory_limit_in_bytes
    psi = _psi(script, "memory", c, now_ns)
    if c.state != ContainerState.RUNNING:
        return MemoryUsage(now_ns, 0, 0, 0, 0, faults, major, psi)
    ws = _scripted(script, "memory", c, now_ns)
    if ws is not None:  # as scripted, even above the limit (nothing is OOM-killed for it)
        usage, rss = (_scripted(script, name, c, now_ns) for name in ("memory-usage", "memory-rss"))
        usage = ws if usage is None else max(ws, usage)  # usage: the working set and the inactive page cache
        rss = min(usage, ws if rss is None else rss)
        return MemoryUsage(now_ns, ws, max(0, limit - ws) if limit > 0 else 0, usage, rss, faults, major, psi)
    base = footprint.start_bytes(c)
    ws = base + base * min(elapsed, WARMUP_NS) // (2 * WARMUP_NS)
    usage = ws + ws * (10 + _seed(c.id, "cache") % 30) // 100
    if limit > 0:
        ws = min(ws, limit * (50 + _seed(c.id, "cap") % 40) // 100)
        usage = max(ws, min(usage, limit * 95 // 100))
    rss = ws * (70 + _seed(c.id, "rss") % 25) // 100
    available = limit - ws if limit > 0 else 0
    return MemoryUsage(now_ns, ws, available, usage, rss, faults, major, psi)


def _swap(c: Container, now_ns: int) -> SwapUsage:
    """The swap the container may use: cgroup v2's memory.swap.max when the kubelet set it
    (`unified`, its LimitedSwap share), else memory+swap less memory; none used."""
    res = c.resources
    available = 0
    unified = dict(res.unified).get("memory.swap.max", "").strip()
    if unified.isdigit():
        available = int(unified)
    elif res.memory_limit_in_bytes > 0 and res.memory_swap_limit_in_bytes > res.memory_limit_in_bytes:
        available = res.memory_swap_limit_in_bytes - res.memory_limit_in_bytes
    return SwapUsage(now_ns, available, 0)


def writable_layer(c: Container, now_ns: int, script: StatsScript | None = None) -> FsUsage:
    """The container's writable layer: a fixed 4 KiB to 2 MiB, or as scripted (held from its exit)."""
    used = _scripted(script, "disk", c, min(now_ns, end_of(c, now_ns)))
    if used is not None:
        return FsUsage(used, 1 + used // (4 * BLOCK), CONTAINER_FS_MOUNTPOINT, now_ns)
    blocks = 1 + _seed(c.id, "rw") % 512
    return FsUsage(blocks * BLOCK, 1 + blocks // 4, CONTAINER_FS_MOUNTPOINT, now_ns)


# ---------------------------------------------------------------- public figures


Scripts = Callable[[Container], StatsScript | None]  # a container's script (None: nothing scripted)


def no_scripts(c: Container) -> StatsScript | None:
    return None


def container_stats(c: Container, now_ns: int, script: StatsScript | None = None) -> ContainerStats:
    """Stats for one container (runtime.v1.ContainerStats)."""
    io_psi = _psi(script, "io", c, now_ns)
    return ContainerStats(
        container_id=c.id,
        sandbox_id=c.sandbox_id,
        name=c.name,
        attempt=c.attempt,
        image=c.image,
        labels=c.labels,
        annotations=c.annotations,
        cpu=_cpu(c, now_ns, script),
        memory=_memory(c, now_ns, script),
        swap=_swap(c, now_ns),
        writable_layer=writable_layer(c, now_ns, script),
        io=None if io_psi is None else IoUsage(now_ns, io_psi),
    )


def container_fs_usage(containers: Iterable[Container], now_ns: int, scripts: Scripts = no_scripts) -> FsUsage:
    """The container filesystem for ImageFsInfo: every writable layer summed."""
    layers = [writable_layer(c, now_ns, scripts(c)) for c in containers]
    return FsUsage(
        sum(f.used_bytes for f in layers), sum(f.inodes_used for f in layers), CONTAINER_FS_MOUNTPOINT, now_ns
    )


def _network(sb: Sandbox, now_ns: int) -> NetworkUsage | None:
    if sb.state != SandboxState.READY:
        return None
    seconds_x1e9 = max(0, now_ns - sb.created_at)
    rx_rate = 1_000 + _seed(sb.id, "rx") % 50_000  # bytes per second
    tx_rate = 500 + _seed(sb.id, "tx") % 20_000
    return NetworkUsage(
        now_ns, "eth0", rx_rate * seconds_x1e9 // NS_PER_S, 0, tx_rate * seconds_x1e9 // NS_PER_S, 0
    )


def _pod_psi(parts: Iterable[Psi | None]) -> Psi | None:
    """The pod's pressure: the most any of its containers shows (a stall of one is the pod's)."""
    given = [p for p in parts if p is not None]
    if not given:
        return None

    def most(datas: list[PsiData]) -> PsiData:
        return PsiData(max(d.total_ns for d in datas), max(d.avg10 for d in datas), max(d.avg60 for d in datas),
                       max(d.avg300 for d in datas))

    return Psi(most([p.some for p in given]), most([p.full for p in given]))


def pod_sandbox_stats(
    sb: Sandbox, containers: Iterable[Container], now_ns: int, *, removed_cpu_ns: int = 0, scripts: Scripts = no_scripts
) -> PodSandboxStats:
    """Stats for a sandbox and its containers. `removed_cpu_ns` is CPU used by
    containers already removed from it, so the pod counter never drops; `scripts` gives
    each container's scripted figures."""
    cs = list(containers)
    given = [scripts(c) for c in cs]
    stats = tuple(container_stats(c, now_ns, script) for c, script in zip(cs, given, strict=True))
    scripted_memory = any(s is not None and s.get("memory") is not None for s in given)
    ready = sb.state == SandboxState.READY
    cpu = CpuUsage(
        now_ns,
        removed_cpu_ns + sum(s.cpu.usage_core_nano_seconds for s in stats),
        sum(s.cpu.usage_nano_cores for s in stats),
        _pod_psi(s.cpu.psi for s in stats),
    )
    pause = PAUSE_WORKING_SET if ready else 0
    ws = pause + sum(s.memory.working_set_bytes for s in stats)
    usage = pause + sum(s.memory.usage_bytes for s in stats)
    rss = pause + sum(s.memory.rss_bytes for s in stats)
    limit = sb.resources.memory_limit_in_bytes if sb.resources else 0
    if limit > 0 and not scripted_memory:  # the default model stays under the pod's limit; a script is as said
        cap = limit * 95 // 100
        ws, usage, rss = min(ws, cap), min(usage, cap), min(rss, cap)
    io_psi = _pod_psi(s.io.psi if s.io is not None else None for s in stats)
    memory = MemoryUsage(
        now_ns,
        ws,
        limit - ws if limit > 0 else 0,
        usage,
        rss,
        sum(s.memory.page_faults for s in stats),
        sum(s.memory.major_page_faults for s in stats),
        _pod_psi(s.memory.psi for s in stats),
    )
    running = sum(1 for s in stats if s.cpu.usage_nano_cores)
    return PodSandboxStats(
        sandbox_id=sb.id,
        name=sb.name,
        namespace=sb.namespace,
        uid=sb.uid,
        attempt=sb.attempt,
        labels=sb.labels,
        annotations=sb.annotations,
        cpu=cpu,
        memory=memory,
        network=_network(sb, now_ns),
        process_count=(1 + running) if ready else 0,
        containers=stats,
        io=None if io_psi is None else IoUsage(now_ns, io_psi),
    )
