"""The cgroup file system a container sees at /sys/fs/cgroup, as runc sets it up with a
cgroup namespace of its own: the container's cgroup is the root of what it sees.

- cgroup v2 (the default): one unified hierarchy, mounted `cgroup on /sys/fs/cgroup type
  cgroup2`. Its interface files hold what runc writes from the container's
  LinuxContainerResources: `memory.max` (limit, "max" when unset or -1), `cpu.max` ("QUOTA
  PERIOD", "max" for no quota, period 100000 unless given), `cpu.weight` (runc converts CPU
  shares to a weight with the quadratic fit of opencontainers/cgroups; 100 when unset),
  `cpuset.cpus` / `cpuset.mems`, `hugetlb.<size>.max`, `memory.swap.max` (the swap part of
  memory_swap_limit_in_bytes: swap limit less memory limit) and every `unified` key written
  as given, last, as runc writes them.
- cgroup v1: a tmpfs at /sys/fs/cgroup with one cgroup mount per controller (cpu,cpuacct with
  its `cpu` and `cpuacct` links, memory, cpuset, pids, hugetlb, blkio, devices, freezer,
  net_cls,net_prio, perf_event, systemd): `memory.limit_in_bytes` (9223372036854771712, the
  kernel's page-counter maximum, when unlimited), `cpu.cfs_quota_us` (-1 when unlimited),
  `cpu.cfs_period_us`, `cpu.shares` (1024 when unset), `memory.memsw.limit_in_bytes`.

Usage files (`memory.current` / `memory.usage_in_bytes`, `memory.stat`, `cpu.stat`'s
`usage_usec` / `cpuacct.usage`, `pids.current`) carry the figures fakecri's stats RPCs report
for the container at that moment (fakecri/sim/stats.py), so the two agree.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from fakecri.engine.records import NO_RESOURCES, Resources

ROOT = "/sys/fs/cgroup"
V1_UNLIMITED = 9223372036854771712  # PAGE_COUNTER_MAX pages in bytes: v1's "no limit"
DEFAULT_PERIOD = 100_000  # µs, the kernel's CFS period
DEFAULT_SHARES = 1024
DEFAULT_WEIGHT = 100
HUGE_PAGE_SIZES = ("2MB", "1GB")  # what an x86-64 kernel offers
V2_CONTROLLERS = "cpuset cpu io memory hugetlb pids rdma misc"
PER_DEVICE = ("io.max", "io.stat")
# v1 hierarchies as runc mounts them: (directory, the controllers it carries, its hierarchy id)
V1_HIERARCHIES = (("blkio", "blkio", 9), ("cpu,cpuacct", "cpu,cpuacct", 4), ("cpuset", "cpuset", 7),
                  ("devices", "devices", 3), ("freezer", "freezer", 10), ("hugetlb", "hugetlb", 5),
                  ("memory", "memory", 11), ("net_cls,net_prio", "net_cls,net_prio", 2),
                  ("perf_event", "perf_event", 8), ("pids", "pids", 6), ("systemd", "xattr,name=systemd", 1))
V1_LINKS = {"cpu": "cpu,cpuacct", "cpuacct": "cpu,cpuacct", "net_cls": "net_cls,net_prio",
            "net_prio": "net_cls,net_prio"}


@dataclass(frozen=True, slots=True)
class CgroupNow:
    """What a container's cgroup holds at one moment: its resources and the usage its stats say."""

    resources: Resources = NO_RESOURCES
    memory_usage: int = 0
    memory_working_set: int = 0
    memory_rss: int = 0
    page_faults: int = 0
    major_page_faults: int = 0
    cpu_usage_ns: int = 0
    pids: tuple[int, ...] = (1,)
    oom_kills: int = 0
    oom_score_adj: int | None = None  # its process's, when it differs from the resources' (set at the start)


def _empty() -> CgroupNow:
    return CgroupNow()


@dataclass(frozen=True, slots=True)
class Cgroup:
    """The cgroup view a userland is given: the node's cgroup version, the host's online CPUs
    ("0-3"), how much swap the node has (None: as the host's /proc/meminfo says), and a source
    of the container's cgroup now."""

    version: int = 2
    cpus_online: str = "0"
    swap_bytes: int | None = None
    now: Callable[[], CgroupNow] = field(default=_empty)


def shares_to_weight(shares: int) -> int:
    """cpu.weight for CPU shares, as runc (opencontainers/cgroups) converts them: a quadratic
    in log2(shares) that maps 2 to 1, 1024 to 100 and 262144 to 10000; 0 stays unset."""
    if shares <= 0:
        return 0
    if shares <= 2:
        return 1
    if shares >= 262144:
        return 10000
    log = math.log2(shares)
    return math.ceil(10 ** ((log * log + 125 * log) / 612.0 - 7.0 / 34.0))


def cpu_list(text: str) -> list[int]:
    """The CPUs a list like "0-3,6" names."""
    out: list[int] = []
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        if lo.isdigit():
            out += range(int(lo), int(hi) + 1) if hi.isdigit() else [int(lo)]
    return out


def allowed_cpus(view: Cgroup, res: Resources) -> str:
    """The CPUs the container may run on: its cpuset, else every online CPU of the host."""
    return res.cpuset_cpus or view.cpus_online


def _limit(value: int) -> str:
    return str(value) if value > 0 else "max"


def v2_swap_max(res: Resources) -> str:
    """memory.swap.max as runc derives it from the CRI's memory+swap limit (v2 holds swap alone)."""
    swap, memory = res.memory_swap_limit_in_bytes, res.memory_limit_in_bytes
    if swap > 0 and memory > 0:
        return str(max(0, swap - memory))
    return "max"


def _huge_sizes(res: Resources) -> list[str]:
    return list(dict.fromkeys([*HUGE_PAGE_SIZES, *(size for size, _ in res.hugepage_limits)]))


def _memory_stat_v2(now: CgroupNow) -> str:
    anon = now.memory_rss
    file = max(0, now.memory_usage - anon)
    inactive_file = max(0, now.memory_usage - now.memory_working_set)
    rows = [("anon", anon), ("file", file), ("kernel", 0), ("kernel_stack", 0), ("pagetables", 0), ("sock", 0),
            ("shmem", 0), ("file_mapped", 0), ("file_dirty", 0), ("file_writeback", 0), ("swapcached", 0),
            ("anon_thp", 0), ("inactive_anon", 0), ("active_anon", anon), ("inactive_file", inactive_file),
            ("active_file", max(0, file - inactive_file)), ("unevictable", 0), ("slab_reclaimable", 0),
            ("slab_unreclaimable", 0), ("slab", 0), ("pgfault", now.page_faults), ("pgmajfault", now.major_page_faults)]
    return "".join(f"{k} {v}\n" for k, v in rows)


def v2_files(view: Cgroup, now: CgroupNow) -> dict[str, str]:
    """The interface files of the container's v2 cgroup, by name, with their content."""
    res = now.resources
    usage_usec = now.cpu_usage_ns // 1000
    user = usage_usec * 7 // 10
    quota = str(res.cpu_quota) if res.cpu_quota > 0 else "max"
    files = {
        "cgroup.controllers": V2_CONTROLLERS,
        "cgroup.subtree_control": "",
        "cgroup.type": "domain",
        "cgroup.procs": "\n".join(str(p) for p in now.pids),
        "cgroup.events": "populated 1\nfrozen 0",
        "cgroup.max.depth": "max",
        "cgroup.max.descendants": "max",
        "cpu.max": f"{quota} {res.cpu_period or DEFAULT_PERIOD}",
        "cpu.weight": str(shares_to_weight(res.cpu_shares) or DEFAULT_WEIGHT),
        "cpu.stat": (f"usage_usec {usage_usec}\nuser_usec {user}\nsystem_usec {usage_usec - user}\n"
                     "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0"),
        "cpuset.cpus": res.cpuset_cpus,
        "cpuset.cpus.effective": allowed_cpus(view, res),
        "cpuset.mems": res.cpuset_mems,
        "cpuset.mems.effective": res.cpuset_mems or "0",
        "io.max": "",
        "io.weight": "default 100",
        "io.stat": "",
        "memory.current": str(now.memory_usage),
        "memory.min": "0",
        "memory.low": "0",
        "memory.high": "max",
        "memory.max": _limit(res.memory_limit_in_bytes),
        "memory.peak": str(now.memory_usage),
        "memory.swap.current": "0",
        "memory.swap.max": v2_swap_max(res),
        "memory.oom.group": "0",
        "memory.events": f"low 0\nhigh 0\nmax 0\noom {now.oom_kills}\noom_kill {now.oom_kills}\noom_group_kill 0",
        "memory.stat": _memory_stat_v2(now).rstrip("\n"),
        "pids.current": str(len(now.pids)),
        "pids.max": "max",
    }
    limits = dict(res.hugepage_limits)
    for size in _huge_sizes(res):
        files[f"hugetlb.{size}.max"] = _limit(limits.get(size, 0))
        files[f"hugetlb.{size}.current"] = "0"
        files[f"hugetlb.{size}.rsvd.max"] = _limit(limits.get(size, 0))
    for key, value in res.unified:  # runc writes them last, as given
        files[key] = value.rstrip("\n")
    return files


def v1_files(view: Cgroup, now: CgroupNow) -> dict[str, str]:
    """The files of the container's v1 cgroups, by path under /sys/fs/cgroup."""
    res = now.resources
    memory = res.memory_limit_in_bytes if res.memory_limit_in_bytes > 0 else V1_UNLIMITED
    memsw = res.memory_swap_limit_in_bytes if res.memory_swap_limit_in_bytes > 0 else V1_UNLIMITED
    anon = now.memory_rss
    cache = max(0, now.memory_usage - anon)
    inactive_file = max(0, now.memory_usage - now.memory_working_set)
    ticks = now.cpu_usage_ns // 10_000_000  # USER_HZ
    limits = dict(res.hugepage_limits)
    files = {
        "memory/memory.limit_in_bytes": str(memory),
        "memory/memory.soft_limit_in_bytes": str(V1_UNLIMITED),
        "memory/memory.memsw.limit_in_bytes": str(memsw),
        "memory/memory.usage_in_bytes": str(now.memory_usage),
        "memory/memory.max_usage_in_bytes": str(now.memory_usage),
        "memory/memory.failcnt": "0",
        "memory/memory.oom_control": f"oom_kill_disable 0\nunder_oom 0\noom_kill {now.oom_kills}",
        "memory/memory.stat": "\n".join(f"{k} {v}" for k, v in (
            ("cache", cache), ("rss", anon), ("rss_huge", 0), ("shmem", 0), ("mapped_file", 0), ("dirty", 0),
            ("writeback", 0), ("swap", 0), ("pgfault", now.page_faults), ("pgmajfault", now.major_page_faults),
            ("inactive_anon", 0), ("active_anon", anon), ("inactive_file", inactive_file),
            ("active_file", max(0, cache - inactive_file)), ("unevictable", 0),
            ("hierarchical_memory_limit", memory), ("hierarchical_memsw_limit", memsw))),
        "cpu,cpuacct/cpu.shares": str(res.cpu_shares or DEFAULT_SHARES),
        "cpu,cpuacct/cpu.cfs_quota_us": str(res.cpu_quota if res.cpu_quota > 0 else -1),
        "cpu,cpuacct/cpu.cfs_period_us": str(res.cpu_period or DEFAULT_PERIOD),
        "cpu,cpuacct/cpu.stat": "nr_periods 0\nnr_throttled 0\nthrottled_time 0",
        "cpu,cpuacct/cpuacct.usage": str(now.cpu_usage_ns),
        "cpu,cpuacct/cpuacct.stat": f"user {ticks * 7 // 10}\nsystem {ticks - ticks * 7 // 10}",
        "cpuset/cpuset.cpus": allowed_cpus(view, res),
        "cpuset/cpuset.mems": res.cpuset_mems or "0",
        "pids/pids.max": "max",
        "pids/pids.current": str(len(now.pids)),
        "blkio/blkio.weight": "500",
        "freezer/freezer.state": "THAWED",
    }
    for size in _huge_sizes(res):
        files[f"hugetlb/hugetlb.{size}.limit_in_bytes"] = str(limits.get(size) or V1_UNLIMITED)
        files[f"hugetlb/hugetlb.{size}.usage_in_bytes"] = "0"
    for directory, _, _ in V1_HIERARCHIES:
        files[f"{directory}/cgroup.procs"] = "\n".join(str(p) for p in now.pids)
        files[f"{directory}/tasks"] = "\n".join(str(p) for p in now.pids)
    return files


def files(view: Cgroup) -> dict[str, str]:
    """Every file of the container's cgroup file system now, by its path under /sys/fs/cgroup."""
    now = view.now()
    return v2_files(view, now) if view.version == 2 else v1_files(view, now)


def cgroup_file(view: Cgroup, path: str) -> bytes | None:
    """The content of `path` (absolute, under /sys/fs/cgroup), None when there is no such file."""
    if not path.startswith(ROOT + "/"):
        return None
    name = path[len(ROOT) + 1:]
    text = files(view).get(name)
    if text is None:
        return None
    if not text:  # an empty list (cpuset.cpus unset) is a bare newline; a per-device table has no lines
        return b"" if name in PER_DEVICE else b"\n"
    return (text + "\n").encode()


def cgroup_dirs(view: Cgroup) -> set[str]:
    """The directories of the container's cgroup file system (the v1 hierarchies)."""
    if view.version == 2:
        return set()
    return {f"{ROOT}/{directory}" for directory, _, _ in V1_HIERARCHIES}


def cgroup_links(view: Cgroup) -> dict[str, str]:
    """The symlinks v1 makes beside its combined hierarchies (`cpu` -> `cpu,cpuacct`)."""
    return {} if view.version == 2 else {f"{ROOT}/{name}": target for name, target in V1_LINKS.items()}


def cgroup_names(view: Cgroup) -> set[str]:
    """Every path under /sys/fs/cgroup, for directory listings."""
    return {f"{ROOT}/{p}" for p in files(view)} | cgroup_dirs(view) | set(cgroup_links(view))


def proc_cgroup(view: Cgroup) -> bytes:
    """/proc/self/cgroup inside the container's cgroup namespace: its own cgroup is "/"."""
    if view.version == 2:
        return b"0::/\n"
    return "".join(f"{hid}:{ctl.removeprefix('xattr,')}:/\n"
                   for _, ctl, hid in sorted(V1_HIERARCHIES, key=lambda h: -h[2])).encode()


def mount_lines(view: Cgroup, options: str) -> list[tuple[str, str, str, str]]:
    """(source, point, type, options) of the cgroup mounts, `options` those of /sys (ro unless privileged)."""
    if view.version == 2:
        return [("cgroup", ROOT, "cgroup2", options)]
    out = [("tmpfs", ROOT, "tmpfs", options + ",mode=755")]
    ordered = sorted(V1_HIERARCHIES, key=lambda h: h[0] != "systemd")  # systemd's first, then by name
    out += [("cgroup", f"{ROOT}/{d}", "cgroup", f"{options},{ctl}") for d, ctl, _ in ordered]
    return out
