"""What the kernel makes of a memory limit lowered below what a running container holds.

Memory the container cannot reclaim is its RSS as its stats report it now (`CgroupNow`). Under
cgroup v1 the write of the lower limit fails with EBUSY, which containerd answers as UNKNOWN with
runc's words, and nothing changes; under cgroup v2 the limit is taken and the kernel's OOM killer
ends the container (137, OOMKilled), its exit following the update.
"""
from __future__ import annotations

from fakecri.engine.errors import Other
from fakecri.engine.exits import EXIT_KILLED, OOM_KILLED
from fakecri.sim.live import Decision, Exited
from fakecri.sim.userland.cgroupfs import CgroupNow


def lowered(cid: str, limit: int, now: CgroupNow, cgroup_version: int, now_ns: int) -> list[Decision]:
    """The decisions of setting `limit` bytes on container `cid`, whose cgroup holds `now`: none
    when the limit is above its RSS; raises the refusal under cgroup v1; the OOM kill under v2."""
    if limit >= now.memory_rss:
        return []
    if cgroup_version == 1:
        raise Other("UNKNOWN", f"failed to update resources: failed to update resources: unable to set memory "
                               f"limit to {limit} (current usage: {now.memory_usage}, peak usage: "
                               f"{now.memory_usage})")
    return [Exited(cid, EXIT_KILLED, OOM_KILLED, now_ns)]
