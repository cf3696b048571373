"""Details the main RPC tests leave to the core's unit tests, checked again over a real socket:
required metadata, illegal starts, log reopening, bad CIDRs, every Stream* twin message for
message, stats over time, sandbox resources read back, and an image catalog with auth."""
from __future__ import annotations

import json
import os
import time

import grpc
import pytest
from helpers.cri import code_of, container_config, run_pod, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer


@pytest.mark.parametrize("missing", ["name", "namespace", "uid"])
def test_run_pod_sandbox_needs_name_namespace_and_uid(rt, missing):
    cfg = sandbox_config("needs")
    setattr(cfg.metadata, missing, "")
    code, msg = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=cfg))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and missing in msg
    assert rt.ListPodSandbox(pb.ListPodSandboxRequest()).items == []


def test_start_is_legal_only_from_created(rt, img):
    sid, cid = run_pod(rt, img, "once")
    rt.StopContainer(pb.StopContainerRequest(container_id=cid))
    code, msg = code_of(rt.StartContainer, pb.StartContainerRequest(container_id=cid))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and cid[:12] in msg
    assert rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.state == pb.CONTAINER_EXITED
    # A container created in a pod that is then stopped cannot start either.
    cfg = sandbox_config("stopped-pod")
    sid2 = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    cid2 = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid2, config=container_config(),
                                                        sandbox_config=cfg)).container_id
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid2))
    code, _ = code_of(rt.StartContainer, pb.StartContainerRequest(container_id=cid2))
    assert code == grpc.StatusCode.FAILED_PRECONDITION


def test_reopen_container_log_starts_a_new_file_after_rotation(rt, img, tmp_path):
    sid, cid = run_pod(rt, img, "rotate", log_directory=str(tmp_path),
                       annotations={"fakecri.io/log-every": "50ms", "fakecri.io/log": "tick"})
    path = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.log_path

    def wait_for_a_tick() -> None:
        deadline = time.monotonic() + 5
        while "tick" not in open(path).read() and time.monotonic() < deadline:
            time.sleep(0.02)

    wait_for_a_tick()
    os.rename(path, path + ".1")  # what the kubelet's log rotation does before it asks
    rt.ReopenContainerLog(pb.ReopenContainerLogRequest(container_id=cid))
    assert os.path.exists(path)
    wait_for_a_tick()
    lines = open(path).read().splitlines()
    assert lines and all(line.split(" ", 3)[1:3] == ["stdout", "F"] for line in lines), lines
    assert "tick" in open(path + ".1").read()


def test_update_runtime_config_refuses_a_bad_cidr_and_keeps_the_old_one(rt):
    code, msg = code_of(rt.UpdateRuntimeConfig, pb.UpdateRuntimeConfigRequest(
        runtime_config=pb.RuntimeConfig(network_config=pb.NetworkConfig(pod_cidr="10.300.0.0/33"))))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "10.300.0.0/33" in msg
    rt.UpdateRuntimeConfig(pb.UpdateRuntimeConfigRequest(
        runtime_config=pb.RuntimeConfig(network_config=pb.NetworkConfig(pod_cidr="10.99.0.0/24"))))
    code_of(rt.UpdateRuntimeConfig, pb.UpdateRuntimeConfigRequest(
        runtime_config=pb.RuntimeConfig(network_config=pb.NetworkConfig(pod_cidr="not-a-cidr"))))
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("cidr"))).pod_sandbox_id
    ip = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid)).status.network.ip
    assert ip.startswith("10.99.0.")


def test_version_reports_every_field(rt):
    v = rt.Version(pb.VersionRequest(version="0.1.0"))
    assert v.version and v.runtime_name == "fakecri" and v.runtime_version and v.runtime_api_version == "v1"


def _pods(rt, img, n=3):
    ids = [run_pod(rt, img, f"twin{i}") for i in range(n)]
    rt.StopContainer(pb.StopContainerRequest(container_id=ids[0][1]))
    return ids


def test_every_stream_list_sends_what_its_unary_twin_sends(rt, img):
    _pods(rt, img)
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="nginx:1.27")))

    def same(unary, streamed):
        assert sorted(m.SerializeToString() for m in streamed) == sorted(m.SerializeToString() for m in unary)
        assert len(unary) > 0

    same(rt.ListPodSandbox(pb.ListPodSandboxRequest()).items,
         [s for m in rt.StreamPodSandboxes(pb.StreamPodSandboxesRequest()) for s in m.pod_sandboxes])
    same(rt.ListContainers(pb.ListContainersRequest()).containers,
         [c for m in rt.StreamContainers(pb.StreamContainersRequest()) for c in m.containers])
    same(img.ListImages(pb.ListImagesRequest()).images,
         [i for m in img.StreamImages(pb.StreamImagesRequest()) for i in m.images])
    # Stats move with time, so compare what identifies each item and its shape.
    ident = lambda s: (s.attributes.id, s.attributes.metadata.name)
    assert sorted(map(ident, rt.ListContainerStats(pb.ListContainerStatsRequest()).stats)) == sorted(
        ident(s) for m in rt.StreamContainerStats(pb.StreamContainerStatsRequest()) for s in m.container_stats)
    assert sorted(map(ident, rt.ListPodSandboxStats(pb.ListPodSandboxStatsRequest()).stats)) == sorted(
        ident(s) for m in rt.StreamPodSandboxStats(pb.StreamPodSandboxStatsRequest()) for s in m.pod_sandbox_stats)
    names = lambda pm: (pm.pod_sandbox_id, sorted(c.container_id for c in pm.container_metrics))
    assert sorted(map(names, rt.ListPodSandboxMetrics(pb.ListPodSandboxMetricsRequest()).pod_metrics)) == sorted(
        names(p) for m in rt.StreamPodSandboxMetrics(pb.StreamPodSandboxMetricsRequest())
        for p in m.pod_sandbox_metrics)


def test_stats_counters_only_grow_and_memory_stays_under_the_limit(rt, img):
    (sid, cid), *_ = [run_pod(rt, img, f"grow{i}") for i in range(2)]
    samples, pods = [], []
    for _ in range(5):
        samples.append(rt.ContainerStats(pb.ContainerStatsRequest(container_id=cid)).stats)
        pods.append(rt.PodSandboxStats(pb.PodSandboxStatsRequest(pod_sandbox_id=sid)).stats)
        time.sleep(0.03)
    cpu = [s.cpu.usage_core_nano_seconds.value for s in samples]
    stamps = [s.cpu.timestamp for s in samples]
    assert cpu == sorted(cpu) and cpu[-1] > cpu[0]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert all(0 < s.memory.working_set_bytes.value < 64 << 20 for s in samples)
    pod_cpu = [p.linux.cpu.usage_core_nano_seconds.value for p in pods]
    assert pod_cpu == sorted(pod_cpu)
    assert [c.attributes.id for c in pods[-1].linux.containers] == [cid]
    code, msg = code_of(rt.PodSandboxStats, pb.PodSandboxStatsRequest(pod_sandbox_id="5" * 64))
    assert code == grpc.StatusCode.NOT_FOUND and "5" * 12 in msg
    # Filters: by pod, by id, by label; an unknown pod matches nothing.
    listed = rt.ListContainerStats(pb.ListContainerStatsRequest(filter=pb.ContainerStatsFilter(id=cid))).stats
    assert [s.attributes.id for s in listed] == [cid]
    pod_listed = rt.ListPodSandboxStats(pb.ListPodSandboxStatsRequest(
        filter=pb.PodSandboxStatsFilter(label_selector={"io.kubernetes.pod.name": "grow1"}))).stats
    assert [s.attributes.metadata.name for s in pod_listed] == ["grow1"]
    # Pod CPU keeps growing after a container of the pod is removed.
    before = rt.PodSandboxStats(pb.PodSandboxStatsRequest(pod_sandbox_id=sid)).stats.linux.cpu
    rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
    after = rt.PodSandboxStats(pb.PodSandboxStatsRequest(pod_sandbox_id=sid)).stats.linux.cpu
    assert after.usage_core_nano_seconds.value >= before.usage_core_nano_seconds.value


def test_update_pod_sandbox_resources_is_stored_and_reported(rt):
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("podres"))).pod_sandbox_id
    rt.UpdatePodSandboxResources(pb.UpdatePodSandboxResourcesRequest(
        pod_sandbox_id=sid, resources=pb.LinuxContainerResources(cpu_shares=256, memory_limit_in_bytes=128 << 20),
        overhead=pb.LinuxContainerResources(cpu_shares=10)))
    info = json.loads(rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid, verbose=True)).info["info"])
    assert (info["resources"]["cpu_shares"], info["resources"]["memory_limit_in_bytes"]) == (256, 128 << 20)
    assert info["overhead"]["cpu_shares"] == 10
    code_of(rt.UpdatePodSandboxResources, pb.UpdatePodSandboxResourcesRequest(
        pod_sandbox_id=sid, resources=pb.LinuxContainerResources(cpu_shares=-1)))
    again = json.loads(rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid, verbose=True)).info["info"])
    assert again == info, "a refused update changed the sandbox"


CATALOG = """\
allow_unknown: false
images:
  - tags: [busybox:latest, busybox:1.36]
    size: 4261550
  - tags: [registry.example.com/team/private:1]
unknown: [docker.io/library/gone]
auth:
  - references: ["registry.example.com/*"]
    username: alice
    password: s3cret
"""


def test_image_catalog_over_the_wire(tmp_path):
    path = tmp_path / "catalog.yaml"
    path.write_text(CATALOG)
    with FakeCRIServer(image_catalog=str(path)) as server:
        ch = grpc.insecure_channel(server.endpoint)
        img = api_pb2_grpc.ImageServiceStub(ch)

        def pull(ref, **auth):
            return img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=ref),
                                                     auth=pb.AuthConfig(**auth) if auth else None), timeout=10)

        pull("busybox:1.36")
        pull("busybox")
        latest = img.ImageStatus(pb.ImageStatusRequest(image=pb.ImageSpec(image="busybox:latest"))).image
        assert latest.size == 4261550
        assert sorted(latest.repo_tags) == ["docker.io/library/busybox:1.36", "docker.io/library/busybox:latest"]
        assert len(img.ListImages(pb.ListImagesRequest()).images) == 1, "two tags of one image share one id"
        for ref in ("gone", "docker.io/library/never-heard-of-it"):
            code, msg = code_of(lambda r: pull(r), ref)
            assert code == grpc.StatusCode.NOT_FOUND and ref.split("/")[-1] in msg
        private = "registry.example.com/team/private:1"
        for auth in ({}, {"username": "alice", "password": "wrong"}):
            code, msg = code_of(lambda r, auth=auth: pull(r, **auth), private)
            assert code == grpc.StatusCode.UNAUTHENTICATED and "registry.example.com" in msg
        assert not img.ImageStatus(pb.ImageStatusRequest(image=pb.ImageSpec(image=private))).HasField("image")
        pull(private, username="alice", password="s3cret")
        assert img.ImageStatus(pb.ImageStatusRequest(image=pb.ImageSpec(image=private))).image.id
        ch.close()
        server.check()
