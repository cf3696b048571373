"""The commands that ask the kernel about the system a container runs on: `hostname`, `nproc`
and `free`, as busybox's behave in a container runc made without lxcfs.

- `hostname` prints the UTS namespace's name; `-f`, `-d` and `-i` look it up as busybox's
  gethostbyname does, in the container's /etc/hosts (the kubelet writes `IP  FQDN  short`
  lines there): the canonical name is the first name of the first line that lists it; `-s`
  alone needs no lookup. An unknown name is busybox's "Unknown host" (no DNS is asked).
- `nproc` counts the CPUs the container may run on (its cpuset, else every online CPU of
  the host); `--all` counts the host's online CPUs.
- `free` reads /proc/meminfo, which is the host's: a memory limit does not change it, as
  runc without lxcfs shows it (the limit is in /sys/fs/cgroup/memory.max).
"""
from __future__ import annotations

from fakecri.sim.shell import Io, Process
from fakecri.sim.userland.cgroupfs import allowed_cpus, cpu_list
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.world import FileError, Userland

HOSTNAME_USAGE = """BusyBox v1.35.0 multi-call binary.

Usage: hostname [-sidf] [HOSTNAME | -F FILE]

Show or set hostname or DNS domain name

\t-s\tShort
\t-i\tAddresses for the hostname
\t-d\tDNS domain name
\t-f\tFully qualified domain name
\t-F FILE\tUse FILE's content as hostname
"""
NPROC_USAGE = """BusyBox v1.35.0 multi-call binary.

Usage: nproc [--all] [--ignore=N]

Print number of available CPUs

\t--all\t\tNumber of installed CPUs
\t--ignore=N\tExclude N CPUs
"""
FREE_USAGE = """BusyBox v1.35.0 multi-call binary.

Usage: free [-bkmgh]

Display free and used memory
"""


def lookup(world: Userland, name: str) -> tuple[str, list[str]] | None:
    """(canonical name, addresses) of `name` in the container's /etc/hosts; None: not there."""
    try:
        text = world.read("/etc/hosts").decode("utf-8", "replace")
    except FileError:
        return None
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2 and name in fields[1:]:
            return fields[1], [fields[0]]
    return None


def _hostname(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags: set[str] = set()
    operands: list[str] = []
    file = None
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a.startswith("-") and len(a) > 1 and not operands:
            for j, ch in enumerate(a[1:], 1):
                if ch == "F":
                    file = a[j + 1:] or (rest.pop(0) if rest else None)
                    if file is None:
                        yield from io.error("hostname: option requires an argument -- 'F'\n" + HOSTNAME_USAGE)
                        return 1
                    break
                if ch not in "sidf":
                    yield from io.error(f"hostname: invalid option -- '{ch}'\n" + HOSTNAME_USAGE)
                    return 1
                flags.add(ch)
        else:
            operands.append(a)
    if file is not None or operands:
        if file is not None:
            try:
                world.read(file)
            except FileError as exc:
                yield from io.error(f"hostname: can't open '{file}': {exc.reason}\n")
                return 1
        p = world.privilege
        if not (p.may("SYS_ADMIN") and p.allows("hostname")):
            yield from io.error("hostname: sethostname: Operation not permitted\n")
            return 1
        return 0  # allowed; the UTS namespace is the container's own, nothing else sees it
    name = world.spec.hostname
    if not flags:
        yield from io.write(name + "\n")
        return 0
    if flags == {"s"}:
        yield from io.write(name.split(".", 1)[0] + "\n")
        return 0
    found = lookup(world, name)
    if found is None:
        yield from io.error(f"hostname: {name}: Unknown host\n")
        return 1
    canonical, addresses = found
    if "f" in flags:
        yield from io.write(canonical + "\n")
    elif "s" in flags:
        yield from io.write(canonical.split(".", 1)[0] + "\n")
    elif "d" in flags:
        if "." in canonical:
            yield from io.write(canonical.split(".", 1)[1] + "\n")
    else:
        yield from io.write(" ".join(addresses) + "\n")
    return 0


def _nproc(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    every, ignore = False, 0
    for a in args:
        if a == "--all":
            every = True
        elif a.startswith("--ignore=") and a[len("--ignore="):].isdigit():
            ignore = int(a[len("--ignore="):])
        elif a.startswith("-"):
            yield from io.error(f"nproc: unrecognized option '{a}'\n" + NPROC_USAGE)
            return 1
    view = world.cgroup
    cpus = view.cpus_online if every else allowed_cpus(view, view.now().resources)
    yield from io.write(f"{max(1, len(cpu_list(cpus)) - ignore)}\n")
    return 0


def meminfo_kb(world: Userland) -> dict[str, int]:
    """The kB figures of the container's /proc/meminfo, by name."""
    out: dict[str, int] = {}
    try:
        text = world.read("/proc/meminfo").decode("ascii", "replace")
    except FileError:
        return out
    for line in text.splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if parts and parts[0].isdigit():
            out[key.strip()] = int(parts[0])
    return out


def _human(kb: int) -> str:
    value = float(kb * 1024)
    if value == 0:
        return "0"
    unit = ""
    for next_unit in ("K", "M", "G", "T", "P"):
        if value < 1024:
            break
        value /= 1024
        unit = next_unit
    return f"{value:.1f}{unit}" if unit else str(int(value))


def _free(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    unit = "k"
    for a in args:
        if not a.startswith("-") or len(a) < 2 or any(ch not in "bkmgh" for ch in a[1:]):
            bad = next((ch for ch in a[1:] if ch not in "bkmgh"), a)
            yield from io.error(f"free: invalid option -- '{bad}'\n" + FREE_USAGE)
            return 1
        unit = a[-1]
    info = meminfo_kb(world)
    total, free = info.get("MemTotal", 0), info.get("MemFree", 0)
    cache = info.get("Buffers", 0) + info.get("Cached", 0) + info.get("SReclaimable", 0)
    mem = [total, max(0, total - free - cache), free, info.get("Shmem", 0), cache, info.get("MemAvailable", free)]
    swap_total, swap_free = info.get("SwapTotal", 0), info.get("SwapFree", 0)
    swap = [swap_total, swap_total - swap_free, swap_free]

    def shown(kb: int) -> str:
        if unit == "h":
            return _human(kb)
        return str({"b": kb * 1024, "k": kb, "m": kb // 1024, "g": kb // (1024 * 1024)}[unit])

    header = "       " + "".join(f"{h:>12}" for h in ("total", "used", "free", "shared", "buff/cache", "available"))
    rows = [header, "Mem:   " + "".join(f"{shown(v):>12}" for v in mem),
            "Swap:  " + "".join(f"{shown(v):>12}" for v in swap)]
    yield from io.write("\n".join(rows) + "\n")
    return 0


SYSTEM_COMMANDS = {"hostname": _hostname, "nproc": _nproc, "free": _free}
