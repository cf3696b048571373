"""`top` and `pgrep` through a real server: `top` as a container's own command runs until
stopped, drawing frames of the process table (critest's default container command is `top`);
`pgrep` finds the container's processes by name, and answers 1 when none matches."""
from __future__ import annotations

import time

import grpc
import pytest
from helpers.operations import TIMEOUT, run_pod

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer


@pytest.fixture(scope="module")
def stubs():
    with FakeCRIServer(seed=7) as srv:
        ch = grpc.insecure_channel("unix:" + srv.config.socket)
        yield api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
        ch.close()


def exec_sync(rt, cid: str, *cmd: str) -> tuple[int, str, str]:
    r = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=list(cmd), timeout=10), timeout=TIMEOUT)
    return r.exit_code, r.stdout.decode(), r.stderr.decode()


@pytest.mark.parametrize("command", [("top",), ("sh", "-c", "top")])
def test_top_runs_until_stopped(stubs, command):
    rt, img = stubs
    _, cid = run_pod(rt, img, "top-" + str(len(command)), f"uid-top-{len(command)}", command=command)
    time.sleep(0.3)
    assert rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid), timeout=TIMEOUT).status.state \
        == pb.CONTAINER_RUNNING
    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0), timeout=TIMEOUT)


def test_top_in_batch_draws_count_frames(stubs):
    rt, img = stubs
    _, cid = run_pod(rt, img, "top-batch", "uid-top-batch")
    code, out, err = exec_sync(rt, cid, "top", "-b", "-n", "2", "-d", "0.01")
    assert (code, err) == (0, "")
    assert out.count("  PID  PPID USER     STAT   VSZ %VSZ %CPU COMMAND\n") == 2
    assert "\x1b[H" not in out
    assert exec_sync(rt, cid, "top", "-q")[0] == 1


def test_pgrep_finds_the_containers_processes(stubs):
    rt, img = stubs
    _, cid = run_pod(rt, img, "pgrep", "uid-pgrep")
    assert exec_sync(rt, cid, "pgrep", "sleep") == (0, "2\n", "")
    assert exec_sync(rt, cid, "pgrep", "-l", "^sle") == (0, "2 sleep\n", "")
    assert exec_sync(rt, cid, "sh", "-c", "pgrep nosuchthing || echo none") == (0, "none\n", "")
    assert exec_sync(rt, cid, "pgrep", "-x", "slee")[0] == 1
