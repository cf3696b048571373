"""What sandboxes and containers may take: their Linux resources (CPU, memory, cpusets),
validated before any of them is applied and merged on an update; and the runtime's
capacity limits on how many there are (`Limits`: going past one is ResourceExhausted).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from fakecri.engine.errors import InvalidArgument, ResourceExhausted
from fakecri.engine.records import Resources

MIN_MEMORY = 4 * 1024 * 1024  # runc refuses less than 4 MiB
_CPUSET = re.compile(r"\d+(-\d+)?(,\d+(-\d+)?)*")


def _cpuset_ok(text: str) -> bool:
    if not text:
        return True
    if not _CPUSET.fullmatch(text):
        return False
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if hi and int(hi) < int(lo):
            return False
    return True


def problems(res: Resources) -> list[str]:
    """Every reason `res` is invalid; empty when it is fine."""
    out = []
    for name in ("cpu_period", "cpu_shares", "memory_limit_in_bytes"):
        if getattr(res, name) < 0:
            out.append(f"{name} {getattr(res, name)} is negative")
    if res.memory_swap_limit_in_bytes < -1:
        out.append(f"memory_swap_limit_in_bytes {res.memory_swap_limit_in_bytes} is below -1 (-1 = unlimited)")
    if res.cpu_shares == 1 or res.cpu_shares > 262144:
        out.append(f"cpu_shares {res.cpu_shares} is outside 2..262144 (0 = unset)")
    if res.cpu_period and not 1000 <= res.cpu_period <= 1_000_000:
        out.append(f"cpu_period {res.cpu_period} is outside 1000..1000000 (0 = unset)")
    if res.cpu_quota < -1 or 0 < res.cpu_quota < 1000:
        out.append(f"cpu_quota {res.cpu_quota} must be -1, 0 or at least 1000")
    if not -1000 <= res.oom_score_adj <= 1000:
        out.append(f"oom_score_adj {res.oom_score_adj} is outside -1000..1000")
    if 0 < res.memory_limit_in_bytes < MIN_MEMORY:
        out.append(f"memory_limit_in_bytes {res.memory_limit_in_bytes} is below 4 MiB")
    if (res.memory_swap_limit_in_bytes > 0 and res.memory_limit_in_bytes
            and 0 < res.memory_swap_limit_in_bytes < res.memory_limit_in_bytes):
        out.append("memory_swap_limit_in_bytes is below memory_limit_in_bytes")
    for name in ("cpuset_cpus", "cpuset_mems"):
        if not _cpuset_ok(getattr(res, name)):
            out.append(f"{name} {getattr(res, name)!r} is not a list like '0-3,5'")
    for size, limit in res.hugepage_limits:
        if limit < 0:
            out.append(f"hugepage limit for {size} is negative")
    return out


def validate(res: Resources | None, what: str) -> None:
    """Raise InvalidArgument naming `what` (e.g. "container abc") and every problem found."""
    if res is None or res in _fine:
        return
    found = problems(res)
    if found:
        raise InvalidArgument(f"invalid resources for {what}: " + "; ".join(found))
    if len(_fine) >= _FINE_KEPT:
        _fine.clear()
    _fine.add(res)


_FINE_KEPT = 4096  # resources found valid, kept so that equal ones are not checked again
_fine: set[Resources] = set()


def merged(old: Resources, new: Resources) -> Resources:
    """What an update leaves, as containerd applies one to the container's spec: each field the
    update sets (non-zero, non-empty) replaces the old value, the rest stay; `unified` keys are
    added to the old ones."""
    unified = dict(old.unified)
    unified.update(new.unified)
    return Resources(
        cpu_period=new.cpu_period or old.cpu_period, cpu_quota=new.cpu_quota or old.cpu_quota,
        cpu_shares=new.cpu_shares or old.cpu_shares,
        memory_limit_in_bytes=new.memory_limit_in_bytes or old.memory_limit_in_bytes,
        oom_score_adj=new.oom_score_adj or old.oom_score_adj, cpuset_cpus=new.cpuset_cpus or old.cpuset_cpus,
        cpuset_mems=new.cpuset_mems or old.cpuset_mems, hugepage_limits=new.hugepage_limits or old.hugepage_limits,
        unified=tuple(sorted(unified.items())),
        memory_swap_limit_in_bytes=new.memory_swap_limit_in_bytes or old.memory_swap_limit_in_bytes)


@dataclass(frozen=True, slots=True)
class Limits:
    max_sandboxes: int | None = None  # None: unlimited
    max_containers: int | None = None

    def check_sandboxes(self, current: int, name: str) -> None:
        if self.max_sandboxes is not None and current >= self.max_sandboxes:
            raise ResourceExhausted(
                f"cannot run sandbox {name!r}: the runtime already holds {current} sandboxes "
                f"(limit {self.max_sandboxes})"
            )

    def check_containers(self, current: int, name: str) -> None:
        if self.max_containers is not None and current >= self.max_containers:
            raise ResourceExhausted(
                f"cannot create container {name!r}: the runtime already holds {current} containers "
                f"(limit {self.max_containers})"
            )
