"""An in-memory stand-in for CRIClient, for unit tests of the PLEG logic only.

It answers the four calls a relist makes (list sandboxes, list containers, sandbox
status, container status) from dicts the test edits directly.
"""
from __future__ import annotations

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.errors import NotFoundError, UnavailableError


class MemoryRuntime:
    def __init__(self) -> None:
        self.sandboxes: dict[str, pb.PodSandboxStatus] = {}
        self.containers: dict[str, pb.ContainerStatus] = {}
        self.sandbox_of: dict[str, str] = {}
        self.failing: set[str] = set()  # ids whose status call fails with UNAVAILABLE
        self.list_fails = False
        self.calls: list[str] = []
        self.timestamp = 0  # PodSandboxStatusResponse.timestamp to report (0: none)
        self._t = 0

    def _tick(self) -> int:
        self._t += 1
        return self._t

    # -------------------------------------------------- editing

    def add_pod(self, uid: str, sid: str, ip: str = "10.0.0.1") -> None:
        self.sandboxes[sid] = pb.PodSandboxStatus(
            id=sid, metadata=pb.PodSandboxMetadata(name=f"pod-{uid}", namespace="ns", uid=uid),
            state=pb.SANDBOX_READY, created_at=self._tick(), network=pb.PodSandboxNetworkStatus(ip=ip),
        )

    def stop_pod(self, sid: str) -> None:
        self.sandboxes[sid].state = pb.SANDBOX_NOTREADY
        self.sandboxes[sid].network.ip = ""

    def remove_pod(self, sid: str) -> None:
        del self.sandboxes[sid]
        for cid in [c for c, s in self.sandbox_of.items() if s == sid]:
            self.remove(cid)

    def add(self, sid: str, cid: str, state: int = pb.CONTAINER_CREATED) -> None:
        self.sandbox_of[cid] = sid
        self.containers[cid] = pb.ContainerStatus(id=cid, metadata=pb.ContainerMetadata(name=cid), state=state,
                                                  created_at=self._tick())

    def set(self, cid: str, state: int, exit_code: int = 0) -> None:
        self.containers[cid].state = state
        self.containers[cid].exit_code = exit_code

    def remove(self, cid: str) -> None:
        self.containers.pop(cid, None)
        self.sandbox_of.pop(cid, None)

    # -------------------------------------------------- the CRIClient surface a PLEG uses

    def list_pod_sandbox(self, filter=None, *, streaming=False):
        self.calls.append("ListPodSandbox")
        if self.list_fails:
            raise UnavailableError("list fails", method="ListPodSandbox")
        return [pb.PodSandbox(id=s.id, metadata=s.metadata, state=s.state, created_at=s.created_at)
                for s in self.sandboxes.values()]

    def list_containers(self, filter=None, *, streaming=False):
        self.calls.append("ListContainers")
        want = (filter or {}).get("pod_sandbox_id", "") if isinstance(filter, dict) else ""
        return [pb.Container(id=c.id, pod_sandbox_id=self.sandbox_of[c.id], metadata=c.metadata, state=c.state)
                for c in self.containers.values() if not want or self.sandbox_of[c.id] == want]

    def pod_sandbox_status(self, sid, verbose=False):
        self.calls.append("PodSandboxStatus")
        if sid in self.failing:
            raise UnavailableError("status fails", method="PodSandboxStatus")
        if sid not in self.sandboxes:
            raise NotFoundError(sid, method="PodSandboxStatus")
        return pb.PodSandboxStatusResponse(status=self.sandboxes[sid], timestamp=self.timestamp)

    def container_status(self, cid, verbose=False):
        self.calls.append("ContainerStatus")
        if cid in self.failing:
            raise UnavailableError("status fails", method="ContainerStatus")
        if cid not in self.containers:
            raise NotFoundError(cid, method="ContainerStatus")
        return pb.ContainerStatusResponse(status=self.containers[cid])
