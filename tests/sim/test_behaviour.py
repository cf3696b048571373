"""Scripted container behaviour: fakecri.io/ annotations, stops, probes and exec."""
from __future__ import annotations

import math

import pytest

from fakecri.engine.durations import parse_duration_ns
from fakecri.engine.errors import CoreError, FailedPrecondition, InvalidArgument
from fakecri.engine.records import ContainerState
from fakecri.sim.behaviour import build_plan, run_exec

C = ContainerState
S = 1_000_000_000


@pytest.mark.parametrize("text,ns", [("500ms", S // 2), ("3s", 3 * S), ("2m", 120 * S), ("1.5s", 3 * S // 2),
                                     ("1m30s", 90 * S), ("2", 2 * S), ("0.25", S // 4), ("10us", 10_000), ("1h",
                                                                                                           3600 * S)])
def test_durations(text, ns):
    assert parse_duration_ns(text) == ns


@pytest.mark.parametrize("text", ["", "abc", "3x", "-1s", "1s2", "s"])
def test_bad_durations(text):
    with pytest.raises(ValueError):
        parse_duration_ns(text)


def test_forever_only_when_allowed():
    assert parse_duration_ns("never", allow_forever=True) is None
    with pytest.raises(ValueError):
        parse_duration_ns("never")


def test_exit_after_with_code(pods, runtime, clock):
    c = pods.running(pods.sandbox(), annotations={"fakecri.io/exit-after": "3s", "fakecri.io/exit-code": "4"})
    assert runtime.next_deadline_ns() == c.started_at + 3 * S
    clock.advance(2.9)
    runtime.tick()
    assert runtime.get_container(c.id).state == C.RUNNING
    clock.advance(0.1)
    runtime.tick()
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.reason, c.finished_at) == (C.EXITED, 4, "Error", c.started_at + 3 * S)


def test_scripted_exit_replaces_the_commands_own_end(pods, runtime, clock):
    c = pods.running(pods.sandbox(), command=["sleep", "1"], annotations={"fakecri.io/exit-after": "5s"})
    clock.advance(1)
    runtime.tick()
    assert runtime.get_container(c.id).state == C.RUNNING
    clock.advance(4)
    runtime.tick()
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.reason, c.finished_at) == (C.EXITED, 0, "Completed", c.started_at + 5 * S)


def test_oom_after(pods, runtime, clock, events):
    c = pods.running(pods.sandbox(), annotations={"fakecri.io/oom-after": "500ms"})
    clock.advance(0.5)
    runtime.tick()
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.reason) == (C.EXITED, 137, "OOMKilled")
    said = [e for e in events() if not e.is_sandbox]
    assert [e.type.name for e in said] == ["CREATED", "STARTED", "STOPPED"]
    assert said[-1].subject.reason == "OOMKilled"


def test_timer_exit_emits_the_same_events_as_a_stop(pods, runtime, clock, events):
    sb = pods.sandbox()
    events()
    pods.running(sb, "a", command=["sleep", "1"])
    clock.advance(1)
    runtime.tick()
    timer_events = [e.type for e in events()]
    b = pods.running(sb, "b")  # sleep infinity: it ignores SIGTERM, so the stop ends with the kill
    assert runtime.stop_container(b.id, 1) == 1.0
    clock.advance(1)
    runtime.tick()
    assert [e.type for e in events()] == timer_events


def test_fail_start_leaves_container_exited_with_start_error(pods, runtime, events):
    sb = pods.sandbox()
    events()
    c = pods.container(sb, annotations={"fakecri.io/fail-start": "exec: no such file"})
    with pytest.raises(CoreError) as exc:
        runtime.start_container(c.id)
    assert c.id in exc.value.message and "exec: no such file" in exc.value.message
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.reason) == (C.EXITED, 128, "StartError")
    assert c.started_at == 0 and c.finished_at > 0 and "no such file" in c.message
    assert [e.type.name for e in events()] == ["CREATED", "STOPPED"]
    with pytest.raises(FailedPrecondition):
        runtime.start_container(c.id)


def test_pod_annotations_script_all_or_one_container(pods, runtime, clock):
    sb = pods.sandbox(annotations={"fakecri.io/exit-after": "1s", "fakecri.io/exit-after.db": "2s",
                                   "fakecri.io/exit-code.db": "5"})
    web = pods.running(sb, "web")
    db = pods.running(sb, "db")
    own = pods.running(sb, "own", annotations={"fakecri.io/exit-after": "3s"})
    def now(c):
        return runtime.get_container(c.id)

    clock.advance(1)
    runtime.tick()
    assert (now(web).state, now(web).exit_code, now(db).state) == (C.EXITED, 0, C.RUNNING)
    clock.advance(1)
    runtime.tick()
    assert (now(db).state, now(db).exit_code, now(own).state) == (C.EXITED, 5, C.RUNNING)
    clock.advance(1)
    runtime.tick()
    assert now(own).state == C.EXITED


@pytest.mark.parametrize("annotations,named", [
    ({"fakecri.io/exit-after": "soon"}, "fakecri.io/exit-after"),
    ({"fakecri.io/exit-after": "1s", "fakecri.io/exit-code": "300"}, "fakecri.io/exit-code"),
    ({"fakecri.io/exit-code": "3"}, "fakecri.io/exit-code"),
    ({"fakecri.io/oom-after": "-1s"}, "fakecri.io/oom-after"),
    ({"fakecri.io/log-every": "0s"}, "fakecri.io/log-every"),
    ({"fakecri.io/log-stream": "stdin"}, "fakecri.io/log-stream"),
    ({"fakecri.io/stop-delay": "later"}, "fakecri.io/stop-delay"),
    ({"fakecri.io/stop-exit-code": "x"}, "fakecri.io/stop-exit-code"),
    ({"fakecri.io/probes": "cat /ready"}, "fakecri.io/probes"),
    ({"fakecri.io/probes": "* = maybe"}, "fakecri.io/probes"),
    ({"fakecri.io/probes": "* = fail-after soon"}, "fakecri.io/probes"),
])
def test_bad_annotation_is_invalid_argument_at_create(pods, runtime, annotations, named):
    sb = pods.sandbox()
    with pytest.raises(InvalidArgument, match=named):
        pods.container(sb, annotations=annotations)
    assert runtime.list_containers() == []


def test_unrelated_annotations_are_ignored(pods):
    c = pods.running(pods.sandbox(), annotations={"fakecri.io/unknown": "x", "other": "y"})
    assert c.state == C.RUNNING


SLEEP = ("sleep", "infinity")  # ignores SIGTERM as PID 1
NGINX = ("nginx", "-g", "daemon off;")  # takes it and exits 0 at once


@pytest.mark.parametrize("command,annotations,timeout,delay,code", [
    (SLEEP, {}, 30, 30.0, 137),
    (NGINX, {}, 30, 0.0, 0),
    (NGINX, {}, 0, 0.0, 137),  # a timeout of 0 is SIGKILL at once, whatever the program
    (SLEEP, {}, 0, 0.0, 137),
    (SLEEP, {"fakecri.io/stop-delay": "5s"}, 30, 5.0, 0),
    (SLEEP, {"fakecri.io/stop-delay": "5s", "fakecri.io/stop-exit-code": "143"}, 30, 5.0, 143),
    (SLEEP, {"fakecri.io/stop-exit-code": "143"}, 2, 0.0, 143),
    (NGINX, {"fakecri.io/stop-delay": "5s"}, 2, 2.0, 137),
    (NGINX, {"fakecri.io/stop-delay": "never"}, 10, 10.0, 137),
    (NGINX, {"fakecri.io/stop-delay": "never"}, 0, 0.0, 137),
    (("agnhost", "netexec"), {}, 30, 0.0, 2),
    (("agnhost", "netexec"), {"fakecri.io/stop-exit-code": "0"}, 30, 0.0, 0),
])
def test_stop_codes(pods, runtime, clock, command, annotations, timeout, delay, code):
    c = pods.running(pods.sandbox(), command=command, annotations=annotations)
    assert runtime.stop_container(c.id, timeout) == delay
    if delay:
        assert runtime.get_container(c.id).state == C.RUNNING
        clock.advance(delay)
        runtime.tick()
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code) == (C.EXITED, code)
    assert c.reason == ("Completed" if code == 0 else "Error")


def test_second_stop_with_shorter_timeout_kills_sooner(pods, runtime, clock, events):
    c = pods.running(pods.sandbox(), annotations={"fakecri.io/stop-delay": "never"})
    assert runtime.stop_container(c.id, 30) == 30.0
    assert runtime.stop_container(c.id, 60) == 30.0  # the pending stop ends first
    clock.advance(1)
    assert runtime.stop_container(c.id, 0) == 0.0
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.finished_at) == (C.EXITED, 137, clock.now_ns())
    clock.advance(30)
    runtime.tick()  # the old stop timer is stale and does nothing
    assert [e.type.name for e in events()].count("STOPPED") == 1


def test_complete_stop_finishes_a_pending_stop(pods, runtime):
    c = pods.running(pods.sandbox(), annotations={"fakecri.io/stop-delay": "2s", "fakecri.io/stop-exit-code": "143"})
    runtime.stop_container(c.id, 10)
    runtime.complete_stop(c.id)
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.finished_at) == (C.EXITED, 143, c.started_at + 2 * S)  # dated when it fell due
    runtime.complete_stop(c.id)
    runtime.complete_stop("missing")
    assert runtime.next_deadline_ns() is None


def test_natural_exit_during_slow_stop_wins(pods, runtime, clock, events):
    c = pods.running(pods.sandbox(), command=["sleep", "1"], annotations={"fakecri.io/stop-delay": "5s"})
    assert runtime.stop_container(c.id, 30) == 1.0  # the caller only waits for the earlier exit
    clock.advance(5)
    runtime.tick()
    c = runtime.get_container(c.id)
    assert (c.exit_code, c.finished_at) == (0, c.started_at + S)
    assert [e.type.name for e in events()].count("STOPPED") == 1


def test_exec_sync_runs_the_interpreter(pods, joined):
    c = pods.running(pods.sandbox())
    joined.events()
    changes = joined.runtime.changes
    r = joined.exec_sync(c.id, ["sh", "-c", "echo hi; echo oops >&2; exit 3"], 5)
    assert (r.stdout, r.stderr, r.exit_code, r.duration_s, r.timed_out) == (b"hi\n", b"oops\n", 3, 0.0, False)
    r = joined.exec_sync(c.id, ["cat"], 5, stdin=b"data")
    assert r.stdout == b"data"
    r = joined.exec_sync(c.id, ["sleep", "2"], 5)
    assert (r.duration_s, r.timed_out, r.exit_code) == (2.0, False, 0)
    r = joined.exec_sync(c.id, ["sleep", "10"], 3)
    assert (r.duration_s, r.timed_out) == (3.0, True)
    r = joined.exec_sync(c.id, ["sleep", "10"], 0)
    assert (r.duration_s, r.timed_out) == (10.0, False)
    assert joined.exec_sync(c.id, ["pg_isready"], 1).exit_code == 127  # not found, as in busybox
    with pytest.raises(InvalidArgument, match=c.id):
        joined.exec_sync(c.id, [], 1)
    # An exec changes no record and writes nothing to the container's log.
    assert joined.events() == [] and joined.log.lines(c.log_path) == [] and joined.runtime.changes == changes
    assert joined.runtime.get_container(c.id) is c


def test_exec_needs_running(pods, runtime, joined):
    sb = pods.sandbox()
    c = pods.container(sb)
    with pytest.raises(FailedPrecondition, match=f"exec in container {c.id}: it is CREATED"):
        joined.exec_sync(c.id, ["true"], 1)
    runtime.start_container(c.id)
    assert runtime.check_exec(c.id) is runtime.get_container(c.id)
    runtime.stop_container(c.id, 0)
    with pytest.raises(FailedPrecondition, match="it is EXITED"):
        runtime.check_exec(c.id)


def test_scripted_probes(pods, joined, clock):
    probes = "\n".join([
        "# readiness and liveness",
        "cat /tmp/ready = ok-after 2s",
        "/bin/check live* = fail-after 10s",
        "broken = fail",
        "* = ok",
    ])
    c = pods.running(pods.sandbox(), annotations={"fakecri.io/probes": probes})
    ready, live = ["cat", "/tmp/ready"], ["/bin/check", "liveness"]
    assert joined.exec_sync(c.id, ready, 1).exit_code == 1
    assert joined.exec_sync(c.id, live, 1).exit_code == 0
    fail = joined.exec_sync(c.id, ["broken"], 1)
    assert fail.exit_code == 1 and b"broken" in fail.stderr
    assert joined.exec_sync(c.id, ["sh", "-c", "exit 5"], 1).exit_code == 0  # "*" wins over the interpreter
    clock.advance(2)
    assert joined.exec_sync(c.id, ready, 1).exit_code == 0
    clock.advance(8)
    assert joined.exec_sync(c.id, live, 1).exit_code == 1


def test_run_exec_without_a_runtime():
    assert run_exec(["echo", "a", "b"]).stdout == b"a b\n"
    forever = run_exec(["sleep", "infinity"], 0)
    assert forever.duration_s == math.inf and not forever.timed_out
    capped = run_exec(["sh", "-c", "echo early; sleep 5; echo late"], 1)
    assert (capped.stdout, capped.timed_out, capped.duration_s, capped.exit_code) == (b"early\n", True, 1.0, 137)


def test_plan_is_shared_for_identical_specs(pods, joined):
    sb = pods.sandbox()
    a = pods.container(sb, "a", command=["sleep", "5"])
    b = pods.container(sb, "b", command=["sleep", "5"])
    assert joined.sim.plan(a, sb, None) is joined.sim.plan(b, sb, None)
    other = pods.container(sb, "c", command=["sleep", "6"])
    assert joined.sim.plan(a, sb, None) is not joined.sim.plan(other, sb, None)
    assert build_plan(["sleep", "5"], [], {}).end_ns == 5 * S


def test_every_annotation_is_documented():
    from pathlib import Path

    from fakecri.sim.behaviour import KEYS
    doc = (Path(__file__).resolve().parents[2] / "docs" / "behaviour.md").read_text()
    assert [k for k in KEYS if f"`{k}`" not in doc] == []
