"""Stats answers at scale: Stream* batches stay under the client's 16 MiB in bytes (not in
items), the unary twin that cannot fit names the Stream* call to use, and one big answer
does not hold every other call behind it."""
from __future__ import annotations

import threading

import grpc
import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer

KUBELET = [("grpc.max_receive_message_length", 16 << 20), ("grpc.max_send_message_length", 16 << 20)]
IMAGE = "registry.k8s.io/pause:3.9"


def _fill(server: FakeCRIServer, pods: int, per_pod: int, label_bytes: int = 0) -> None:
    """`pods` pods of `per_pod` running containers, made on the server's loop (the engine's own
    calls, then the node's commit, as the RPCs do)."""
    node = server.node

    def fill() -> None:
        rt = node.runtime
        rt.images.pull(IMAGE, None)
        with node.changing():
            for i in range(pods):
                sb = rt.run_pod_sandbox(name=f"p{i}", namespace="big", uid=f"u{i}")
                for j in range(per_pod):
                    labels = {"io.kubernetes.container.name": f"c{j}"}
                    if label_bytes:
                        labels["blob"] = "x" * label_bytes
                    c = rt.create_container(sb.id, name=f"c{j}", image=IMAGE, command=("sleep", "infinity"),
                                            labels=labels)
                    rt.start_container(c.id)

    server.call(fill, timeout=120)


@pytest.fixture(scope="module")
def heavy():
    """100 pods x 10 containers with 20 KiB labels: about 20 MB of stats, over the 16 MiB limit."""
    with FakeCRIServer(seed=5) as server:
        _fill(server, 100, 10, label_bytes=20 << 10)
        ch = grpc.insecure_channel(server.endpoint, options=KUBELET)
        yield server, api_pb2_grpc.RuntimeServiceStub(ch)
        ch.close()
        server.check()


def test_stream_container_stats_batches_by_bytes(heavy):
    _, rt = heavy
    messages = list(rt.StreamContainerStats(pb.StreamContainerStatsRequest(), timeout=120))
    assert len(messages) > 1
    assert all(m.ByteSize() <= 16 << 20 for m in messages)
    ids = [s.attributes.id for m in messages for s in m.container_stats]
    assert len(ids) == len(set(ids)) == 1000


def test_stream_pod_sandbox_stats_batches_by_bytes(heavy):
    _, rt = heavy
    messages = list(rt.StreamPodSandboxStats(pb.StreamPodSandboxStatsRequest(), timeout=120))
    assert len(messages) > 1
    assert all(m.ByteSize() <= 16 << 20 for m in messages)
    pods = [s for m in messages for s in m.pod_sandbox_stats]
    assert len(pods) == 100 and all(len(p.linux.containers) == 10 for p in pods)


@pytest.mark.parametrize("method, request_type, twin", [
    ("ListContainerStats", pb.ListContainerStatsRequest, "StreamContainerStats"),
    ("ListPodSandboxStats", pb.ListPodSandboxStatsRequest, "StreamPodSandboxStats"),
])
def test_unary_stats_over_the_limit_name_their_stream_twin(heavy, method, request_type, twin):
    server, rt = heavy
    with pytest.raises(grpc.RpcError) as err:
        getattr(rt, method)(request_type(), timeout=120)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert twin in err.value.details()
    assert rt.Version(pb.VersionRequest(), timeout=10).runtime_name == "fakecri"


def test_stream_pod_sandbox_metrics_batches_by_bytes():
    """Metrics have no labels to grow; a small message limit makes the same point."""
    limit = 64 << 10
    with FakeCRIServer(seed=6, max_message_bytes=limit) as server:
        _fill(server, 60, 3)
        ch = grpc.insecure_channel(server.endpoint)
        rt = api_pb2_grpc.RuntimeServiceStub(ch)
        try:
            messages = list(rt.StreamPodSandboxMetrics(pb.StreamPodSandboxMetricsRequest(), timeout=60))
            assert len(messages) > 1 and all(m.ByteSize() <= limit for m in messages)
            assert len({p.pod_sandbox_id for m in messages for p in m.pod_sandbox_metrics}) == 60
            with pytest.raises(grpc.RpcError) as err:
                rt.ListPodSandboxMetrics(pb.ListPodSandboxMetricsRequest(), timeout=60)
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "StreamPodSandboxMetrics" in err.value.details()
            with pytest.raises(grpc.RpcError) as err:
                rt.ListContainers(pb.ListContainersRequest(), timeout=60)
            assert "StreamContainers" in err.value.details()
            server.check()
        finally:
            ch.close()


# ---------------------------------------------------------------- one big answer, other calls


@pytest.fixture(scope="module")
def many():
    """5,000 running containers on a fake clock (so two answers at one instant must be equal)."""
    with FakeCRIServer(seed=8, fake_clock=True) as server:
        _fill(server, 500, 10)
        yield server
        server.check()


@pytest.fixture(scope="module")
def many_live():
    """5,000 running containers on the system clock (the call log's times are then real)."""
    with FakeCRIServer(seed=9) as server:
        _fill(server, 500, 10)
        yield server
        server.check()


@pytest.mark.parametrize("method, request_type", [
    ("ListContainerStats", pb.ListContainerStatsRequest),
    ("ListPodSandboxStats", pb.ListPodSandboxStatsRequest),
    ("StreamContainerStats", pb.StreamContainerStatsRequest),
])
def test_versions_are_answered_while_a_big_stats_call_is_computed(many_live, method, request_type):
    """Version calls, one after another, while one big stats call runs: the server's own call
    log must show some of them finished inside the big call's span (start to its last answer).
    Held for the whole computation, the loop could finish none there."""
    server = many_live
    ch = grpc.insecure_channel(server.endpoint, options=[("grpc.max_receive_message_length", 64 << 20)])
    rt = api_pb2_grpc.RuntimeServiceStub(ch)
    try:
        server.call(server.node.call_log.clear)
        call = getattr(rt, method)
        if method.startswith("Stream"):
            big = call(request_type(), timeout=300)
            done = threading.Event()
            threading.Thread(target=lambda: (list(big), done.set()), daemon=True).start()
            finished = done.is_set
        else:
            big = call.future(request_type(), timeout=300)
            finished = big.done
        while not finished():
            rt.Version(pb.VersionRequest(), timeout=300)
        log = server.call(lambda: list(server.node.call_log))
        [record] = [r for r in log if r.method == method]
        start = record.at_ns - record.duration_s * 1e9
        inside = [r for r in log if r.method == "Version" and start < r.at_ns < record.at_ns]
        assert len(inside) >= 3, f"{method}: {len(inside)} Version calls finished while it was computed"
    finally:
        ch.close()


def test_the_sliced_answer_is_the_whole_answer_at_one_instant(many):
    ch = grpc.insecure_channel(many.endpoint, options=[("grpc.max_receive_message_length", 64 << 20)])
    rt = api_pb2_grpc.RuntimeServiceStub(ch)
    try:
        stats = rt.ListContainerStats(pb.ListContainerStatsRequest(), timeout=300).stats
        assert len(stats) == 5000 and len({s.attributes.id for s in stats}) == 5000
        streamed = [s for m in rt.StreamContainerStats(pb.StreamContainerStatsRequest(), timeout=300)
                    for s in m.container_stats]
        assert streamed == list(stats)  # the clock stood still: the same figures, in the same order
        one = stats[1234]
        alone = rt.ContainerStats(pb.ContainerStatsRequest(container_id=one.attributes.id), timeout=30).stats
        assert alone == one
        pods = rt.ListPodSandboxStats(pb.ListPodSandboxStatsRequest(), timeout=300).stats
        assert len(pods) == 500
        by_id = {p.attributes.id: p for p in pods}
        some = next(iter(by_id))
        assert rt.PodSandboxStats(pb.PodSandboxStatsRequest(pod_sandbox_id=some), timeout=30).stats == by_id[some]
        metrics = rt.ListPodSandboxMetrics(pb.ListPodSandboxMetricsRequest(), timeout=300).pod_metrics
        assert len(metrics) == 500
    finally:
        ch.close()


def test_a_container_removed_during_the_call_is_answered_as_it_was(many):
    """The answer is the records as they were when the call began, whatever happens meanwhile."""
    ch = grpc.insecure_channel(many.endpoint, options=[("grpc.max_receive_message_length", 64 << 20)])
    rt = api_pb2_grpc.RuntimeServiceStub(ch)
    try:
        before = {s.attributes.id for s in rt.ListContainerStats(pb.ListContainerStatsRequest(), timeout=300).stats}
        victim = sorted(before)[0]
        big = rt.ListContainerStats.future(pb.ListContainerStatsRequest(), timeout=300)
        removed = threading.Event()

        def remove() -> None:
            rt.RemoveContainer(pb.RemoveContainerRequest(container_id=victim), timeout=60)
            removed.set()

        t = threading.Thread(target=remove)
        t.start()
        got = {s.attributes.id for s in big.result().stats}
        t.join(60)
        assert removed.is_set()
        assert got in (before, before - {victim})  # all as at the start, or all after: never torn
    finally:
        ch.close()
