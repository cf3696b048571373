"""The bug-lab quirks and recipes over a real socket: what each one makes the runtime say.
What a real kubelet does with them is tests/interop/test_bug_lab.py (slow)."""
from __future__ import annotations

import json

import grpc
import pytest
from click.testing import CliRunner
from helpers.cri import EventCollector, kinds, run_pod, sandbox_config, wait_subscribers

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.cli import main
from fakecri.faults.flags import faults_from
from fakecri.faults.model import Fault
from fakecri.faults.quirks import Quirk
from fakecri.faults.recipes import RECIPES
from fakecri.server.process.app import FakeCRIServer


def add(ctl, **fault):
    attrs = {k: str(v) for k, v in fault.pop("attributes", {}).items()}
    return ctl.AddFault(cpb.AddFaultRequest(fault=cpb.Fault(attributes=attrs, **fault)))


def quirk(ctl, name):
    add(ctl, type="quirk", attributes={"name": name})


def test_shared_event_channel_gives_each_event_to_one_subscriber_in_turn(srv, rt, img, ctl):
    quirk(ctl, "shared-event-channel")
    a, b = EventCollector("unix:" + srv.config.socket), EventCollector("unix:" + srv.config.socket)
    try:
        wait_subscribers(srv, 2)
        sid, cid = run_pod(rt, img, "shared")  # 4 events: sandbox CREATED, STARTED, container CREATED, STARTED
        got_a, got_b = a.wait_for(2), b.wait_for(2)
    finally:
        a.close()
        b.close()
    assert len(got_a) == len(got_b) == 2
    assert sorted(kinds(got_a) + kinds(got_b)) == sorted([
        ("CONTAINER_CREATED_EVENT", sid[:8]), ("CONTAINER_STARTED_EVENT", sid[:8]),
        ("CONTAINER_CREATED_EVENT", cid[:8]), ("CONTAINER_STARTED_EVENT", cid[:8])])
    assert not {e.container_id + str(e.container_event_type) for e in got_a} & {
        e.container_id + str(e.container_event_type) for e in got_b}


def test_shared_event_channel_holds_events_for_the_first_subscriber_and_drops_when_full(tmp_path):
    with FakeCRIServer(seed=1, state_root=str(tmp_path / "r"), subscriber_buffer=3, quiet=True,
                       faults=[]) as server:
        server.call(lambda: server.node.plan.add(Fault(type="quirk", attributes={"name": "shared-event-channel"})))
        ch = grpc.insecure_channel("unix:" + server.config.socket)
        rt = api_pb2_grpc.RuntimeServiceStub(ch)
        for name in ("p1", "p2"):  # 2 events each, nobody listening: 3 kept, 1 dropped
            rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config(name)))
        assert server.call(lambda: (len(server.node.bus.backlog), server.node.bus.shared_dropped)) == (3, 1)
        assert server.call(lambda: server.node.counters["events_dropped"]) == 1
        late = EventCollector("unix:" + server.config.socket)
        try:
            assert len(late.wait_for(3)) == 3
        finally:
            late.close()
            ch.close()


def test_stopped_as_created_mislabels_the_exit(srv, rt, img, ctl):
    quirk(ctl, "stopped-as-created")
    sub = EventCollector("unix:" + srv.config.socket)
    try:
        wait_subscribers(srv, 1)
        sid, cid = run_pod(rt, img, "mislabel", command=["sh", "-c", "exit 3"])
        events = sub.wait_for(5)
    finally:
        sub.close()
    mine = [e for e in events if e.container_id == cid]
    assert [pb.ContainerEventType.Name(e.container_event_type) for e in mine] == [
        "CONTAINER_CREATED_EVENT", "CONTAINER_STARTED_EVENT", "CONTAINER_CREATED_EVENT"]
    last = [s for s in mine[-1].containers_statuses if s.id == cid][0]
    assert last.state == pb.CONTAINER_EXITED and last.exit_code == 3


def test_deleted_on_stop_sends_a_deleted_for_a_container_that_still_exists(srv, rt, img, ctl):
    quirk(ctl, "deleted-on-stop")
    sub = EventCollector("unix:" + srv.config.socket)
    try:
        wait_subscribers(srv, 1)
        sid, cid = run_pod(rt, img, "spurious")
        rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
        events = sub.wait_for(6)
    finally:
        sub.close()
    mine = [k for k, c in kinds(events) if c == cid[:8]]
    assert mine[-2:] == ["CONTAINER_STOPPED_EVENT", "CONTAINER_DELETED_EVENT"]
    assert rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.state == pb.CONTAINER_EXITED


def test_remove_exiting_unknown_refuses_a_just_exited_container_then_removes_it(tmp_path):
    with FakeCRIServer(seed=1, state_root=str(tmp_path / "r"), fake_clock=True, quiet=True) as server:
        server.call(lambda: server.node.plan.add(Fault(type="quirk", attributes={"name": "remove-exiting-unknown"})))
        ch = grpc.insecure_channel("unix:" + server.config.socket)
        rt, img = api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
        sid, cid = run_pod(rt, img, "exiting")
        rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
        with pytest.raises(grpc.RpcError) as info:
            rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
        assert info.value.code() == grpc.StatusCode.UNKNOWN
        assert "container is still running, to stop first" in info.value.details()
        server.call(lambda: server.node.clock.advance(2.5))
        rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
        assert list(rt.ListContainers(pb.ListContainersRequest()).containers) == []
        rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))  # missing: still OK
        ch.close()


def test_a_recipe_through_the_control_api_adds_its_faults(rt, ctl):
    added = add(ctl, type="recipe", attributes={"name": "no-runtime-config"})
    assert (added.name, added.type, added.target) == ("no-runtime-config", "error", "RuntimeConfig")
    with pytest.raises(grpc.RpcError) as info:
        rt.RuntimeConfig(pb.RuntimeConfigRequest())
    assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED
    ctl.RemoveFault(cpb.RemoveFaultRequest(name="no-runtime-config"))
    assert rt.RuntimeConfig(pb.RuntimeConfigRequest()).linux.cgroup_driver in (pb.SYSTEMD, pb.CGROUPFS)


def test_recipe_flag_on_the_server(tmp_path):
    faults = faults_from({"recipe": "events-unimplemented,update-sandbox-resources-fails"})
    with FakeCRIServer(seed=1, state_root=str(tmp_path / "r"), faults=faults, quiet=True) as server:
        names = server.call(lambda: sorted(f.name for f in server.node.plan.list()))
        assert names == ["events-unimplemented", "update-sandbox-resources-fails"]
        ch = grpc.insecure_channel("unix:" + server.config.socket)
        rt = api_pb2_grpc.RuntimeServiceStub(ch)
        with pytest.raises(grpc.RpcError) as info:
            list(rt.GetContainerEvents(pb.GetEventsRequest(), timeout=5))
        assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED
        ch.close()


def test_fakecri_quirks_lists_every_quirk_and_recipe_with_references():
    out = CliRunner().invoke(main, ["quirks"])
    assert out.exit_code == 0, out.output
    for q in Quirk:
        assert f"  {q.value}  [{q.references}]" in out.output
    for r in RECIPES.values():
        assert f"  {r.name}  [{r.references}]" in out.output
    doc = CliRunner().invoke(main, ["quirks", "--json"])
    data = json.loads(doc.output)
    assert {q["name"] for q in data["quirks"]} == {q.value for q in Quirk}
    assert data["recipes"][0]["faults"][0]["type"] == "cut_stream"
