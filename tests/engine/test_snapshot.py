"""State snapshots (snapshot / restore) and pod checkpoints (checkpoint_* / restore_pod)."""
from __future__ import annotations

import copy
import json

import pytest
from helpers.core_pods import Joined

from fakecri.engine.checkpoints import OVERRIDABLE
from fakecri.engine.clock import FakeClock, SequentialIds
from fakecri.engine.errors import AlreadyExists, FailedPrecondition, InvalidArgument
from fakecri.engine.records import ContainerState, Event, Resources, SandboxState
from fakecri.engine.specs import (
    LOCALHOST,
    NODE,
    ContainerSpec,
    Mount,
    Namespaces,
    PortMapping,
    SandboxSpec,
    Seccomp,
    UserNamespace,
)

C = ContainerState
S = 1_000_000_000

SANDBOX_SPEC = SandboxSpec(
    dns_servers=("10.96.0.10",), dns_options=("ndots:5",),
    port_mappings=(PortMapping(container_port=80, host_port=8080),),
    sysctls=(("net/ipv4/ip_forward", "1"),), run_as_user=0, supplemental_groups=(5, 6),
    namespaces=Namespaces(pid=NODE, userns=UserNamespace(uids=((0, 100000, 65536),), gids=((0, 100000, 65536),))),
    seccomp=Seccomp(kind=LOCALHOST, localhost_ref="profiles/a.json"),
)
CONTAINER_SPEC = ContainerSpec(
    working_dir="/w", envs=(("A", "1"), ("B", "")), tty=True, run_as_user=1000, run_as_group=None,
    mounts=(Mount(container_path="/data", host_path="/srv/data", readonly=True, uid_mappings=((0, 1, 2),)),),
    add_capabilities=("NET_ADMIN",), seccomp=None, namespaces=Namespaces(ipc=NODE),
)


def fresh(clock=None, **options) -> Joined:
    """Another node (engine and simulation) on `clock`, whose ids do not collide with the first's."""
    return Joined(clock, SequentialIds(100), **options)


def busy_runtime(pods, runtime, clock):
    runtime.set_pod_cidr("10.1.0.0/24")
    runtime.images.pull("nginx:1.25")
    a = pods.sandbox("a", labels={"app": "a"}, annotations={"fakecri.io/log-every": "1s"}, spec=SANDBOX_SPEC,
                     resources=Resources(cpu_shares=2), overhead=Resources(memory_limit_in_bytes=8 << 20))
    b = pods.sandbox("b")
    pods.running(a, "sleeper", command=["sh", "-c", "echo hi; sleep 5; echo bye; sleep 5"])
    slow = pods.running(a, "slow", annotations={"fakecri.io/stop-delay": "4s"}, resources=Resources(
        cpuset_cpus="0-1", unified=(("memory.high", "1"),), hugepage_limits=(("2MB", 0),)))
    pods.running(a, "done", command=["false"])
    pods.container(a, "idle", image="nginx:1.25", spec=CONTAINER_SPEC)
    pods.running(b, "server")
    clock.advance(1)
    runtime.tick()
    runtime.stop_container(slow.id, 30)
    runtime.stop_pod_sandbox(b.id)
    return a, b


def test_round_trip_is_exact_and_json_able(pods, runtime, clock):
    busy_runtime(pods, runtime, clock)
    data = runtime.snapshot()
    text = json.dumps(data)
    other = fresh(clock, pod_cidr="10.88.0.0/16").runtime
    other.restore(json.loads(text))
    assert other.snapshot() == data
    assert other.pod_cidr == "10.1.0.0/24"  # the snapshot's CIDR wins over the configured default
    assert other.next_deadline_ns() == runtime.next_deadline_ns()
    assert other.counts() == runtime.counts()
    for theirs in runtime.list_containers():
        ours = other.get_container(theirs.id)
        assert (ours.spec, ours.resources, ours.labels, ours.state) == (
            theirs.spec, theirs.resources, theirs.labels, theirs.state)
    sb = other.list_sandboxes(label_selector={"app": "a"})[0]
    assert sb.spec == SANDBOX_SPEC and sb.overhead == Resources(memory_limit_in_bytes=8 << 20)
    assert isinstance(sb.container_ids, tuple)
    # Images are part of it: what was pulled is there, by tag.
    assert {t for img in other.images.list() for t in img.repo_tags} >= {
        "docker.io/library/busybox:latest", "docker.io/library/nginx:1.25"}


def test_restored_runtime_behaves_like_the_original(pods, runtime, clock, events):
    busy_runtime(pods, runtime, clock)
    other = fresh(clock)
    other.runtime.restore(runtime.snapshot())
    events()
    for _ in range(12):
        clock.advance(1)
        runtime.tick()
        other.runtime.tick()
    assert other.runtime.snapshot() == runtime.snapshot()
    assert [(e.type, e.container_id, e.created_at) for e in other.events()] == [
        (e.type, e.container_id, e.created_at) for e in events()]
    assert any(line == "bye" for path in other.log.entries for line in other.log.lines(path))


def test_restore_later_keeps_deadlines_on_the_clock(pods, runtime, clock):
    sb = pods.sandbox()
    c = pods.running(sb, command=["sleep", "10"])
    clock.advance(4)
    data = runtime.snapshot()
    # Restored 3 s after the snapshot: 3 s of the 6 left have passed meanwhile.
    soon = FakeClock(clock.now_ns() + 3 * S)
    restored = fresh(soon).runtime
    restored.restore(data)
    assert restored.next_deadline_ns() == soon.now_ns() + 3 * S
    # Restored an hour later: the exit is overdue; it fires at the next tick, dated when it fell due.
    later = FakeClock(clock.now_ns() + 3600 * S)
    restored = fresh(later).runtime
    restored.restore(data)
    assert restored.next_deadline_ns() == clock.now_ns() + 6 * S
    restored.tick()
    rc = restored.get_container(c.id)
    assert rc.state == C.EXITED and rc.finished_at == clock.now_ns() + 6 * S
    # Indexes are rebuilt: duplicates are refused and IPs stay taken.
    with pytest.raises(AlreadyExists):
        restored.run_pod_sandbox(name=sb.name, namespace=sb.namespace, uid=sb.uid)
    assert restored.run_pod_sandbox(name="new", namespace="n", uid="u").ip != sb.ip


def test_restore_replaces_in_place_and_bumps_changes(pods, runtime, clock, events):
    busy_runtime(pods, runtime, clock)
    data = runtime.snapshot()
    other = fresh(clock)
    rt = other.runtime
    rt.run_pod_sandbox(name="mine", namespace="n", uid="u")
    rt.images.pull("alpine:3.19")
    changes = rt.changes
    rt.restore(data)
    assert rt.changes > changes
    assert [sb.name for sb in rt.list_sandboxes()] == ["a", "b"]  # what it held before is gone
    assert rt.images.status("alpine:3.19") is None and rt.images.status("nginx:1.25") is not None
    assert rt.counts() == runtime.counts()


@pytest.mark.parametrize("corrupt,named", [
    (lambda d: d.update(version=1), "version 1"),
    (lambda d: d.update(pod_cidr="10.0.0.0/33"), "10.0.0.0/33"),
    (lambda d: d["sandboxes"][0].update(state="GONE"), "sandboxes[0].state"),
    (lambda d: d["containers"][1]["spec"].update(tty="yes"), "containers[1].spec.tty"),
    (lambda d: d["containers"][0]["resources"].update(unified=[["memory.high"]]), "containers[0].resources.unified[0]"),
    (lambda d: d["containers"][0].pop("state"), "containers[0]: state is missing"),
    (lambda d: d["sandboxes"][0].update(container_ids=[]), "is in no sandbox that lists it"),
    (lambda d: d["timers"].append(["nope", "wake", 0, 1]), "timers["),
    (lambda d: d["timers"].append([d["containers"][0]["id"], "later", 0, 1]), "timers["),
    (lambda d: d["stopping"].update(x=[1, 2]), "stopping['x']"),
    (lambda d: d.update(removed_cpu_ns={"s": -1}), "removed_cpu_ns['s']"),
    (lambda d: d["images"]["images"][0].update(size=0), "images.images[0]"),
    (lambda d: d["images"]["images"][0].update(repo_tags="busybox"), "images.images[0].repo_tags"),
])
def test_a_bad_snapshot_is_refused_whole_naming_the_bad_value(pods, runtime, clock, corrupt, named):
    busy_runtime(pods, runtime, clock)
    data = runtime.snapshot()
    other = fresh(clock)
    rt = other.runtime
    rt.run_pod_sandbox(name="mine", namespace="n", uid="u")
    before, changes = rt.snapshot(), rt.changes
    bad = copy.deepcopy(data)
    corrupt(bad)
    with pytest.raises(InvalidArgument) as exc:
        rt.restore(bad)
    assert named in exc.value.message
    assert rt.snapshot() == before and rt.changes == changes


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


def test_restore_pod_creates_fresh_ids_and_restarts_what_ran(pods, runtime, events):
    sb = pods.sandbox("web", labels={"app": "web"}, spec=SANDBOX_SPEC)
    run = pods.running(sb, "run", command=["sleep", "infinity"], spec=CONTAINER_SPEC)
    pods.container(sb, "idle")
    data = json.loads(json.dumps(runtime.checkpoint_pod(sb.id)))
    with pytest.raises(AlreadyExists):
        runtime.restore_pod(data)
    events()
    new_sb, restored = runtime.restore_pod(data, name="web-restored", labels={"restored": "yes"})
    assert new_sb.id != sb.id and new_sb.name == "web-restored" and new_sb.labels == {"restored": "yes"}
    assert new_sb.state == SandboxState.READY and new_sb.ip != sb.ip and new_sb.spec == SANDBOX_SPEC
    assert new_sb.container_ids == tuple(c.id for c in restored)
    assert [(c.name, c.state) for c in restored] == [("run", C.RUNNING), ("idle", C.CREATED)]
    assert restored[0].id != run.id and restored[0].log_path == f"{sb.log_directory}/run/0.log"
    assert restored[0].spec == CONTAINER_SPEC and restored[0].image_id == run.image_id
    said = events()
    assert [e.type.name for e in said] == ["CREATED", "STARTED", "CREATED", "CREATED", "STARTED"]
    assert all(isinstance(e, Event) for e in said)


def test_restore_pod_overrides(pods, runtime, tmp_path):
    sb = pods.sandbox("web", spec=SANDBOX_SPEC)
    pods.running(sb, "run")
    data = runtime.checkpoint_pod(sb.id)
    assert set(OVERRIDABLE) >= {"name", "uid", "log_directory", "spec"}
    new_sb, (c,) = runtime.restore_pod(data, uid="u-2", log_directory=str(tmp_path), spec=SandboxSpec(),
                                       namespace=None)  # None: the checkpoint's own
    assert (new_sb.name, new_sb.uid, new_sb.namespace, new_sb.spec) == ("web", "u-2", "default", SandboxSpec())
    assert c.log_path == f"{tmp_path}/run/0.log"  # the log path follows the new log directory
    with pytest.raises(TypeError, match="'hostname'"):
        runtime.restore_pod(data, uid="u-3", hostname="h")


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
    with pytest.raises(InvalidArgument, match="state is missing"):
        runtime.restore_pod(data, name="web-3")
    assert runtime.counts() == before
