"""Shared pieces of the reliability suite: invariants checked through the API, event replay,
a legal-order checker, figures for the closing summary."""
from __future__ import annotations

import threading
from collections import Counter, defaultdict

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from helpers.cri import EventCollector as Subscriber  # a reader that can be told to stop reading
from helpers.cri import container_config, sandbox_config
from helpers.polling import first_true

# Figures reported at the end of the run (pytest_terminal_summary in conftest.py).
FIGURES: Counter[str] = Counter()
NOTES: dict[str, str] = {}
_lock = threading.Lock()


def add(name: str, n: int = 1) -> None:
    with _lock:
        FIGURES[name] += n


FORBIDDEN = (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)
CREATED, STARTED, STOPPED, DELETED = (pb.CONTAINER_CREATED_EVENT, pb.CONTAINER_STARTED_EVENT,
                                      pb.CONTAINER_STOPPED_EVENT, pb.CONTAINER_DELETED_EVENT)
RANK = {CREATED: 0, STARTED: 1, STOPPED: 2, DELETED: 3}


def check_invariants(rt: api_pb2_grpc.RuntimeServiceStub, *, detail_limit: int = 40, timeout: float = 20) -> dict:
    """Invariants of a quiescent server, checked only through the CRI API. Returns counts.

    - every listed container's sandbox is listed;
    - no two listed containers share (sandbox, name, attempt);
    - no container RUNNING in a NOTREADY sandbox;
    - a status call agrees with the list about state (for up to `detail_limit` items);
    - filtering by id or by sandbox id agrees with the full list.
    """
    sandboxes = {s.id: s for s in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=timeout).items}
    containers = {c.id: c for c in rt.ListContainers(pb.ListContainersRequest(), timeout=timeout).containers}
    keys = set()
    per_sandbox: dict[str, set[str]] = defaultdict(set)
    for c in containers.values():
        assert c.pod_sandbox_id in sandboxes, f"container {c.id} belongs to missing sandbox {c.pod_sandbox_id}"
        key = (c.pod_sandbox_id, c.metadata.name, c.metadata.attempt)
        assert key not in keys, f"two containers with the same sandbox/name/attempt {key}"
        keys.add(key)
        per_sandbox[c.pod_sandbox_id].add(c.id)
        if sandboxes[c.pod_sandbox_id].state == pb.SANDBOX_NOTREADY:
            assert c.state != pb.CONTAINER_RUNNING, f"container {c.id} runs in a NOTREADY sandbox"
    for sid in list(sandboxes)[:detail_limit]:
        st = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid), timeout=timeout)
        assert st.status.id == sid and st.status.state == sandboxes[sid].state, f"sandbox {sid} status != list"
        listed = rt.ListContainers(pb.ListContainersRequest(filter=pb.ContainerFilter(pod_sandbox_id=sid)),
                                   timeout=timeout).containers
        assert {c.id for c in listed} == per_sandbox[sid], f"sandbox {sid}: filter by sandbox != full list"
    for cid in list(containers)[:detail_limit]:
        st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid), timeout=timeout)
        assert st.status.id == cid and st.status.state == containers[cid].state, f"container {cid} status != list"
        one = rt.ListContainers(pb.ListContainersRequest(filter=pb.ContainerFilter(id=cid)), timeout=timeout)
        assert [c.id for c in one.containers] == [cid]
    add("invariant checks")
    return {"sandboxes": len(sandboxes), "containers": len(containers)}


# ---------------------------------------------------------------- events


def legal_order_problems(events: list[pb.ContainerEventResponse]) -> list[str]:
    """For a subscriber that was open before anything existed. Per id: CREATED first, each
    transition at most once, in CREATED < STARTED < STOPPED < DELETED order; a container's
    events only between its sandbox's CREATED and DELETED."""
    problems = []
    seen: dict[str, list[int]] = defaultdict(list)
    sandbox_open: dict[str, bool] = {}
    for i, ev in enumerate(events):
        cid, kind = ev.container_id, ev.container_event_type
        sid = ev.pod_sandbox_status.id if ev.HasField("pod_sandbox_status") else ""
        hist = seen[cid]
        if kind in hist:
            problems.append(f"#{i} {cid[:12]}: {pb.ContainerEventType.Name(kind)} twice")
        elif hist and RANK[kind] < RANK[hist[-1]]:
            problems.append(f"#{i} {cid[:12]}: {pb.ContainerEventType.Name(kind)} after "
                            f"{pb.ContainerEventType.Name(hist[-1])}")
        if not hist and kind != CREATED:
            problems.append(f"#{i} {cid[:12]}: first event is {pb.ContainerEventType.Name(kind)}, not CREATED")
        hist.append(kind)
        is_sandbox = cid == sid
        if is_sandbox:
            if kind == CREATED:
                sandbox_open[cid] = True
            elif kind == DELETED:
                sandbox_open[cid] = False
        elif not sandbox_open.get(sid, False):
            problems.append(f"#{i} container {cid[:12]}: {pb.ContainerEventType.Name(kind)} outside its sandbox's life")
    return problems


def replay(events: list[pb.ContainerEventResponse]) -> tuple[dict[str, int], dict[str, int]]:
    """The state the events describe: (sandbox id -> state, container id -> state) of live objects."""
    sandboxes: dict[str, int] = {}
    containers: dict[str, int] = {}
    for ev in events:
        sid = ev.pod_sandbox_status.id if ev.HasField("pod_sandbox_status") else ""
        kind = ev.container_event_type
        if ev.container_id == sid:
            if kind == DELETED:
                sandboxes.pop(sid, None)
            else:
                sandboxes[sid] = pb.SANDBOX_READY if kind in (CREATED, STARTED) else pb.SANDBOX_NOTREADY
        else:
            if kind == DELETED:
                containers.pop(ev.container_id, None)
            else:
                containers[ev.container_id] = {CREATED: pb.CONTAINER_CREATED, STARTED: pb.CONTAINER_RUNNING,
                                               STOPPED: pb.CONTAINER_EXITED}[kind]
    return sandboxes, containers


def listed_state(rt) -> tuple[dict[str, int], dict[str, int]]:
    sandboxes = {s.id: s.state for s in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=20).items}
    containers = {c.id: c.state for c in rt.ListContainers(pb.ListContainersRequest(), timeout=20).containers}
    return sandboxes, containers


def wait_until(pred, timeout: float = 30.0, step: float = 0.02) -> bool:
    """Whether `pred()` held within `timeout` seconds."""
    return first_true(pred, timeout, step) is not None


__all__ = ["FIGURES", "NOTES", "add", "FORBIDDEN", "check_invariants", "legal_order_problems", "replay",
           "listed_state", "Subscriber", "wait_until", "sandbox_config", "container_config"]
