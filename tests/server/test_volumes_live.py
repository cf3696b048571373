"""Over a real socket, on the system clock: a container's own command that reads a mounted file
again later sees the file as it is then (it is taken over live at that moment), and its
output reaches the CRI log as whole lines."""
from __future__ import annotations

import time

from helpers.cri import container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb


def test_a_loop_in_a_container_sees_a_file_change_on_the_host(rt, img, tmp_path):
    volume = tmp_path / "volume"
    volume.mkdir()
    (volume / "data").write_text("value-1")
    logs = tmp_path / "logs"
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    cfg = sandbox_config("reader", log_directory=str(logs))
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ctr = container_config(command=["sh", "-c", "cat /etc/cm/data; echo; sleep 1; cat /etc/cm/data; echo; "
                                                "sleep 1; cat /etc/cm/data; echo"])
    ctr.mounts.add(container_path="/etc/cm", host_path=str(volume), readonly=True)
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ctr, sandbox_config=cfg)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    (volume / "data").write_text("value-2")  # before its second read, a second from now
    deadline = time.monotonic() + 10
    while rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.state != pb.CONTAINER_EXITED:
        assert time.monotonic() < deadline, "the container did not finish"
        time.sleep(0.05)
    status = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert (status.exit_code, status.reason) == (0, "Completed")
    assert 1.8e9 <= status.finished_at - status.started_at <= 5e9
    lines = [line.split(" ", 3)[1:] for line in (logs / "app" / "0.log").read_text().splitlines()]
    assert lines == [["stdout", "F", "value-1"], ["stdout", "F", "value-2"], ["stdout", "F", "value-2"]]
