"""What an exec (or a hook, which the kubelet runs as an ExecSync) writes to /proc/1/fd/1 or 2 is
PID 1's output: the container's log, when PID 1 is the container's own command (a pid namespace of
its own, as the kubelet asks); with the pod's shared one PID 1 is the pause process, whose output
goes nowhere. The node e2e lifecycle specs log their hooks so."""
from __future__ import annotations

import time

from helpers.cri import container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb


def _container(rt, img, tmp_path, pid_mode):
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    cfg = sandbox_config(f"pid1-{pid_mode}", log_directory=str(tmp_path / f"logs{pid_mode}"))
    cfg.linux.security_context.namespace_options.pid = pid_mode
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ctr = container_config(command=["sh", "-c", "echo main; sleep 3600"])
    ctr.linux.security_context.namespace_options.pid = pid_mode
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ctr, sandbox_config=cfg)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    return cid


def _log(rt, cid):
    path = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.log_path
    return [line.split(" ", 3)[1:] for line in open(path).read().splitlines()]


def test_an_exec_writing_to_pid1_writes_the_containers_log(rt, img, tmp_path):
    cid = _container(rt, img, tmp_path, pb.CONTAINER)
    r = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, timeout=10, cmd=[
        "sh", "-c", "echo hook | tee -a /tmp/h.log >> /proc/1/fd/1; echo oops >/proc/1/fd/2; echo own"]))
    assert (r.exit_code, r.stdout, r.stderr) == (0, b"own\n", b"")
    time.sleep(0.2)
    assert _log(rt, cid) == [["stdout", "F", "main"], ["stdout", "F", "hook"], ["stderr", "F", "oops"]]


def test_with_the_pods_pid_namespace_pid1_is_pause_and_it_goes_nowhere(rt, img, tmp_path):
    cid = _container(rt, img, tmp_path, pb.POD)
    r = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, timeout=10, cmd=["sh", "-c", "echo hook >> /proc/1/fd/1"]))
    assert (r.exit_code, r.stdout, r.stderr) == (0, b"", b"")
    time.sleep(0.2)
    assert _log(rt, cid) == [["stdout", "F", "main"]]
