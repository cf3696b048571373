"""`fakecri watch` engine: JSON lines and the rich view, against a stub runtime."""
import io
import json
import threading

from helpers.cri_stub import StubRuntime, StubServer
from rich.console import Console

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient
from fakecri.client.watch import Watcher, render, run_watch


def stub_with_pod():
    s = StubRuntime()
    s.sandboxes = [pb.PodSandbox(id="s1", metadata=pb.PodSandboxMetadata(name="web", namespace="ns", uid="u1"),
                                 state=pb.SANDBOX_READY)]
    s.containers = [pb.Container(id="c1", pod_sandbox_id="s1", metadata=pb.ContainerMetadata(name="app"),
                                 state=pb.CONTAINER_RUNNING)]
    s.events = [pb.ContainerEventResponse(
        container_id="c1", container_event_type=pb.CONTAINER_STARTED_EVENT, created_at=1,
        pod_sandbox_status=pb.PodSandboxStatus(id="s1", metadata=s.sandboxes[0].metadata))]
    s.event_hold.clear()
    return s


def test_json_mode_prints_events_relists_and_flags_missed():
    servicer = stub_with_pod()

    def exit_without_event():
        servicer.containers = [pb.Container(id="c1", pod_sandbox_id="s1", metadata=pb.ContainerMetadata(name="app"),
                                            state=pb.CONTAINER_EXITED)]

    out = io.StringIO()
    with StubServer(servicer) as server:
        threading.Timer(0.5, exit_without_event).start()
        assert run_watch(server.endpoint, json_mode=True, interval=0.1, duration=2.0, out=out, missed_settle=0.2) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    kinds = [(r["kind"], r.get("type"), r.get("container_id")) for r in lines]
    assert ("event", "CONTAINER_STARTED_EVENT", "c1") in kinds
    assert ("relist", "ContainerStarted", "s1") in kinds  # the baseline relist
    assert ("relist", "ContainerDied", "c1") in kinds
    # Every row names the pod as the events do, not by its uid.
    assert {r["pod"] for r in lines if r["kind"] in ("event", "relist", "missed")} == {"ns/web"}
    assert ("missed", "ContainerDied", "c1") in kinds  # no STOPPED event came first
    event = next(r for r in lines if r["kind"] == "event")
    assert event["pod"] == "ns/web" and event["pod_uid"] == "u1" and event["sandbox"] is False
    summary = lines[-1]
    assert summary["kind"] == "summary" and summary["missed"] == 1 and summary["events"] == 1
    assert summary["relists"] >= 5


def test_rich_view_shows_pods_and_events():
    servicer = stub_with_pod()
    with StubServer(servicer) as server, CRIClient(server.endpoint, timeout=5) as client:
        watcher = Watcher(client, interval=0.05).start()
        try:
            threading.Event().wait(0.4)
            console = Console(file=io.StringIO(), width=140, force_terminal=False)
            console.print(render(watcher, server.endpoint))
            text = console.file.getvalue()
        finally:
            watcher.stop()
    assert "ns/web" in text and "(sandbox)" in text and "app" in text and "running" in text
    assert "CONTAINER_STARTED_EVENT" in text and "missed 0" in text


def test_live_view_runs_for_a_duration_and_stops():
    servicer = stub_with_pod()
    out = io.StringIO()
    with StubServer(servicer) as server:
        assert run_watch(server.endpoint, json_mode=False, interval=0.1, duration=0.6, out=out) == 0
    text = out.getvalue()
    assert "fakecri watch" in text and "ns/web" in text
    assert not [t for t in threading.enumerate() if t.name in ("watch-events", "generic-pleg")]


def test_a_runtime_without_events_is_watched_by_relist_alone_and_nothing_counts_as_missed():
    """UNIMPLEMENTED GetContainerEvents: five tries, as the kubelet makes, then the relist
    alone; the exit it finds is shown, not flagged as missed (no stream promised it)."""
    import grpc

    servicer = stub_with_pod()
    servicer.events = []
    servicer.event_end = grpc.StatusCode.UNIMPLEMENTED
    servicer.event_hold.set()
    with StubServer(servicer) as server, CRIClient(server.endpoint, timeout=5) as client:
        watcher = Watcher(client, interval=0.05, retry_delay=0.02).start()
        try:
            assert watcher.gave_up.wait(5.0)
            servicer.containers = [pb.Container(id="c1", pod_sandbox_id="s1", state=pb.CONTAINER_EXITED,
                                                metadata=pb.ContainerMetadata(name="app"))]
            threading.Event().wait(0.4)
            summary = watcher.summary()
            records = list(watcher.recent)
        finally:
            watcher.stop()
    assert servicer.calls.count("GetContainerEvents") == 5  # then no more reconnecting
    assert summary["missed"] == 0 and summary["stream_errors"] == 5
    assert "given up after 5 failures (UNIMPLEMENTED" in summary["stream"]
    assert any(r["kind"] == "relist" and r["type"] == "ContainerDied" for r in records)
    assert not any(r["kind"] == "missed" for r in records)


def test_an_unreachable_endpoint_says_why_and_exits_non_zero(tmp_path):
    out = io.StringIO()
    code = run_watch(f"unix://{tmp_path}/none.sock", json_mode=True, interval=0.1, duration=5, out=out, timeout=2)
    assert code == 2
    record = json.loads(out.getvalue().splitlines()[-1])
    assert record["kind"] == "error" and "cannot watch the runtime" in record["message"]
    assert "UNAVAILABLE" in record["message"]


def test_cli_watch_unreachable_endpoint_exits_2_in_both_modes(tmp_path):
    from click.testing import CliRunner

    from fakecri.cli import main

    for extra in (["--json"], []):
        res = CliRunner().invoke(main, ["watch", "--endpoint", f"unix://{tmp_path}/none.sock", "--duration", "3",
                                        *extra])
        assert res.exit_code == 2, res.output
        assert "cannot watch the runtime" in res.output
