"""What a Runtime holds: its records, their keys, its timers and counters, in one place.

The Runtime owns one RuntimeStore and changes it; `snapshot` saves and loads a store
without knowing the Runtime, so the state file and the state machine stay apart.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakecri.engine.ipam import IpPool
from fakecri.engine.records import Container, ContainerState, Sandbox
from fakecri.engine.timers import INPUT, STOP, Entry, TimerHeap


@dataclass(slots=True)
class RuntimeStore:
    ips: IpPool
    sandboxes: dict[str, Sandbox] = field(default_factory=dict)
    containers: dict[str, Container] = field(default_factory=dict)
    sandbox_keys: dict[tuple[str, str, str, int], str] = field(default_factory=dict)  # (name, ns, uid, attempt)
    container_keys: dict[tuple[str, str, int], str] = field(default_factory=dict)  # (sandbox id, name, attempt)
    timers: TimerHeap = field(default_factory=TimerHeap)
    stopping: dict[str, tuple[int, int, str]] = field(default_factory=dict)  # cid -> (due_ns, exit_code, reason)
    removed_cpu: dict[str, int] = field(default_factory=dict)  # sandbox id -> CPU ns of its removed containers
    # cid -> the live process of a container whose command reads input and has been given some
    # (core.runtime.LiveInput); made on the first input, so other containers cost nothing.
    live: dict[str, Any] = field(default_factory=dict)
    # cid -> its simulated userland (core.userland.Userland), made on the first command that looks in
    userlands: dict[str, Any] = field(default_factory=dict)
    own_plans: dict[str, Any] = field(default_factory=dict)  # cid -> the plan of a command that reads its userland
    # cid -> the host's mount points when it started, for a container with a private host mount
    mounts_at_start: dict[str, frozenset[str]] = field(default_factory=dict)
    running: int = 0  # containers RUNNING now
    last_event_ns: int = 0  # the newest event's created_at (events never go back in time)

    def is_stale(self, entry: Entry) -> bool:
        """A timer that no longer applies: its container is gone or not running, or the stop was replaced."""
        due, _, cid, kind, _ = entry
        c = self.containers.get(cid)
        if c is None or c.state != ContainerState.RUNNING:
            return True
        if kind == STOP:
            pending = self.stopping.get(cid)
            return pending is None or pending[0] != due
        if kind == INPUT:
            live = self.live.get(cid)
            return live is None or live.due_ns != due
        return False

    def clear(self) -> None:
        """Forget every record, timer and counter (the address pool keeps its range)."""
        self.sandboxes.clear()
        self.containers.clear()
        self.sandbox_keys.clear()
        self.container_keys.clear()
        self.timers.clear()
        self.stopping.clear()
        self.removed_cpu.clear()
        self.live.clear()
        self.userlands.clear()
        self.own_plans.clear()
        self.mounts_at_start.clear()
        self.ips.used.clear()
        self.running = 0
