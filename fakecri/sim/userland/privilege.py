"""What a container's process may do: its capabilities and its seccomp filter.

Capabilities start from the set containerd grants by default, then `add_capabilities`
and `drop_capabilities` (names with or without `CAP_`, or `ALL`) apply; a privileged
container has them all. A non-root user holds none in its effective set. Seccomp is
off without a profile, with Unconfined or when privileged, and a filter otherwise
(RuntimeDefault, or a Localhost profile read from the host file it names, which
decides which system calls fail).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from fakecri.engine.specs import LOCALHOST, UNCONFINED, Seccomp
from fakecri.sim.host_view import HostError

CAPABILITIES = (
    "CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID", "SETPCAP",
    "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER",
    "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN", "SYS_BOOT", "SYS_NICE",
    "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP",
    "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF",
    "CHECKPOINT_RESTORE",
)  # numbered in this order, as in linux/capability.h
BIT = {name: 1 << i for i, name in enumerate(CAPABILITIES)}
ALL = (1 << len(CAPABILITIES)) - 1
DEFAULT = sum(BIT[n] for n in ("CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
                               "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE"))
# System calls behind the commands that need a privilege.
SYSCALLS = {"hostname": ("sethostname",), "chmod": ("chmod", "fchmod", "fchmodat", "fchmodat2")}


def _mask(names: tuple[str, ...]) -> int:
    out = 0
    for name in names:
        key = name.upper().removeprefix("CAP_")
        out |= ALL if key == "ALL" else BIT.get(key, 0)
    return out


@dataclass(frozen=True, slots=True)
class Privilege:
    bounding: int  # the capabilities the container holds
    effective: int  # what its process may use (none for a non-root user)
    no_new_privs: bool
    seccomp_mode: int  # 0: off, 2: a filter
    blocked: frozenset[str]  # system calls the filter refuses

    def may(self, capability: str) -> bool:
        return bool(self.effective & BIT[capability])

    def allows(self, command: str) -> bool:
        return not any(call in self.blocked for call in SYSCALLS.get(command, ()))


def privilege(*, privileged: bool, add: tuple[str, ...], drop: tuple[str, ...], uid: int, no_new_privs: bool,
              seccomp: Seccomp | None, read_profile: Callable[[str], bytes]) -> Privilege:
    """`seccomp`: the profile, None when none is given; `read_profile(path)` reads a Localhost
    profile's host file (raising HostError when it cannot)."""
    caps = ALL if privileged else (DEFAULT | _mask(add)) & ~_mask(drop)
    if privileged or seccomp is None or seccomp.kind == UNCONFINED:
        mode, blocked = 0, frozenset[str]()
    else:
        mode = 2
        blocked = _blocked_by(seccomp.localhost_ref, read_profile) if seccomp.kind == LOCALHOST else frozenset()
    return Privilege(caps, caps if uid == 0 else 0, no_new_privs, mode, blocked)


def _blocked_by(path: str, read_profile: Callable[[str], bytes]) -> frozenset[str]:
    """The system calls a Localhost seccomp profile (the host file, JSON) makes fail."""
    try:
        profile = json.loads(read_profile(path))
    except (HostError, ValueError):
        return frozenset()
    if not isinstance(profile, dict):
        return frozenset()
    denied: set[str] = set()
    allowed: set[str] = set()
    for rule in profile.get("syscalls") or ():
        if not isinstance(rule, dict):
            continue
        names = set(rule.get("names") or ()) | ({rule["name"]} if isinstance(rule.get("name"), str) else set())
        (allowed if rule.get("action") == "SCMP_ACT_ALLOW" else denied).update(n for n in names if isinstance(n, str))
    if profile.get("defaultAction", "SCMP_ACT_ALLOW") != "SCMP_ACT_ALLOW":
        every = {call for calls in SYSCALLS.values() for call in calls}
        denied |= every - allowed
    return frozenset(denied)
