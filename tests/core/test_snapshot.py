"""State snapshots (to_dict / from_dict) and pod checkpoints (checkpoint_* / restore_pod)."""
from __future__ import annotations

import json

import pytest

from fakecri.engine.clock import FakeClock
from fakecri.engine.errors import AlreadyExists, FailedPrecondition, InvalidArgument
from fakecri.engine.ids import SequentialIds
from fakecri.sim.logsink import MemoryLogSink
from fakecri.engine.records import ContainerState, Resources, SandboxState
from fakecri.engine.runtime import Runtime

C = ContainerState
S = 1_000_000_000


def busy_runtime(pods, runtime, clock):
    runtime.set_pod_cidr("10.1.0.0/24")
    a = pods.sandbox("a", labels={"app": "a"}, annotations={"fakecri.io/log-every": "1s"}, spec=b"\x00\xff",
                     resources=Resources(cpu_shares=2), overhead=Resources(memory_limit_in_bytes=8 << 20))
    b = pods.sandbox("b")
    pods.running(a, "sleeper", command=["sh", "-c", "echo hi; sleep 5; echo bye; sleep 5"])
    slow = pods.running(a, "slow", annotations={"fakecri.io/stop-delay": "4s"},
                        resources=Resources(cpuset_cpus="0-1", unified={"memory.high": "1"}, hugepage_limits=(("2MB", 0),)))
    pods.running(a, "done", command=["false"])
    pods.container(a, "idle", spec=b"spec")
    pods.running(b, "server")
    clock.advance(1)
    runtime.tick()
    runtime.stop_container(slow.id, 30)
    runtime.stop_pod_sandbox(b.id)
    return a, b


def test_round_trip_is_exact_and_json_able(pods, runtime, clock):
    busy_runtime(pods, runtime, clock)
    data = runtime.to_dict()
    text = json.dumps(data)
    restored = Runtime.from_dict(json.loads(text), clock, SequentialIds(100), pod_cidr="10.88.0.0/16")
    assert restored.to_dict() == data
    assert restored.pod_cidr == "10.1.0.0/24"  # the snapshot's CIDR wins over the configured default
    assert restored.next_deadline_ns() == runtime.next_deadline_ns()


def test_restored_runtime_behaves_like_the_original(pods, runtime, clock):
    busy_runtime(pods, runtime, clock)
    sink2 = MemoryLogSink()
    restored = Runtime.from_dict(runtime.to_dict(), clock, SequentialIds(100), log_sink=sink2)
    runtime.drain_events()
    for _ in range(12):
        clock.advance(1)
        runtime.tick()
        restored.tick()
    assert restored.to_dict() == runtime.to_dict()
    assert [(e.type, e.container_id, e.created_at) for e in restored.drain_events()] == [
        (e.type, e.container_id, e.created_at) for e in runtime.drain_events()]
    assert any(line == "bye" for lines in (sink2.lines(p) for p in sink2.entries) for line in lines)


def test_restore_later_keeps_deadlines_on_the_clock(pods, runtime, clock):
    sb = pods.sandbox()
    c = pods.running(sb, command=["sleep", "10"])
    clock.advance(4)
    data = runtime.to_dict()
    # Restored 3 s after the snapshot: 3 s of the 6 left have passed meanwhile.
    soon = FakeClock(clock.now_ns() + 3 * S)
    assert Runtime.from_dict(data, soon, SequentialIds(100)).next_deadline_ns() == soon.now_ns() + 3 * S
    # Restored an hour later: the exit is overdue; it fires at the next tick, dated when it fell due.
    later = FakeClock(clock.now_ns() + 3600 * S)
    restored = Runtime.from_dict(data, later, SequentialIds(100))
    assert restored.next_deadline_ns() == clock.now_ns() + 6 * S
    restored.tick()
    rc = restored.get_container(c.id)
    assert rc.state == C.EXITED and rc.finished_at == clock.now_ns() + 6 * S
    # Indexes are rebuilt: duplicates are refused and IPs stay taken.
    with pytest.raises(AlreadyExists):
        restored.run_pod_sandbox(name=sb.name, namespace=sb.namespace, uid=sb.uid)
    assert restored.run_pod_sandbox(name="new", namespace="n", uid="u").ip != sb.ip


def test_checkpoint_container_and_pod(pods, runtime):
    sb = pods.sandbox()
    run = pods.running(sb, "run")
    idle = pods.container(sb, "idle")
    data = runtime.checkpoint_container(run.id)
    assert data["kind"] == "container" and data["container"]["id"] == run.id
    json.dumps(data)
    with pytest.raises(FailedPrecondition, match="checkpoint container"):
        runtime.checkpoint_container(idle.id)
    pod = runtime.checkpoint_pod(sb.id)
    assert [c["name"] for c in pod["containers"]] == ["run", "idle"]
    assert [c["name"] for c in runtime.checkpoint_pod(sb.id, [idle.id])["containers"]] == ["idle"]
    other = pods.sandbox()
    stranger = pods.container(other, "x")
    with pytest.raises(InvalidArgument, match=f"container {stranger.id} is not in sandbox {sb.id}"):
        runtime.checkpoint_pod(sb.id, [stranger.id])
    runtime.stop_pod_sandbox(sb.id)
    with pytest.raises(FailedPrecondition, match="NOTREADY"):
        runtime.checkpoint_pod(sb.id)


def test_restore_pod_creates_fresh_ids_and_restarts_what_ran(pods, runtime):
    sb = pods.sandbox("web", labels={"app": "web"})
    run = pods.running(sb, "run", command=["sleep", "infinity"])
    pods.container(sb, "idle")
    data = json.loads(json.dumps(runtime.checkpoint_pod(sb.id)))
    with pytest.raises(AlreadyExists):
        runtime.restore_pod(data)
    runtime.drain_events()
    new_sb, restored = runtime.restore_pod(data, name="web-restored", labels={"restored": "yes"})
    assert new_sb.id != sb.id and new_sb.name == "web-restored" and new_sb.labels == {"restored": "yes"}
    assert new_sb.state == SandboxState.READY and new_sb.ip != sb.ip
    assert [(c.name, c.state) for c in restored] == [("run", C.RUNNING), ("idle", C.CREATED)]
    assert restored[0].id != run.id and restored[0].log_path == f"{sb.log_directory}/run/0.log"
    assert [e.type.name for e in runtime.drain_events()] == ["CREATED", "STARTED", "CREATED", "CREATED", "STARTED"]


def test_restore_rejects_foreign_data(runtime):
    with pytest.raises(InvalidArgument, match="not a fakecri"):
        runtime.restore_pod({"kind": "tarball"})


def test_failed_restore_leaves_nothing_behind(pods, runtime):
    sb = pods.sandbox("web")
    pods.running(sb, "run")
    data = runtime.checkpoint_pod(sb.id)
    data["containers"][0]["annotations"] = {"fakecri.io/exit-after": "bad"}
    before = runtime.counts()
    with pytest.raises(InvalidArgument, match="fakecri.io/exit-after"):
        runtime.restore_pod(data, name="web-2")
    assert runtime.counts() == before
    del data["containers"][0]["state"]
    data["containers"][0]["annotations"] = {}
    with pytest.raises(InvalidArgument, match="lacks 'state'"):
        runtime.restore_pod(data, name="web-3")
    assert runtime.counts() == before
