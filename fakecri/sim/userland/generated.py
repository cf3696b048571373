"""The files a container's runtime and kernel make for it: /etc/hostname, /etc/hosts,
/etc/resolv.conf, the image's account files, /proc/self/status, the user-namespace maps,
/proc/sys from the sysctls, nginx's pid file. Their content follows the container's config
(and, for the host's namespaces, the host's /proc); a CRI mount on the same path hides them.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from fakecri.engine.specs import NODE, Mount
from fakecri.sim.host_view import HostView
from fakecri.sim.image_content import ImageContent
from fakecri.sim.userland.cgroupfs import Cgroup, allowed_cpus, cgroup_file, proc_cgroup
from fakecri.sim.userland.filesystems import proc_mounts
from fakecri.sim.userland.privilege import Privilege
from fakecri.sim.userland.shared_mounts import SharedMount
from fakecri.sim.userland.spec import UserlandSpec


class Userland(Protocol):
    """What the generated files are made from (fakecri.sim.userland.world.Userland has it)."""

    spec: UserlandSpec
    ip: str
    content: ImageContent
    host: HostView
    cgroup: Cgroup
    processes: Callable[[], list[tuple[int, str]]]
    uid: int
    gid: int
    groups: list[int]

    @property
    def privilege(self) -> Privilege: ...

    def mounts_made_inside(self) -> list[tuple[str, str]]: ...

    def tmpfs_options(self, target: str) -> str: ...

    def tmpfs_name(self, target: str) -> str: ...

    def shared_seen(self) -> list[tuple[str, SharedMount, bool]]: ...

    def shared_holding(self, path: str) -> tuple[str, SharedMount, bool] | None: ...

    def backing(self, path: str) -> tuple[Mount, str] | None: ...

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

# the generated files a directory listing shows (the /proc/sys ones follow the sysctls)
LISTED = ("/etc/hostname", "/etc/hosts", "/etc/resolv.conf", "/etc/passwd", "/etc/group", "/proc/mounts",
          "/proc/self/mounts", "/proc/meminfo",
          *(f"/proc/{p}/{f}" for p in ("self", "1")
            for f in ("status", "uid_map", "gid_map", "cgroup", "oom_score_adj")))


def id_map_text(mapping: tuple[tuple[int, int, int], ...] | None, host_map: bytes) -> bytes:
    """A user-namespace map as the kernel prints it; without a namespace of the pod's own, the
    host's (`host_map`), which is what a container in the node's user namespace reads."""
    if mapping is None:
        if host_map:
            return host_map
        mapping = ((0, 0, 4294967295),)
    return "".join(f"{c:>10} {h:>10} {n:>10}\n" for c, h, n in mapping).encode()


def status_text(world: Userland) -> bytes:
    """/proc/self/status of a process in the container (the fields that follow its config)."""
    p = world.privilege
    uid, gid = world.uid, world.gid
    res = world.cgroup.now().resources
    return (f"Name:\tsh\nState:\tR (running)\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n"
            f"Gid:\t{gid}\t{gid}\t{gid}\t{gid}\n"
            f"Groups:\t{' '.join(str(g) for g in world.groups)}\n"
            f"CapInh:\t{0:016x}\nCapPrm:\t{p.effective:016x}\nCapEff:\t{p.effective:016x}\n"
            f"CapBnd:\t{p.bounding:016x}\nCapAmb:\t{0:016x}\n"
            f"NoNewPrivs:\t{int(p.no_new_privs)}\nSeccomp:\t{p.seccomp_mode}\n"
            f"Seccomp_filters:\t{1 if p.seccomp_mode else 0}\n"
            f"Cpus_allowed_list:\t{allowed_cpus(world.cgroup, res)}\n"
            f"Mems_allowed_list:\t{res.cpuset_mems or '0'}\n").encode()


HOST_PROC = ("/proc/cpuinfo", "/proc/loadavg", "/proc/uptime", "/proc/version", "/proc/stat")
FALLBACK_MEMORY_KB = 16 * 1024 * 1024  # MemTotal where the host's /proc/meminfo cannot be read


def meminfo(world: Userland) -> bytes:
    """/proc/meminfo: the host's, as runc without lxcfs shows it (a container's memory limit does
    not change it), with SwapTotal and SwapFree as the node's swap setting says when one is given."""
    text = world.host.proc_file("/proc/meminfo").decode("ascii", "replace")
    if not text:
        total = FALLBACK_MEMORY_KB
        text = "".join(f"{k + ':':<16}{v:>8} kB\n" for k, v in (
            ("MemTotal", total), ("MemFree", total * 3 // 4), ("MemAvailable", total * 7 // 8), ("Buffers", 0),
            ("Cached", total // 8), ("SwapCached", 0), ("Shmem", 0), ("SReclaimable", 0), ("SwapTotal", 0),
            ("SwapFree", 0)))
    swap = world.cgroup.swap_bytes
    if swap is None:
        return text.encode()
    lines = [f"{line.split(':')[0] + ':':<16}{swap // 1024:>8} kB" if line.startswith(("SwapTotal:", "SwapFree:"))
             else line for line in text.splitlines()]
    return ("\n".join(lines) + "\n").encode()


def generated_file(world: Userland, path: str) -> bytes | None:
    """The content of the generated file at `path`, None when there is none."""
    spec = world.spec
    if path == "/etc/hostname":
        return (spec.hostname + "\n").encode()
    if path == "/etc/hosts":
        lines = ["127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback",
                 "fe00::0\tip6-localnet", "fe00::0\tip6-mcastprefix", "fe00::1\tip6-allnodes",
                 "fe00::2\tip6-allrouters"]
        if world.ip and spec.hostname:
            lines.append(f"{world.ip}\t{spec.hostname}")
        return ("\n".join(lines) + "\n").encode()
    if path == "/etc/resolv.conf":
        lines = []
        if spec.dns_searches:
            lines.append("search " + " ".join(spec.dns_searches))
        lines += [f"nameserver {s}" for s in spec.dns_servers]
        if spec.dns_options:
            lines.append("options " + " ".join(spec.dns_options))
        return ("\n".join(lines) + "\n").encode() if lines else b""
    if path == "/etc/passwd":
        return world.content.passwd.encode()
    if path == "/etc/group":
        return world.content.group.encode()
    if path == "/proc/1/cmdline":
        if spec.pid_mode == NODE:
            return world.host.proc_file("/proc/1/cmdline")
        title = world.processes()[0][1]
        if title.startswith("nginx: "):  # nginx writes its title over its arguments: one string
            return (title + "\0").encode()
        return "".join(word + "\0" for word in title.split(" ")).encode()
    if path == "/proc/sysvipc/shm" and spec.ipc_mode == NODE:
        return world.host.proc_file(path)
    if path == "/var/run/nginx.pid" and world.content.http_server == "nginx" and world.content.http_ports:
        mine = [pid for pid, line in world.processes() if line.startswith("nginx: master process")]
        return f"{mine[0]}\n".encode() if mine else None
    if path in ("/proc/mounts", "/proc/self/mounts", "/proc/1/mounts"):
        return proc_mounts(world)
    if path in ("/proc/self/status", "/proc/1/status"):
        return status_text(world)
    if path in ("/proc/self/uid_map", "/proc/1/uid_map", "/proc/self/gid_map", "/proc/1/gid_map"):
        own = spec.uid_map if path.endswith("uid_map") else spec.gid_map
        host_map = world.host.proc_file(path.replace("/proc/1/", "/proc/self/")) if own is None else b""
        return id_map_text(own, host_map)
    if path.startswith("/sys/fs/cgroup/"):
        return cgroup_file(world.cgroup, path)
    if path in ("/proc/self/cgroup", "/proc/1/cgroup"):
        return proc_cgroup(world.cgroup)
    if path == "/proc/meminfo":
        return meminfo(world)
    if path in HOST_PROC:  # the kernel's own view, which a container without lxcfs shares
        return world.host.proc_file(path) or None
    if path in ("/proc/self/oom_score_adj", "/proc/1/oom_score_adj"):
        now = world.cgroup.now()
        return f"{now.resources.oom_score_adj if now.oom_score_adj is None else now.oom_score_adj}\n".encode()
    if path.startswith("/proc/sys/"):
        value = spec.sysctl(path[len("/proc/sys/"):])
        if value is not None:
            return (value + "\n").encode()
    return None


def generated_dirs(spec: UserlandSpec) -> set[str]:
    """The directories under /proc/sys the sysctls make."""
    out = set()
    for key, _ in spec.sysctls:
        parts = key.split("/")
        for i in range(1, len(parts)):
            out.add("/proc/sys/" + "/".join(parts[:i]))
    return out
