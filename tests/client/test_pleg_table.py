"""The relist event table and pod grouping, on hand-made records (no runtime)."""
import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg import EventChannel, EventType, PodLifecycleEvent, PodRecord, State, build_pods
from fakecri.client.pleg.lifecycle import ContainerRecord, compute_pod_events, generate_events

R, X, U, N = State.RUNNING, State.EXITED, State.UNKNOWN, State.NON_EXISTENT
S, D, RM, CH = EventType.STARTED, EventType.DIED, EventType.REMOVED, EventType.CHANGED


@pytest.mark.parametrize(
    "old, new, kinds",
    [
        (N, R, [S]), (U, R, [S]), (X, R, [S]),
        (N, X, [D]), (R, X, [D]), (U, X, [D]),
        (R, N, [D, RM]), (U, N, [D, RM]), (X, N, [RM]),
        (N, U, [CH]), (R, U, [CH]),
        (R, R, []), (X, X, []), (N, N, []),
    ],
)
def test_kubelet_table(old, new, kinds):
    assert [e.type for e in generate_events("pod", "c1", old, new)] == kinds


def test_sandbox_and_container_states_are_converted():
    sandboxes = [
        pb.PodSandbox(id="s1", metadata=pb.PodSandboxMetadata(name="a", namespace="ns", uid="u1"),
                      state=pb.SANDBOX_READY),
        pb.PodSandbox(id="s2", metadata=pb.PodSandboxMetadata(name="b", namespace="ns", uid="u2"),
                      state=pb.SANDBOX_NOTREADY),
    ]
    containers = [
        pb.Container(id="c1", pod_sandbox_id="s1", state=pb.CONTAINER_CREATED),
        pb.Container(id="c2", pod_sandbox_id="s1", state=pb.CONTAINER_RUNNING),
        pb.Container(id="c3", pod_sandbox_id="s2", state=pb.CONTAINER_EXITED),
        pb.Container(id="c4", pod_sandbox_id="gone", labels={"io.kubernetes.pod.uid": "u9"},
                     state=pb.CONTAINER_UNKNOWN),
        pb.Container(id="c5", pod_sandbox_id="gone2", state=pb.CONTAINER_RUNNING),
    ]
    pods = build_pods(sandboxes, containers)
    assert {uid: {c: r.state for c, r in p.containers.items()} for uid, p in pods.items()} == {
        "u1": {"s1": R, "c1": U, "c2": R},
        "u2": {"s2": X, "c3": X},
        "u9": {"c4": U},
        "sandbox:gone2": {"c5": R},
    }
    assert pods["u1"].sandbox_ids() == ["s1"] and sorted(pods["u1"].container_ids()) == ["c1", "c2"]
    assert pods["u1"].name == "a" and pods["u1"].namespace == "ns"


def test_pod_events_cover_old_and_new_containers():
    old = PodRecord("u", containers={"s": ContainerRecord("s", "p", R, True), "a": ContainerRecord("a", "a", R),
                                     "b": ContainerRecord("b", "b", X)})
    new = PodRecord("u", containers={"s": ContainerRecord("s", "p", R, True), "a": ContainerRecord("a", "a", X),
                                     "c": ContainerRecord("c", "c", R)})
    got = [(e.container_id, e.type) for e in compute_pod_events("u", old, new)]
    assert got == [("a", D), ("b", RM), ("c", S)]
    gone = [(e.container_id, e.type) for e in compute_pod_events("u", new, None)]
    assert gone == [("s", D), ("s", RM), ("a", RM), ("c", D), ("c", RM)]


def test_channel_discards_when_full_and_counts():
    ch = EventChannel(capacity=2)
    sent = [ch.send(PodLifecycleEvent("u", S, f"c{i}")) for i in range(5)]
    assert sent == [True, True, False, False, False]
    assert ch.discarded == 3 and ch.full() and len(ch) == 2
    assert [e.container_id for e in ch.drain()] == ["c0", "c1"]
    assert ch.get(timeout=0) is None and not ch.full()
