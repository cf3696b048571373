"""Limits: configurable caps answered with RESOURCE_EXHAUSTED, and message size limits.

Caps: max_sandboxes, max_containers, max_images, max_subscribers (default 64).
Sizes: requests and responses up to `max_message_bytes` (16 MiB by default) on both the
CRI socket and the control socket; past it gRPC itself refuses with RESOURCE_EXHAUSTED.
"""
from __future__ import annotations

import grpc
import pytest
from helpers.reliability import Subscriber, add, check_invariants, container_config, sandbox_config, wait_until

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.config import ServerConfig
from fakecri.server.process.app import FakeCRIServer

BIG = [("grpc.max_send_message_length", 64 << 20), ("grpc.max_receive_message_length", 64 << 20)]


def _code(fn, *args, **kw) -> grpc.StatusCode:
    try:
        fn(*args, **kw)
        return grpc.StatusCode.OK
    except grpc.RpcError as exc:
        return exc.code()


@pytest.fixture(scope="module")
def capped():
    with FakeCRIServer(seed=21, max_sandboxes=3, max_containers=4, max_images=2, max_subscribers=2) as server:
        yield server


@pytest.fixture
def stubs(capped):
    capped.reset()
    ch = grpc.insecure_channel(capped.endpoint, options=BIG)
    yield api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
    ch.close()
    capped.check()


def test_sandbox_cap(stubs):
    rt, _ = stubs
    ids = [rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config(f"s{i}")), timeout=10).pod_sandbox_id
           for i in range(3)]
    for _ in range(3):
        with pytest.raises(grpc.RpcError) as err:
            rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("over")), timeout=10)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "limit" in err.value.details()
    assert len(rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=10).items) == 3
    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=ids[0]), timeout=10)
    rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("room-again")), timeout=10)
    check_invariants(rt)
    add("limits: caps hit")


def test_container_cap(stubs):
    rt, img = stubs
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=10)
    cfg = sandbox_config("p")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=10).pod_sandbox_id

    def create(name):
        return rt.CreateContainer(pb.CreateContainerRequest(
            pod_sandbox_id=sid, config=container_config(name), sandbox_config=cfg), timeout=10).container_id

    cids = [create(f"c{i}") for i in range(4)]
    assert _code(create, "over") == grpc.StatusCode.RESOURCE_EXHAUSTED
    rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cids[0]), timeout=10)
    create("room-again")
    check_invariants(rt)
    add("limits: caps hit")


def test_image_cap(stubs):
    _, img = stubs
    for ref in ("busybox", "nginx:latest"):
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=ref)), timeout=30)
    code = _code(img.PullImage, pb.PullImageRequest(image=pb.ImageSpec(image="registry.k8s.io/pause:3.9")), timeout=30)
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    # Pulling an image already held is not a new image.
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=30)
    assert len(img.ListImages(pb.ListImagesRequest(), timeout=10).images) == 2
    img.RemoveImage(pb.RemoveImageRequest(image=pb.ImageSpec(image="busybox")), timeout=10)
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="registry.k8s.io/pause:3.9")), timeout=30)
    add("limits: caps hit")


def test_subscriber_cap(capped, stubs):
    subs = [Subscriber(capped.endpoint) for _ in range(2)]
    try:
        assert wait_until(lambda: capped.call(lambda: len(capped.node.bus.subscribers)) == 2)
        third = Subscriber(capped.endpoint)
        assert third.ended.wait(10)
        assert third.error is not None and third.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        third.close()
        subs[0].close()
        assert wait_until(lambda: capped.call(lambda: len(capped.node.bus.subscribers)) == 1)
        again = Subscriber(capped.endpoint)
        subs.append(again)
        assert wait_until(lambda: capped.call(lambda: len(capped.node.bus.subscribers)) == 2)
        assert again.error is None
        add("limits: caps hit")
    finally:
        for s in subs:
            s.close()


def test_default_limits_are_documented_values():
    cfg = ServerConfig()
    assert cfg.max_message_bytes == 16 * 1024 * 1024
    assert cfg.max_subscribers == 64
    assert cfg.subscriber_buffer == 1000 and cfg.subscriber_policy == "close"


def test_oversize_request_is_refused_not_a_crash():
    """A request past the limit is refused by gRPC with RESOURCE_EXHAUSTED; the server goes on."""
    with FakeCRIServer(seed=22) as server:  # the default 16 MiB
        ch = grpc.insecure_channel(server.endpoint, options=BIG)
        rt = api_pb2_grpc.RuntimeServiceStub(ch)
        cfg = sandbox_config("huge")
        cfg.annotations["blob"] = "x" * (17 << 20)
        with pytest.raises(grpc.RpcError) as err:
            rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=60)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        # Just under the limit is fine.
        cfg.annotations["blob"] = "x" * (15 << 20)
        rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=60)
        assert rt.Version(pb.VersionRequest(), timeout=10).runtime_name == "fakecri"
        server.check()
        ch.close()


def test_oversize_response_is_refused_and_the_server_goes_on():
    """max_message_bytes also caps responses: a list too big to send fails, nothing else does."""
    with FakeCRIServer(seed=23, max_message_bytes=256 << 10) as server:
        ch = grpc.insecure_channel(server.endpoint, options=BIG)
        rt = api_pb2_grpc.RuntimeServiceStub(ch)
        for i in range(6):
            cfg = sandbox_config(f"s{i}")
            cfg.labels["blob"] = "y" * (60 << 10)  # each request fits; six sandboxes do not
            rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=30)
        with pytest.raises(grpc.RpcError) as err:
            rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=30)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "StreamPodSandboxes" in err.value.details() or "Stream*" in err.value.details()
        streamed = [s for m in rt.StreamPodSandboxes(pb.StreamPodSandboxesRequest(), timeout=30)
                    for s in m.pod_sandboxes]
        assert len(streamed) == 6, "the Stream* twin carries what the unary list cannot"
        # A narrower list still works, and so does the server.
        one = rt.ListPodSandbox(pb.ListPodSandboxRequest(
            filter=pb.PodSandboxFilter(label_selector={"io.kubernetes.pod.name": "s1"})), timeout=30)
        assert len(one.items) == 1
        # And a request over this server's limit is refused the same way.
        cfg = sandbox_config("too-big")
        cfg.annotations["blob"] = "z" * (300 << 10)
        assert _code(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=cfg), timeout=30) == \
            grpc.StatusCode.RESOURCE_EXHAUSTED
        server.check()
        ch.close()
