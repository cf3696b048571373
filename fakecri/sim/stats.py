"""Plausible resource figures for containers and sandboxes. Pure functions.

Every figure is derived from a record's id, its timestamps and `now_ns`, so the
same inputs always give the same answer and nothing needs storing:

- CPU: each container has a repeating pattern of per-10-second rates (5 to 225
  millicores); the cumulative counter is the exact integer integral of that
  pattern over the time it has run, so it only grows and stops at exit.
- Memory: a working set that warms up over ten minutes and always stays under the
  container's memory limit when one is set (so does usage); zero once exited.
- Writable layer: a fixed size per container.
- Network (sandbox): per-pod byte rates over the sandbox's ready lifetime.

The server turns these dataclasses into runtime.v1 messages.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from fakecri.engine.clock import NS_PER_S
from fakecri.engine.images import IMAGE_FS_MOUNTPOINT, FsUsage
from fakecri.engine.records import Container, ContainerState, Sandbox, SandboxState

# The same filesystem as the images: a kubelet that sees two different mountpoints
# switches to split image/container disk handling, which real runtimes do not ask for.
CONTAINER_FS_MOUNTPOINT = IMAGE_FS_MOUNTPOINT
WINDOW_NS = 10 * NS_PER_S  # each CPU rate holds for this long
WINDOWS = 12  # the rate pattern repeats every WINDOWS * WINDOW_NS
WARMUP_NS = 600 * NS_PER_S
PAUSE_WORKING_SET = 320 * 1024
BLOCK = 4096
_MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class CpuUsage:
    timestamp_ns: int
    usage_core_nano_seconds: int  # cumulative
    usage_nano_cores: int  # current rate


@dataclass(frozen=True, slots=True)
class MemoryUsage:
    timestamp_ns: int
    working_set_bytes: int
    available_bytes: int  # limit - working set; 0 without a limit
    usage_bytes: int
    rss_bytes: int
    page_faults: int  # cumulative
    major_page_faults: int  # cumulative


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


def cpu_total_ns(c: Container, now_ns: int) -> int:
    """Cumulative CPU nanoseconds `c` has used. Never decreases as `now_ns` grows."""
    rates = _rates(c.id)
    elapsed = running_ns(c, now_ns)
    full, rem = divmod(elapsed, WINDOW_NS * WINDOWS)
    per_window = [r * WINDOW_NS // 1000 for r in rates]
    total = full * sum(per_window)
    k, part = divmod(rem, WINDOW_NS)
    total += sum(per_window[:k]) + rates[k] * part // 1000
    return total


def _cpu(c: Container, now_ns: int) -> CpuUsage:
    nano_cores = 0
    if c.state == ContainerState.RUNNING and c.started_at:
        k = running_ns(c, now_ns) % (WINDOW_NS * WINDOWS) // WINDOW_NS
        nano_cores = _rates(c.id)[k] * 1_000_000
    return CpuUsage(now_ns, cpu_total_ns(c, now_ns), nano_cores)


def _memory(c: Container, now_ns: int) -> MemoryUsage:
    elapsed = running_ns(c, now_ns)
    rate = 50 + _seed(c.id, "pf") % 200  # minor faults per second of running
    faults = (elapsed * rate // NS_PER_S + 300) if elapsed else 0
    major = faults // 1000
    limit = c.resources.memory_limit_in_bytes
    if c.state != ContainerState.RUNNING:
        return MemoryUsage(now_ns, 0, 0, 0, 0, faults, major)
    base = 4 * _MIB + _seed(c.id, "mem") % (60 * _MIB)
    ws = base + base * min(elapsed, WARMUP_NS) // (2 * WARMUP_NS)
    usage = ws + ws * (10 + _seed(c.id, "cache") % 30) // 100
    if limit > 0:
        ws = min(ws, limit * (50 + _seed(c.id, "cap") % 40) // 100)
        usage = max(ws, min(usage, limit * 95 // 100))
    rss = ws * (70 + _seed(c.id, "rss") % 25) // 100
    available = limit - ws if limit > 0 else 0
    return MemoryUsage(now_ns, ws, available, usage, rss, faults, major)


def _swap(c: Container, now_ns: int) -> SwapUsage:
    res = c.resources
    available = 0
    if res.memory_limit_in_bytes > 0 and res.memory_swap_limit_in_bytes > res.memory_limit_in_bytes:
        available = res.memory_swap_limit_in_bytes - res.memory_limit_in_bytes
    return SwapUsage(now_ns, available, 0)


def writable_layer(c: Container, now_ns: int) -> FsUsage:
    """The container's writable layer: a fixed 4 KiB to 2 MiB."""
    blocks = 1 + _seed(c.id, "rw") % 512
    return FsUsage(blocks * BLOCK, 1 + blocks // 4, CONTAINER_FS_MOUNTPOINT, now_ns)


# ---------------------------------------------------------------- public figures


def container_stats(c: Container, now_ns: int) -> ContainerStats:
    """Stats for one container (runtime.v1.ContainerStats)."""
    return ContainerStats(
        container_id=c.id,
        sandbox_id=c.sandbox_id,
        name=c.name,
        attempt=c.attempt,
        image=c.image,
        labels=c.labels,
        annotations=c.annotations,
        cpu=_cpu(c, now_ns),
        memory=_memory(c, now_ns),
        swap=_swap(c, now_ns),
        writable_layer=writable_layer(c, now_ns),
    )


def container_fs_usage(containers: Iterable[Container], now_ns: int) -> FsUsage:
    """The container filesystem for ImageFsInfo: every writable layer summed."""
    layers = [writable_layer(c, now_ns) for c in containers]
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


def pod_sandbox_stats(
    sb: Sandbox, containers: Iterable[Container], now_ns: int, *, removed_cpu_ns: int = 0
) -> PodSandboxStats:
    """Stats for a sandbox and its containers. `removed_cpu_ns` is CPU used by
    containers already removed from it, so the pod counter never drops."""
    stats = tuple(container_stats(c, now_ns) for c in containers)
    ready = sb.state == SandboxState.READY
    cpu = CpuUsage(
        now_ns,
        removed_cpu_ns + sum(s.cpu.usage_core_nano_seconds for s in stats),
        sum(s.cpu.usage_nano_cores for s in stats),
    )
    pause = PAUSE_WORKING_SET if ready else 0
    ws = pause + sum(s.memory.working_set_bytes for s in stats)
    usage = pause + sum(s.memory.usage_bytes for s in stats)
    rss = pause + sum(s.memory.rss_bytes for s in stats)
    limit = sb.resources.memory_limit_in_bytes if sb.resources else 0
    if limit > 0:
        cap = limit * 95 // 100
        ws, usage, rss = min(ws, cap), min(usage, cap), min(rss, cap)
    memory = MemoryUsage(
        now_ns,
        ws,
        limit - ws if limit > 0 else 0,
        usage,
        rss,
        sum(s.memory.page_faults for s in stats),
        sum(s.memory.major_page_faults for s in stats),
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
    )
