"""What the engine holds: its records, their keys, its timers and counters, in one place.

The Runtime owns one RuntimeStore and is its only writer; `snapshot` saves and loads a
store without knowing the Runtime, so the state file and the state machine stay apart.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from fakecri.engine.ipam import IpPool
from fakecri.engine.records import Container, ContainerState, Sandbox
from fakecri.engine.timers import STOP, Entry, TimerHeap


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
        self.ips.release_all()
        self.running = 0
