"""Every RuntimeService RPC over a real unix socket, with the error cases CRI users rely on."""
from __future__ import annotations

import json
import os
import time

import grpc
from helpers.cri import EventCollector, code_of, container_config, kinds, run_pod, sandbox_config, wait_subscribers

from fakecri.api.runtime.v1 import api_pb2 as pb

# ------------------------------------------------------------ runtime info


def test_version_status_and_runtime_config(rt):
    v = rt.Version(pb.VersionRequest(version="v1"))
    assert (v.runtime_name, v.runtime_api_version) == ("fakecri", "v1")
    assert v.runtime_version
    st = rt.Status(pb.StatusRequest(verbose=True))
    conds = {c.type: c.status for c in st.status.conditions}
    assert conds == {"RuntimeReady": True, "NetworkReady": True}
    assert "runc" in [h.name for h in st.runtime_handlers]
    assert st.features.supplemental_groups_policy
    assert json.loads(st.info["config"])["cgroup_driver"] == "systemd"
    assert rt.RuntimeConfig(pb.RuntimeConfigRequest()).linux.cgroup_driver == pb.SYSTEMD


def test_kubelet_call_sequence_for_one_pod(rt, img):
    """The calls a kubelet makes to bring a pod up and down, in its order."""
    rt.Version(pb.VersionRequest())
    rt.Status(pb.StatusRequest())
    fs = img.ImageFsInfo(pb.ImageFsInfoRequest())
    assert fs.image_filesystems[0].timestamp > 0
    rt.RuntimeConfig(pb.RuntimeConfigRequest())
    rt.UpdateRuntimeConfig(pb.UpdateRuntimeConfigRequest(
        runtime_config=pb.RuntimeConfig(network_config=pb.NetworkConfig(pod_cidr="10.244.1.0/24"))))
    ref = img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="nginx:1.27"))).image_ref
    assert ref
    status = img.ImageStatus(pb.ImageStatusRequest(image=pb.ImageSpec(image="nginx:1.27")))
    assert status.image.id.startswith("sha256:") and status.image.size > 0
    cfg = sandbox_config("web")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    assert len(sid) == 64 and all(c in "0123456789abcdef" for c in sid)
    sst = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid))
    assert sst.status.state == pb.SANDBOX_READY
    assert sst.status.network.ip.startswith("10.244.1.")
    cid = rt.CreateContainer(pb.CreateContainerRequest(
        pod_sandbox_id=sid, config=container_config("nginx", "nginx:1.27"), sandbox_config=cfg)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    cst = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert cst.state == pb.CONTAINER_RUNNING and cst.started_at >= cst.created_at > 0
    assert cst.image_id == status.image.id and cst.image_ref
    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=30))
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid))
    rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
    assert list(rt.ListPodSandbox(pb.ListPodSandboxRequest()).items) == []


# ------------------------------------------------------------ sandboxes


def test_run_pod_sandbox_validates_and_rejects_duplicates(rt):
    bad = sandbox_config()
    bad.metadata.uid = ""
    code, msg = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=bad))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "uid" in msg
    cfg = sandbox_config("dup")
    rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg))
    code, msg = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=cfg))
    assert code == grpc.StatusCode.ALREADY_EXISTS and "dup" in msg
    code, msg = code_of(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=sandbox_config(), runtime_handler="kata"))
    assert code == grpc.StatusCode.NOT_FOUND and "kata" in msg


def test_sandbox_keeps_what_it_was_given_and_verbose_info(rt):
    cfg = sandbox_config("keep", labels={"tier": "web"}, log_directory="/tmp/fc-logs/keep")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    resp = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid, verbose=True))
    st = resp.status
    assert st.labels["tier"] == "web" and st.annotations["kubernetes.io/config.source"] == "api"
    assert st.metadata.name == "keep" and st.created_at > 0
    assert json.loads(resp.info["info"])["hostname"] == "keep"
    assert resp.timestamp > 0  # set together with containers_statuses (empty here)


def test_stop_and_remove_sandbox_act_on_containers_and_are_idempotent(rt, img):
    sid, cid = run_pod(rt, img, "stopper")
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid))
    assert rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.state == pb.CONTAINER_EXITED
    assert rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid)).status.state == pb.SANDBOX_NOTREADY
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid))
    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
    code, _ = code_of(rt.ContainerStatus, pb.ContainerStatusRequest(container_id=cid))
    assert code == grpc.StatusCode.NOT_FOUND
    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id="f" * 64))
    code, msg = code_of(rt.PodSandboxStatus, pb.PodSandboxStatusRequest(pod_sandbox_id="e" * 64))
    assert code == grpc.StatusCode.NOT_FOUND and "eeee" in msg


def test_remove_sandbox_removes_running_containers(rt, img):
    sid, cid = run_pod(rt, img, "remover")
    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
    assert list(rt.ListContainers(pb.ListContainersRequest()).containers) == []


def test_list_pod_sandbox_filters(rt):
    a = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("a", labels={"app": "x"}))).pod_sandbox_id
    b = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("b", labels={"app": "y"}))).pod_sandbox_id
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=b))

    def ids(**f):
        return {s.id for s in rt.ListPodSandbox(pb.ListPodSandboxRequest(filter=pb.PodSandboxFilter(**f))).items}

    assert ids() == {a, b}
    assert ids(id=a) == {a}
    assert ids(id=a[:10]) == {a}
    assert ids(state=pb.PodSandboxStateValue(state=pb.SANDBOX_NOTREADY)) == {b}
    assert ids(label_selector={"app": "x"}) == {a}
    assert ids(label_selector={"app": "x"}, state=pb.PodSandboxStateValue(state=pb.SANDBOX_NOTREADY)) == set()


# ------------------------------------------------------------ containers


def test_create_container_preconditions(rt, img):
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    cfg = sandbox_config("pre")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    code, msg = code_of(rt.CreateContainer, pb.CreateContainerRequest(
        pod_sandbox_id=sid, config=container_config(image="not-pulled:1")))
    assert code == grpc.StatusCode.NOT_FOUND and "not-pulled" in msg
    rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=container_config("c")))
    code, msg = code_of(rt.CreateContainer, pb.CreateContainerRequest(pod_sandbox_id=sid,
                                                                      config=container_config("c")))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid))
    code, msg = code_of(rt.CreateContainer, pb.CreateContainerRequest(pod_sandbox_id=sid,
                                                                      config=container_config("d")))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    code, _ = code_of(rt.CreateContainer, pb.CreateContainerRequest(pod_sandbox_id="0" * 64,
                                                                    config=container_config("e")))
    assert code == grpc.StatusCode.NOT_FOUND


def test_container_transitions_and_idempotence(rt, img):
    sid, cid = run_pod(rt, img, "trans")
    code, msg = code_of(rt.StartContainer, pb.StartContainerRequest(container_id=cid))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and cid[:12] in msg
    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
    st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid, verbose=True))
    assert st.status.state == pb.CONTAINER_EXITED and st.status.finished_at >= st.status.started_at
    assert json.loads(st.info["info"])["id"] == cid
    rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
    rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
    rt.StopContainer(pb.StopContainerRequest(container_id=cid))
    code, _ = code_of(rt.ContainerStatus, pb.ContainerStatusRequest(container_id=cid))
    assert code == grpc.StatusCode.NOT_FOUND


def test_container_status_fields_and_log_file(rt, img, tmp_path):
    logdir = str(tmp_path / "pods" / "logpod")
    sid, cid = run_pod(rt, img, "logpod", command=["sh", "-c", "echo hello from fakecri; sleep 3600"],
                       log_directory=logdir)
    st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert st.log_path == os.path.join(logdir, "app/0.log")
    assert st.labels["io.kubernetes.container.name"] == "app"
    assert st.resources.linux.memory_limit_in_bytes == 64 << 20
    lines = open(st.log_path).read().splitlines()
    assert lines, "the container wrote no log"
    ts, stream, tag, text = lines[0].split(" ", 3)
    assert stream in ("stdout", "stderr") and tag == "F" and ts.endswith("Z")
    assert any("hello from fakecri" in line for line in lines)
    rt.ReopenContainerLog(pb.ReopenContainerLogRequest(container_id=cid))
    assert os.path.exists(st.log_path)
    rt.StopContainer(pb.StopContainerRequest(container_id=cid))
    code, _ = code_of(rt.ReopenContainerLog, pb.ReopenContainerLogRequest(container_id=cid))
    assert code == grpc.StatusCode.FAILED_PRECONDITION


def test_list_containers_filters_and_stream_twin(rt, img):
    sid1, c1 = run_pod(rt, img, "one")
    sid2, c2 = run_pod(rt, img, "two")
    rt.StopContainer(pb.StopContainerRequest(container_id=c2))

    def ids(**f):
        return {c.id for c in rt.ListContainers(pb.ListContainersRequest(filter=pb.ContainerFilter(**f))).containers}

    assert ids() == {c1, c2}
    assert ids(id=c1) == {c1}
    assert ids(pod_sandbox_id=sid2) == {c2}
    assert ids(state=pb.ContainerStateValue(state=pb.CONTAINER_RUNNING)) == {c1}
    assert ids(label_selector={"io.kubernetes.container.name": "app"}) == {c1, c2}
    assert ids(label_selector={"io.kubernetes.container.name": "nope"}) == set()
    assert ids(pod_sandbox_id=sid1, state=pb.ContainerStateValue(state=pb.CONTAINER_EXITED)) == set()
    unary = rt.ListContainers(pb.ListContainersRequest()).containers
    streamed = [c for msg in rt.StreamContainers(pb.StreamContainersRequest()) for c in msg.containers]
    assert sorted(c.SerializeToString() for c in streamed) == sorted(c.SerializeToString() for c in unary)
    sb_unary = rt.ListPodSandbox(pb.ListPodSandboxRequest()).items
    sb_streamed = [s for msg in rt.StreamPodSandboxes(pb.StreamPodSandboxesRequest()) for s in msg.pod_sandboxes]
    assert sorted(s.id for s in sb_streamed) == sorted(s.id for s in sb_unary)


def test_update_container_resources_sticks_and_is_all_or_nothing(rt, img):
    sid, cid = run_pod(rt, img, "resize")
    new = pb.LinuxContainerResources(cpu_shares=512, cpu_quota=50000, cpu_period=100000,
                                     memory_limit_in_bytes=256 << 20)
    rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(container_id=cid, linux=new))
    got = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.resources.linux
    assert (got.cpu_shares, got.cpu_quota, got.memory_limit_in_bytes) == (512, 50000, 256 << 20)
    bad = pb.LinuxContainerResources(cpu_shares=1024, memory_limit_in_bytes=-5)
    code, msg = code_of(rt.UpdateContainerResources,
                        pb.UpdateContainerResourcesRequest(container_id=cid, linux=bad))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    got = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.resources.linux
    assert got.cpu_shares == 512, "a failed update changed something"
    code, _ = code_of(rt.UpdateContainerResources,
                      pb.UpdateContainerResourcesRequest(container_id="a" * 64, linux=new))
    assert code == grpc.StatusCode.NOT_FOUND


def test_update_pod_sandbox_resources(rt):
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("podres"))).pod_sandbox_id
    rt.UpdatePodSandboxResources(pb.UpdatePodSandboxResourcesRequest(
        pod_sandbox_id=sid, resources=pb.LinuxContainerResources(cpu_shares=256)))
    code, _ = code_of(rt.UpdatePodSandboxResources, pb.UpdatePodSandboxResourcesRequest(
        pod_sandbox_id=sid, resources=pb.LinuxContainerResources(cpu_shares=-1)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    code, _ = code_of(rt.UpdatePodSandboxResources, pb.UpdatePodSandboxResourcesRequest(pod_sandbox_id="1" * 64))
    assert code == grpc.StatusCode.NOT_FOUND


def test_exec_sync(rt, img):
    sid, cid = run_pod(rt, img, "execer")
    out = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["echo", "hi"], timeout=5))
    assert (out.stdout, out.exit_code) == (b"hi\n", 0)
    out = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["sh", "-c", "exit 3"]))
    assert out.exit_code == 3
    assert rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["false"])).exit_code == 1
    code, _ = code_of(rt.ExecSync, pb.ExecSyncRequest(container_id=cid, cmd=["sleep", "5"], timeout=1))
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED
    rt.StopContainer(pb.StopContainerRequest(container_id=cid))
    code, msg = code_of(rt.ExecSync, pb.ExecSyncRequest(container_id=cid, cmd=["true"]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and cid[:12] in msg


def test_stats_rpcs(rt, img):
    sid, cid = run_pod(rt, img, "stats")
    s1 = rt.ContainerStats(pb.ContainerStatsRequest(container_id=cid)).stats
    time.sleep(0.05)
    s2 = rt.ContainerStats(pb.ContainerStatsRequest(container_id=cid)).stats
    assert s1.attributes.id == cid and s1.cpu.timestamp > 0
    assert s2.cpu.usage_core_nano_seconds.value >= s1.cpu.usage_core_nano_seconds.value
    assert s2.memory.working_set_bytes.value < 64 << 20
    listed = rt.ListContainerStats(pb.ListContainerStatsRequest(filter=pb.ContainerStatsFilter(pod_sandbox_id=sid)))
    assert [s.attributes.id for s in listed.stats] == [cid]
    assert rt.ListContainerStats(pb.ListContainerStatsRequest(
        filter=pb.ContainerStatsFilter(pod_sandbox_id="9" * 64))).stats == []
    streamed = [s for m in rt.StreamContainerStats(pb.StreamContainerStatsRequest()) for s in m.container_stats]
    assert [s.attributes.id for s in streamed] == [cid]
    ps = rt.PodSandboxStats(pb.PodSandboxStatsRequest(pod_sandbox_id=sid)).stats
    assert ps.attributes.id == sid and ps.linux.cpu.timestamp > 0
    assert [s.attributes.id for s in rt.ListPodSandboxStats(pb.ListPodSandboxStatsRequest()).stats] == [sid]
    assert [s.attributes.id for m in rt.StreamPodSandboxStats(pb.StreamPodSandboxStatsRequest())
            for s in m.pod_sandbox_stats] == [sid]
    descs = rt.ListMetricDescriptors(pb.ListMetricDescriptorsRequest()).descriptors
    assert descs and all(d.name and d.help for d in descs)
    metrics = rt.ListPodSandboxMetrics(pb.ListPodSandboxMetricsRequest()).pod_metrics
    assert [m.pod_sandbox_id for m in metrics] == [sid]
    assert [m.pod_sandbox_id for r in rt.StreamPodSandboxMetrics(pb.StreamPodSandboxMetricsRequest())
            for m in r.pod_sandbox_metrics] == [sid]
    code, _ = code_of(rt.ContainerStats, pb.ContainerStatsRequest(container_id="3" * 64))
    assert code == grpc.StatusCode.NOT_FOUND


def test_checkpoint_and_restore(rt, img, tmp_path):
    sid, cid = run_pod(rt, img, "ckpt")
    archive = str(tmp_path / "c.tar")
    rt.CheckpointContainer(pb.CheckpointContainerRequest(container_id=cid, location=archive))
    assert os.path.getsize(archive) > 0
    pod_archive = str(tmp_path / "pod.tar")
    rt.CheckpointPod(pb.CheckpointPodRequest(pod_sandbox_id=sid, output_path=pod_archive))
    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
    restored = rt.RestorePod(pb.RestorePodRequest(checkpoint_path=pod_archive))
    assert restored.pod_sandbox_id and [c.name for c in restored.restored_containers] == ["app"]
    st = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=restored.pod_sandbox_id)).status
    assert st.metadata.name == "ckpt"
    code, _ = code_of(rt.RestorePod, pb.RestorePodRequest(checkpoint_path=str(tmp_path / "missing.tar")))
    assert code == grpc.StatusCode.NOT_FOUND
    code, _ = code_of(rt.CheckpointContainer, pb.CheckpointContainerRequest(container_id="4" * 64,
                                                                            location=archive))
    assert code == grpc.StatusCode.NOT_FOUND


# ------------------------------------------------------------ events


def test_full_lifecycle_event_order_seen_by_two_subscribers(srv, rt, img):
    target = "unix:" + srv.config.socket
    subs = [EventCollector(target), EventCollector(target)]
    try:
        wait_subscribers(srv, 2)
        sid, cid = run_pod(rt, img, "events")
        rt.StopContainer(pb.StopContainerRequest(container_id=cid))
        rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
        rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid))
        rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
        seqs = [s.wait_for(8) for s in subs]
    finally:
        for s in subs:
            s.close()
    s, c = sid[:8], cid[:8]
    expected = [("CONTAINER_CREATED_EVENT", s), ("CONTAINER_STARTED_EVENT", s), ("CONTAINER_CREATED_EVENT", c),
                ("CONTAINER_STARTED_EVENT", c), ("CONTAINER_STOPPED_EVENT", c), ("CONTAINER_DELETED_EVENT", c),
                ("CONTAINER_STOPPED_EVENT", s), ("CONTAINER_DELETED_EVENT", s)]
    assert kinds(seqs[0]) == expected
    assert [e.SerializeToString() for e in seqs[0]] == [e.SerializeToString() for e in seqs[1]]
    events = seqs[0]
    assert all(e.pod_sandbox_status.metadata.uid for e in events)
    assert [e.created_at for e in events] == sorted(e.created_at for e in events)
    assert events[0].created_at > 10**18  # nanoseconds
    # The status snapshot agrees with the event type.
    assert [cs.state for cs in events[3].containers_statuses] == [pb.CONTAINER_RUNNING]
    assert [cs.state for cs in events[4].containers_statuses] == [pb.CONTAINER_EXITED]
    assert list(events[5].containers_statuses) == []
    assert events[6].pod_sandbox_status.state == pb.SANDBOX_NOTREADY


def test_instant_exit_keeps_started_before_stopped(srv, rt, img):
    sub = EventCollector("unix:" + srv.config.socket)
    try:
        wait_subscribers(srv, 1)
        sid, cid = run_pod(rt, img, "instant", command=["sh", "-c", "exit 3"])
        events = sub.wait_for(5)
    finally:
        sub.close()
    mine = [k for k, c in kinds(events) if c == cid[:8]]
    assert mine == ["CONTAINER_CREATED_EVENT", "CONTAINER_STARTED_EVENT", "CONTAINER_STOPPED_EVENT"]
    st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert (st.state, st.exit_code) == (pb.CONTAINER_EXITED, 3)


def test_exec_attach_portforward_answer_with_single_use_urls(rt, img):
    sid, cid = run_pod(rt, img, "streams")
    urls = [call(req).url for call, req in (
        (rt.Exec, pb.ExecRequest(container_id=cid, cmd=["echo", "hi"], stdout=True)),
        (rt.Attach, pb.AttachRequest(container_id=cid, stdout=True)),
        (rt.PortForward, pb.PortForwardRequest(pod_sandbox_id=sid, port=[80])))]
    assert all(u.startswith("http://127.0.0.1:") for u in urls), urls
    assert len(set(urls)) == 3, "each call gets its own token"
    code, msg = code_of(rt.PortForward, pb.PortForwardRequest(pod_sandbox_id="7" * 64, port=[80]))
    assert code == grpc.StatusCode.NOT_FOUND and "7" * 12 in msg
