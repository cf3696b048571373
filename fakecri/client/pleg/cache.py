"""The kubelet's pod cache: the last known status of every pod, with timestamps."""
from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg.lifecycle import State, container_state, sandbox_state


@dataclass
class PodStatus:
    """What an inspection (or an event) says about one pod."""

    uid: str
    name: str = ""
    namespace: str = ""
    ips: tuple[str, ...] = ()
    sandbox_statuses: list[pb.PodSandboxStatus] = field(default_factory=list)
    container_statuses: list[pb.ContainerStatus] = field(default_factory=list)
    # The runtime's PodSandboxStatusResponse.timestamp (ns) when it gave one, else 0.
    runtime_timestamp: int = 0

    def states(self) -> dict[str, State]:
        """Every sandbox and container id of the pod with its PLEG state."""
        out = {s.id: sandbox_state(s.state) for s in self.sandbox_statuses}
        out.update({c.id: container_state(c.state) for c in self.container_statuses})
        return out

    def exit_codes(self) -> dict[str, int]:
        return {c.id: c.exit_code for c in self.container_statuses if c.state == pb.CONTAINER_EXITED}


def sandbox_ips(statuses: Iterable[pb.PodSandboxStatus]) -> tuple[str, ...]:
    """The pod IPs from the newest sandbox that has any."""
    for sb in sorted(statuses, key=lambda s: s.created_at, reverse=True):
        if sb.HasField("network") and sb.network.ip:
            return (sb.network.ip, *(ip.ip for ip in sb.network.additional_ips))
    return ()


@dataclass(frozen=True)
class CacheEntry:
    status: PodStatus | None
    error: str | None
    modified: int  # ns


class PodCache:
    """Pod statuses keyed by UID, each stamped with the time it reflects.

    With `reject_stale` (the kubelet's rule while Evented PLEG is on), `set` refuses an
    update only when the cached entry is strictly newer; an equal timestamp overwrites.
    """

    def __init__(self, *, reject_stale: bool = True) -> None:
        self.reject_stale = reject_stale
        self._pods: dict[str, CacheEntry] = {}
        self._timestamp = 0
        self._cond = threading.Condition()
        self.rejected = 0

    def set(self, uid: str, status: PodStatus | None, error: str | None, timestamp: int) -> bool:
        with self._cond:
            old = self._pods.get(uid)
            if self.reject_stale and old is not None and old.modified > timestamp:
                self.rejected += 1
                return False
            self._pods[uid] = CacheEntry(status, error, timestamp)
            self._cond.notify_all()
            return True

    def set_observed_time(self, uid: str, timestamp: int) -> None:
        """The pod's entry, unchanged, now counts as observed at `timestamp` (the kubelet's
        SetObservedTime after a pod relist that found nothing new); wakes its waiters."""
        with self._cond:
            old = self._pods.get(uid)
            if old is not None and timestamp > old.modified:
                self._pods[uid] = CacheEntry(old.status, old.error, timestamp)
                self._cond.notify_all()

    def get(self, uid: str) -> CacheEntry | None:
        with self._cond:
            return self._pods.get(uid)

    def delete(self, uid: str) -> None:
        with self._cond:
            self._pods.pop(uid, None)

    def update_time(self, timestamp: int) -> None:
        """Declare every entry fresh as of `timestamp` (wakes `get_newer_than` waiters)."""
        with self._cond:
            self._timestamp = max(self._timestamp, timestamp)
            self._cond.notify_all()

    @property
    def timestamp(self) -> int:
        with self._cond:
            return self._timestamp

    def get_newer_than(self, uid: str, min_ts: int, timeout: float | None = None) -> CacheEntry | None:
        """Wait until the pod's entry, or the cache as a whole, is newer than `min_ts`.

        Returns the entry (None if the pod is unknown), or None on timeout.
        """
        def ready() -> bool:
            entry = self._pods.get(uid)
            return (entry is not None and entry.modified > min_ts) or self._timestamp > min_ts

        with self._cond:
            if not self._cond.wait_for(ready, timeout):
                return None
            return self._pods.get(uid)

    def uids(self) -> list[str]:
        with self._cond:
            return list(self._pods)

    def snapshot(self) -> dict[str, CacheEntry]:
        with self._cond:
            return dict(self._pods)

    def states(self) -> dict[str, dict[str, State]]:
        """uid -> {container or sandbox id -> state}, for comparing caches."""
        return {uid: (e.status.states() if e.status else {}) for uid, e in self.snapshot().items()}

    def __len__(self) -> int:
        with self._cond:
            return len(self._pods)
