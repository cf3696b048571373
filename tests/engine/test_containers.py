"""CreateContainer / Start / Stop / Remove, lookups, filters and resource updates."""
from __future__ import annotations

import os

import pytest
from helpers.core_pods import IMAGE, Joined

from fakecri.engine.clock import SequentialIds
from fakecri.engine.codec import to_data
from fakecri.engine.errors import (
    AlreadyExists,
    CoreError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
)
from fakecri.engine.images import Pullable
from fakecri.engine.ports import NoPrograms
from fakecri.engine.records import ContainerState, Image, Limits, Resources
from fakecri.engine.runtime import Runtime
from fakecri.engine.specs import ContainerSpec
from fakecri.server.host.log_files import LogFiles

C = ContainerState


def test_create_fills_the_record(pods, runtime, clock):
    sb = pods.sandbox()
    spec = ContainerSpec(working_dir="/w", envs=(("A", "1"),))
    c = pods.container(sb, "app", command=["nginx"], args=["-g", "daemon off;"], labels={"k": "v"},
                       annotations={"a": "b"}, resources=Resources(cpu_shares=256), spec=spec)
    assert c.state == C.CREATED and c.sandbox_id == sb.id and c.created_at == clock.now_ns()
    assert (c.image, c.image_ref, c.image_id) == ("busybox", IMAGE.repo_digests[0], IMAGE.id)
    assert c.command == ("nginx",) and c.args == ("-g", "daemon off;")
    assert c.labels == {"k": "v"} and c.annotations == {"a": "b"} and c.resources.cpu_shares == 256
    assert c.log_path == f"{sb.log_directory}/app/0.log" and c.spec is spec
    assert runtime.get_container(c.id) is c
    assert sb.container_ids == () and runtime.get_sandbox(sb.id).container_ids == (c.id,)


def test_image_may_be_named_by_tag_digest_or_id(pods, runtime):
    sb = pods.sandbox()
    for n, ref in enumerate(["busybox:latest", IMAGE.repo_digests[0], IMAGE.id, IMAGE.id[7:19]]):
        c = pods.container(sb, f"c{n}", image=ref)
        assert (c.image, c.image_ref, c.image_id) == (ref, IMAGE.repo_digests[0], IMAGE.id)
    with pytest.raises(NotFound, match="'nginx:1.25'"):
        pods.container(sb, "missing", image="nginx:1.25")  # not pulled into this runtime


def test_empty_log_path_stays_empty(pods):
    assert pods.container(pods.sandbox(), log_path="").log_path == ""


def test_image_ref_falls_back_to_id_without_digest(pods, runtime):
    img = Image(id="sha256:" + "1" * 64, repo_tags=("docker.io/local/x:1",), repo_digests=(), size=1)
    runtime.images.load({"images": [to_data(img)]})  # an image known without a digest (loaded, not pulled)
    c = runtime.create_container(pods.sandbox().id, name="x", image="local/x:1")
    assert (c.image, c.image_ref, c.image_id) == ("local/x:1", img.id, img.id)


def test_name_attempt_unique_per_sandbox(pods):
    sb, other = pods.sandbox(), pods.sandbox()
    first = pods.container(sb, "app")
    with pytest.raises(AlreadyExists, match=f"'app' \\(attempt 0\\) already exists in sandbox {sb.id} as {first.id}"):
        pods.container(sb, "app")
    pods.container(sb, "app", attempt=1)
    pods.container(other, "app")


def test_name_is_reusable_after_remove(pods, runtime):
    sb = pods.sandbox()
    runtime.remove_container(pods.container(sb, "app").id)
    assert pods.container(sb, "app").state == C.CREATED


def test_container_name_required(pods):
    with pytest.raises(InvalidArgument, match="metadata.name"):
        pods.container(pods.sandbox(), name="")


def test_start_only_from_created(pods, runtime):
    c = pods.running(pods.sandbox())
    assert c.state == C.RUNNING and c.started_at > 0
    with pytest.raises(FailedPrecondition, match=f"cannot start container {c.id}: it is RUNNING"):
        runtime.start_container(c.id)
    runtime.stop_container(c.id, 0)
    assert c.state == C.RUNNING  # the record handed out stays as it was
    with pytest.raises(FailedPrecondition, match="it is EXITED"):
        runtime.start_container(c.id)
    with pytest.raises(NotFound, match="'nope'"):
        runtime.start_container("nope")


def test_stop_is_idempotent(pods, runtime):
    sb = pods.sandbox()
    c = pods.running(sb, command=("nginx",))  # a program that exits at once on SIGTERM
    assert runtime.stop_container(c.id, 10) == 0.0
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.reason) == (C.EXITED, 0, "Completed")
    created = pods.container(sb, "idle")
    changes = runtime.changes
    assert runtime.stop_container(c.id, 10) == 0.0
    assert runtime.stop_container("f" * 64, 10) == 0.0
    assert runtime.stop_container(created.id, 10) == 0.0
    assert runtime.get_container(created.id) is created and created.state == C.CREATED
    assert runtime.get_container(c.id) is c and runtime.changes == changes


def test_remove_kills_running_first_and_is_idempotent(pods, runtime, events):
    c = pods.running(pods.sandbox())
    events()
    runtime.remove_container(c.id)
    said = events()
    assert [e.type.name for e in said] == ["STOPPED", "DELETED"]
    stopped = said[0].subject
    assert (stopped.state, stopped.exit_code, stopped.reason) == (C.EXITED, 137, "Error")
    assert said[1].subject is stopped  # DELETED carries the last record
    runtime.remove_container(c.id)
    assert events() == []
    with pytest.raises(NotFound):
        runtime.get_container(c.id)


def test_list_filters(pods, runtime):
    a, b = pods.sandbox(), pods.sandbox()
    a1 = pods.running(a, "one", labels={"tier": "web", "x": "1"})
    a2 = pods.container(a, "two", labels={"tier": "web"})
    b1 = pods.running(b, "one", labels={"tier": "db"})
    assert runtime.list_containers() == [a1, a2, b1]
    assert runtime.list_containers(sandbox_id=a.id) == [a1, a2]
    assert runtime.list_containers(sandbox_id=a.id, state=C.RUNNING) == [a1]
    assert runtime.list_containers(label_selector={"tier": "web"}) == [a1, a2]
    assert runtime.list_containers(label_selector={"tier": "web", "x": "1"}) == [a1]
    assert runtime.list_containers(id=b1.id) == [b1]
    assert runtime.list_containers(id=b1.id, sandbox_id=a.id) == []
    assert runtime.list_containers(id=b1.id, state=C.EXITED) == []
    assert runtime.list_containers(sandbox_id="f" * 64) == []
    assert runtime.list_containers(id="f" * 64) == []


def test_container_limit(clock):
    rt = Joined(clock, limits=Limits(max_containers=1)).runtime
    sb = rt.run_pod_sandbox(name="p", namespace="n", uid="u")
    rt.create_container(sb.id, name="a", image="busybox")
    with pytest.raises(ResourceExhausted, match="'b'"):
        rt.create_container(sb.id, name="b", image="busybox")


@pytest.mark.parametrize("res,problem", [
    (Resources(cpu_shares=-1), "cpu_shares -1 is negative"),
    (Resources(cpu_shares=1), "cpu_shares 1"),
    (Resources(cpu_shares=262145), "cpu_shares 262145"),
    (Resources(cpu_period=999), "cpu_period 999"),
    (Resources(cpu_period=1_000_001), "cpu_period 1000001"),
    (Resources(cpu_quota=-2), "cpu_quota -2"),
    (Resources(cpu_quota=999), "cpu_quota 999"),
    (Resources(oom_score_adj=-1001), "oom_score_adj -1001"),
    (Resources(oom_score_adj=1001), "oom_score_adj 1001"),
    (Resources(memory_limit_in_bytes=4 * 1024 * 1024 - 1), "below 4 MiB"),
    (Resources(memory_limit_in_bytes=-5), "memory_limit_in_bytes -5 is negative"),
    (Resources(cpuset_cpus="0-3,x"), "cpuset_cpus '0-3,x'"),
    (Resources(cpuset_mems="3-1"), "cpuset_mems '3-1'"),
    (Resources(hugepage_limits=(("2MB", -1),)), "hugepage limit for 2MB"),
])
def test_invalid_resource_updates_change_nothing(pods, runtime, res, problem):
    c = pods.running(pods.sandbox(), resources=Resources(cpu_shares=512, memory_limit_in_bytes=64 << 20))
    changes = runtime.changes
    with pytest.raises(InvalidArgument) as exc:
        runtime.update_container_resources(c.id, res)
    assert problem in exc.value.message and c.id in exc.value.message
    assert runtime.get_container(c.id) is c and c.resources.cpu_shares == 512 and runtime.changes == changes


@pytest.mark.parametrize("res", [
    Resources(), Resources(cpu_shares=2), Resources(cpu_shares=262144), Resources(cpu_period=100000, cpu_quota=-1),
    Resources(cpu_period=1000,
              cpu_quota=1000), Resources(oom_score_adj=-1000), Resources(memory_limit_in_bytes=4 << 20),
    Resources(cpuset_cpus="0-3,5", cpuset_mems="0"), Resources(memory_swap_limit_in_bytes=-1),
])
def test_valid_resource_updates_are_stored(pods, runtime, res):
    c = pods.running(pods.sandbox(), annotations={"a": "b"})
    changes = runtime.changes
    runtime.update_container_resources(c.id, res)
    after = runtime.get_container(c.id)
    assert after.resources == res and after is not c and runtime.changes > changes
    assert after.annotations == {"a": "b"} and (after.state, after.started_at) == (c.state, c.started_at)


def test_invalid_create_resources_create_nothing(pods, runtime):
    sb = pods.sandbox()
    with pytest.raises(InvalidArgument, match="'app'"):
        pods.container(sb, "app", resources=Resources(cpu_quota=5))
    assert runtime.list_containers() == [] and runtime.get_sandbox(sb.id).container_ids == ()


def test_update_exited_container_is_failed_precondition(pods, runtime):
    c = pods.running(pods.sandbox())
    runtime.stop_container(c.id, 0)
    with pytest.raises(FailedPrecondition, match="update the resources of container"):
        runtime.update_container_resources(c.id, Resources())


def test_exit_container_from_control_plane(pods, runtime):
    c = pods.running(pods.sandbox())
    runtime.exit_container(c.id, 2, message="boom")
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.reason, c.message) == (C.EXITED, 2, "Error", "boom")
    with pytest.raises(FailedPrecondition):
        runtime.exit_container(c.id, 1)


def test_reopen_log(pods, runtime, tmp_path):
    c = pods.running(pods.sandbox(log_directory=str(tmp_path)))
    assert runtime.check_reopen_log(c.id) is c
    LogFiles().reopen(c.log_path)  # what the server then does with the record
    assert os.path.exists(tmp_path / "app" / "0.log")
    runtime.stop_container(c.id, 0)
    with pytest.raises(FailedPrecondition, match="reopen the log of container"):
        runtime.check_reopen_log(c.id)
    pods.container(pods.sandbox(), "idle")
    with pytest.raises(FailedPrecondition, match="it is CREATED"):
        runtime.check_reopen_log(runtime.list_containers(state=C.CREATED)[0].id)


def test_core_errors_carry_grpc_code_names(runtime):
    with pytest.raises(CoreError) as exc:
        runtime.get_container("x" * 64)
    assert exc.value.code == "NOT_FOUND"


def test_start_needs_a_ready_sandbox(pods, runtime):
    sb = pods.sandbox()
    c = pods.container(sb)
    runtime.stop_pod_sandbox(sb.id)
    with pytest.raises(FailedPrecondition, match=f"start a container in sandbox {sb.id}: it is NOTREADY"):
        runtime.start_container(c.id)
    assert runtime.get_container(c.id).state == C.CREATED


def test_removed_cpu_is_kept_per_sandbox(pods, runtime, joined, clock):
    sb = pods.sandbox()
    a = pods.running(sb, "a")
    clock.advance(30)
    runtime.stop_container(a.id, 0)
    a = runtime.get_container(a.id)
    used = joined.sim.cpu_used_ns(a, sb, clock.now_ns())  # the Programs port the engine asks
    assert used > 0 and runtime.removed_cpu_ns(sb.id) == 0
    clock.advance(30)
    runtime.remove_container(a.id)
    assert runtime.removed_cpu_ns(sb.id) == used  # frozen at the exit, not at the removal
    runtime.remove_pod_sandbox(sb.id)
    assert runtime.removed_cpu_ns(sb.id) == 0


class OneImage:
    """A registry that has every reference, as busybox (the Registry port)."""

    def lookup(self, ref, auth):
        return Pullable(digest=IMAGE.repo_digests[0].split("@")[1], id=IMAGE.id, size=IMAGE.size, pull_duration_s=0)


class SevenNs(NoPrograms):
    """Programs that say each container used 7 ns of CPU, and record what they were asked."""

    def __init__(self):
        self.asked = []

    def cpu_used_ns(self, container, sandbox, now_ns):
        self.asked.append((container.id, container.state, now_ns))
        return 7


def test_removed_cpu_is_what_the_programs_say(clock):
    programs = SevenNs()
    rt = Runtime(clock, SequentialIds(), programs=programs, registry=OneImage())
    rt.images.pull("busybox")
    sb = rt.run_pod_sandbox(name="p", namespace="n", uid="u")
    c = rt.create_container(sb.id, name="x", image="busybox")
    rt.start_container(c.id)
    clock.advance(3)
    rt.remove_container(c.id)
    assert rt.removed_cpu_ns(sb.id) == 7
    assert programs.asked == [(c.id, C.EXITED, clock.now_ns())]  # asked of the last record, once
    d = rt.create_container(sb.id, name="y", image="busybox")
    rt.remove_container(d.id)
    assert rt.removed_cpu_ns(sb.id) == 14
