"""--state-file: state restored after a restart, damaged or foreign files refused, no needless writes."""
from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager

import grpc
import pytest
from click.testing import CliRunner
from helpers.operations import TIMEOUT, pod_config, run_pod

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.cli import main
from fakecri.server.node.persistence import StateFileError
from fakecri.server.process.app import FakeCRIServer, short_socket_path

RUNNING, EXITED = pb.CONTAINER_RUNNING, pb.CONTAINER_EXITED


def stubs(srv: FakeCRIServer):
    ch = grpc.insecure_channel("unix:" + srv.config.socket)
    return ch, api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)


@contextmanager
def running(**config):
    with FakeCRIServer(**config) as srv:
        yield srv


def snapshot_view(rt, img) -> dict:
    """What a kubelet would see after a restart."""
    pods = rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=TIMEOUT).items
    ctrs = rt.ListContainers(pb.ListContainersRequest(), timeout=TIMEOUT).containers
    images = img.ListImages(pb.ListImagesRequest(), timeout=TIMEOUT).images
    return {
        "pods": sorted((p.id, p.metadata.name, p.state) for p in pods),
        "ips": sorted(rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=p.id), timeout=TIMEOUT)
                      .status.network.ip for p in pods),
        "containers": sorted((c.id, c.pod_sandbox_id, c.state) for c in ctrs),
        "images": sorted(tuple(i.repo_tags) for i in images),
    }


def test_state_survives_a_restart(tmp_path):
    path = str(tmp_path / "state.json")
    with running(state_file=path) as srv:
        ch, rt, img = stubs(srv)
        network = pb.NetworkConfig(pod_cidr="10.244.7.0/24")
        rt.UpdateRuntimeConfig(pb.UpdateRuntimeConfigRequest(runtime_config=pb.RuntimeConfig(network_config=network)),
                               timeout=TIMEOUT)
        sid1, cid1 = run_pod(rt, img, "web", "u1")
        sid2, cid2 = run_pod(rt, img, "job", "u2")
        rt.StopContainer(pb.StopContainerRequest(container_id=cid2, timeout=0), timeout=TIMEOUT)
        rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid2), timeout=TIMEOUT)
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="nginx:1.27")), timeout=TIMEOUT)
        before = snapshot_view(rt, img)
        ch.close()
    assert [c[2] for c in before["containers"] if c[0] == cid1] == [RUNNING]
    assert all(ip.startswith("10.244.7.") for ip in before["ips"])

    with running(state_file=path) as srv:
        ch, rt, img = stubs(srv)
        assert snapshot_view(rt, img) == before
        # The running container is still running and can be stopped; ids and IPs are not reused.
        status = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid1), timeout=TIMEOUT).status
        assert status.state == RUNNING and status.started_at > 0
        rt.StopContainer(pb.StopContainerRequest(container_id=cid1, timeout=0), timeout=TIMEOUT)
        sid3 = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pod_config("new", "u3")), timeout=TIMEOUT).pod_sandbox_id
        assert sid3 not in (sid1, sid2)
        ip3 = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid3), timeout=TIMEOUT).status.network.ip
        assert ip3.startswith("10.244.7.") and ip3 not in before["ips"]
        ch.close()
        srv.check()

    with running(state_file=path) as srv:
        ch, rt, img = stubs(srv)
        view = snapshot_view(rt, img)
        assert [c[2] for c in view["containers"] if c[0] == cid1] == [EXITED]
        assert sid3 in [p[0] for p in view["pods"]]
        ch.close()


def test_reads_do_not_rewrite_the_file(tmp_path):
    path = str(tmp_path / "state.json")
    with running(state_file=path) as srv:
        ch, rt, img = stubs(srv)
        run_pod(rt, img, "web", "u1")
        inode = os.stat(path).st_ino
        for _ in range(5):
            rt.ListContainers(pb.ListContainersRequest(), timeout=TIMEOUT)
            img.ListImages(pb.ListImagesRequest(), timeout=TIMEOUT)
            rt.Status(pb.StatusRequest(), timeout=TIMEOUT)
        assert os.stat(path).st_ino == inode  # every write is a rename of a new file
        rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pod_config("two", "u2")), timeout=TIMEOUT)
        assert os.stat(path).st_ino != inode
        ch.close()
    assert not [n for n in os.listdir(tmp_path) if ".tmp-" in n]


@pytest.mark.parametrize("content, message", [
    (b"{\"format\": \"fakecri-state\", \"version\": 2, \"runt", "is damaged (not valid JSON"),
    (b"\x00\xff\x13garbage", "is damaged (not valid JSON"),
    (b"", "is damaged (not valid JSON"),
    (b"{\"kind\": \"Pod\", \"apiVersion\": \"v1\"}", "is not a fakecri state file"),
    (b"[1, 2, 3]", "is not a fakecri state file"),
    (b"{\"format\": \"fakecri-state\", \"version\": 99}", "has version 99"),
    (b"{\"format\": \"fakecri-state\", \"version\": 2, \"runtime\": {\"version\": 2, \"pod_cidr\": \"10.88.0.0/16\", "
     b"\"sandboxes\": [{\"id\": 1}]}}",
     "is damaged (sandboxes[0].id: expected a string, got 1)"),
])
def test_damaged_or_foreign_file_stops_startup_untouched(tmp_path, content, message):
    path = tmp_path / "state.json"
    path.write_bytes(content)
    server = FakeCRIServer(state_file=str(path))
    with pytest.raises(StateFileError, match=re.escape(message)) as err:
        server.start()
    assert str(path) in str(err.value)
    assert path.read_bytes() == content
    assert server.node is None and not os.path.exists(server.config.socket)  # built whole, or not at all
    # The lock was let go: a good file on the same path now starts.
    path.unlink()
    with running(state_file=str(path)):
        assert json.loads(path.read_text())["format"] == "fakecri-state"


def test_cli_reports_a_damaged_file(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("not json at all")
    result = CliRunner().invoke(main, ["serve", "--socket", short_socket_path(), "--state-file", str(path),
                                       "--log-format", "json", "--log-level", "warning"])
    assert result.exit_code == 1
    assert f"Error: state file {path} is damaged" in result.output
    assert path.read_text() == "not json at all"


def test_two_servers_cannot_share_a_state_file(tmp_path):
    path = str(tmp_path / "state.json")
    with running(state_file=path):
        with pytest.raises(StateFileError, match="is in use by another fakecri"):
            FakeCRIServer(state_file=path).start()


def test_missing_directory_is_a_clear_error(tmp_path):
    path = str(tmp_path / "nope" / "state.json")
    with pytest.raises(StateFileError, match="does not exist"):
        FakeCRIServer(state_file=path).start()


def test_image_pulls_and_removals_are_written(tmp_path):
    path = str(tmp_path / "state.json")
    with running(state_file=path) as srv:
        ch, _, img = stubs(srv)
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox:latest")), timeout=TIMEOUT)
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="docker.io/library/busybox:latest")),
                      timeout=TIMEOUT)
        before = json.loads(open(path).read())["runtime"]["images"]
        img.RemoveImage(pb.RemoveImageRequest(image=pb.ImageSpec(image="busybox:latest")), timeout=TIMEOUT)
        ch.close()
    assert before["images"] and json.loads(open(path).read())["runtime"]["images"]["images"] == []


def test_state_file_that_is_a_directory_is_refused(tmp_path):
    with pytest.raises(StateFileError, match="cannot read it"):
        FakeCRIServer(state_file=str(tmp_path)).start()


def test_a_failed_write_fails_the_call_instead_of_acknowledging_it(tmp_path, monkeypatch):
    import errno

    from fakecri.server.node import persistence

    def disk_full(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    path = tmp_path / "state.json"
    with running(state_file=str(path)) as srv:
        ch, rt, _ = stubs(srv)
        rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pod_config("one", "u1")), timeout=TIMEOUT)
        with monkeypatch.context() as m:
            m.setattr(persistence, "write_atomic", disk_full)
            with pytest.raises(grpc.RpcError) as err:
                rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pod_config("two", "u2")), timeout=TIMEOUT)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "cannot be written (No space left on device)" in err.value.details()
        assert "undone" in err.value.details()
        names = [s.metadata.name for s in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=TIMEOUT).items]
        assert names == ["one"]  # what the file holds
        rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pod_config("three", "u3")), timeout=TIMEOUT)
        ch.close()
    # The change whose call failed was undone: it is in neither the runtime nor the file.
    assert [s["name"] for s in json.loads(path.read_text())["runtime"]["sandboxes"]] == ["one", "three"]


def test_temp_files_of_killed_writers_are_removed_at_start(tmp_path):
    from fakecri.server.process.app import FakeCRIServer

    path = tmp_path / "state.json"
    stale = tmp_path / ".state.json.tmp-99999"
    stale.write_bytes(b"half a snapshot")
    with FakeCRIServer(state_file=str(path)):
        assert not stale.exists()
    assert path.exists()


S = 1_000_000_000


@pytest.mark.parametrize("downtime_s", [5, 15])
def test_timers_keep_their_deadlines_across_a_restart(tmp_path, downtime_s):
    """`sleep 20` started 12 s before a restart exits 20 s after it started, the downtime
    counted: 3 s after a 5 s downtime; at start-up, dated when it fell due, after 15 s."""
    from fakecri.control_client import ControlClient
    from fakecri.engine.clock import FakeClock

    path = str(tmp_path / "state.json")
    clock = FakeClock()
    with running(state_file=path, clock=clock) as srv:
        ch, rt, img = stubs(srv)
        _, cid = run_pod(rt, img, "timer", "u-timer", command=("sleep", "20"))
        started = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid), timeout=TIMEOUT).status.started_at
        with ControlClient(srv.control_endpoint) as ctl:
            ctl.advance_clock(12)
        ch.close()

    restarted = FakeClock(clock.now_ns() + downtime_s * S)
    with running(state_file=path, clock=restarted) as srv:
        ch, rt, _ = stubs(srv)

        def status():
            return rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid), timeout=TIMEOUT).status

        with ControlClient(srv.control_endpoint) as ctl:
            if downtime_s < 8:
                assert status().state == RUNNING
                ctl.advance_clock(20 - 12 - downtime_s - 0.1)
                assert status().state == RUNNING
                ctl.advance_clock(0.2)
        assert status().state == EXITED
        assert status().finished_at == started + 20 * S
        ch.close()
