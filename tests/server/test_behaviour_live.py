"""Containers act out their commands and fakecri.io/ scripts, over a real socket."""
from __future__ import annotations

import time

import grpc
import pytest
from helpers.cri import EventCollector, kinds, run_pod

from fakecri.api.runtime.v1 import api_pb2 as pb


def status(rt, cid):
    return rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status


def wait_exited(rt, cid, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = status(rt, cid)
        if st.state == pb.CONTAINER_EXITED:
            return st
        time.sleep(0.02)
    raise AssertionError(f"container {cid[:12]} did not exit within {timeout}s")


def test_exit_3_gives_code_and_events(srv, rt, img):
    sub = EventCollector("unix:" + srv.config.socket)
    try:
        deadline = time.monotonic() + 5
        while srv.call(lambda: len(srv.node.bus.subscribers)) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        sid, cid = run_pod(rt, img, "exit3", command=["sh", "-c", "exit 3"])
        events = sub.wait_for(5)
    finally:
        sub.close()
    st = status(rt, cid)
    assert (st.state, st.exit_code, st.reason) == (pb.CONTAINER_EXITED, 3, "Error")
    assert st.finished_at >= st.started_at > 0
    assert [k for k, c in kinds(events) if c == cid[:8]] == [
        "CONTAINER_CREATED_EVENT", "CONTAINER_STARTED_EVENT", "CONTAINER_STOPPED_EVENT"]


def test_sleep_1_exits_on_its_own_after_about_a_second(rt, img):
    t0 = time.monotonic()
    sid, cid = run_pod(rt, img, "sleeper", command=["sleep", "1"])
    assert status(rt, cid).state == pb.CONTAINER_RUNNING
    st = wait_exited(rt, cid)
    elapsed = time.monotonic() - t0
    assert 0.9 <= elapsed <= 4.0
    assert (st.exit_code, st.reason) == (0, "Completed")
    assert 0.9e9 <= st.finished_at - st.started_at <= 2e9


def test_oom_script_gives_137_oomkilled(rt, img):
    sid, cid = run_pod(rt, img, "oomer", annotations={"fakecri.io/oom-after": "200ms"})
    st = wait_exited(rt, cid)
    assert (st.exit_code, st.reason) == (137, "OOMKilled")


def test_scripted_exit_code_after_a_delay(rt, img):
    sid, cid = run_pod(rt, img, "crasher",
                       annotations={"fakecri.io/exit-after": "150ms", "fakecri.io/exit-code": "42"})
    assert wait_exited(rt, cid).exit_code == 42


def test_fail_start_leaves_container_exited_with_start_error(rt, img):
    with pytest.raises(grpc.RpcError) as info:
        run_pod(rt, img, "nostart", annotations={"fakecri.io/fail-start": "no such file"})
    assert "no such file" in info.value.details()
    cs = rt.ListContainers(pb.ListContainersRequest()).containers
    st = status(rt, cs[0].id)
    assert (st.state, st.exit_code, st.reason) == (pb.CONTAINER_EXITED, 128, "StartError")


def test_graceful_and_forced_stop_exit_codes(rt, img):
    _, graceful = run_pod(rt, img, "graceful",
                          annotations={"fakecri.io/stop-delay": "100ms", "fakecri.io/stop-exit-code": "143"})
    rt.StopContainer(pb.StopContainerRequest(container_id=graceful, timeout=5))
    assert status(rt, graceful).exit_code == 143
    _, stubborn = run_pod(rt, img, "stubborn", annotations={"fakecri.io/stop-delay": "never"})
    t0 = time.monotonic()
    rt.StopContainer(pb.StopContainerRequest(container_id=stubborn, timeout=1))
    assert time.monotonic() - t0 >= 0.9
    assert status(rt, stubborn).exit_code == 137


def test_exec_probes_scripted_to_start_failing(rt, img):
    sid, cid = run_pod(rt, img, "probed", annotations={"fakecri.io/probes": "cat /tmp/healthy = fail-after 500ms"})
    probe = pb.ExecSyncRequest(container_id=cid, cmd=["cat", "/tmp/healthy"], timeout=1)
    assert rt.ExecSync(probe).exit_code == 0
    time.sleep(0.6)
    assert rt.ExecSync(probe).exit_code == 1


def test_periodic_log_lines(rt, img, tmp_path):
    logdir = str(tmp_path / "logs")
    sid, cid = run_pod(rt, img, "ticker", log_directory=logdir,
                       annotations={"fakecri.io/log-every": "100ms", "fakecri.io/log-every-line": "tick {n}"})
    time.sleep(0.5)
    text = open(status(rt, cid).log_path).read()
    assert text.count("tick ") >= 3
