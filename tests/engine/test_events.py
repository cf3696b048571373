"""Event order rules (docs/behaviour.md, Lifecycle rules): one per transition, bracketed by the sandbox's."""
from __future__ import annotations

from helpers.core_pods import check_order, kinds

from fakecri.engine.clock import FakeClock, SequentialIds
from fakecri.engine.records import ContainerState, Event, EventType, Output, SandboxState
from fakecri.engine.runtime import Runtime


def test_full_pod_lifecycle(pods, runtime, events):
    sb = pods.sandbox()
    c = pods.running(sb)
    runtime.stop_container(c.id, 5)
    runtime.remove_container(c.id)
    runtime.stop_pod_sandbox(sb.id)
    runtime.remove_pod_sandbox(sb.id)
    events = events()
    assert kinds(events) == [
        ("CREATED", "sb", "01"), ("STARTED", "sb", "01"), ("CREATED", "c", "02"), ("STARTED", "c", "02"),
        ("STOPPED", "c", "02"), ("DELETED", "c", "02"), ("STOPPED", "sb", "01"), ("DELETED", "sb", "01"),
    ]
    check_order(events)


def test_instant_exit_emits_started_then_stopped(pods, runtime, events):
    sb = pods.sandbox()
    events()
    c = pods.running(sb, command=["sh", "-c", "exit 3"])
    assert (c.state, c.exit_code, c.reason) == (ContainerState.EXITED, 3, "Error")
    assert kinds(events()) == [("CREATED", "c", "02"), ("STARTED", "c", "02"), ("STOPPED", "c", "02")]


def test_remove_sandbox_with_several_containers(pods, runtime, events):
    sb = pods.sandbox()
    a = pods.running(sb, "a")
    b = pods.running(sb, "b", command=["true"])  # already exited
    c = pods.container(sb, "c")  # never started
    events()
    runtime.remove_pod_sandbox(sb.id)
    events = events()
    sid, aid, bid, cid = sb.id[-2:], a.id[-2:], b.id[-2:], c.id[-2:]
    assert kinds(events) == [
        ("STOPPED", "c", aid), ("STOPPED", "sb", sid),
        ("DELETED", "c", aid), ("DELETED", "c", bid), ("DELETED", "c", cid), ("DELETED", "sb", sid),
    ]


def test_stop_sandbox_with_several_running_containers(pods, runtime, events):
    sb = pods.sandbox()
    cs = [pods.running(sb, f"c{i}") for i in range(3)]
    events()
    runtime.stop_pod_sandbox(sb.id)
    events = events()
    assert [(e.type.name, e.container_id) for e in events] == [("STOPPED", c.id) for c in cs] + [("STOPPED", sb.id)]


def test_many_pods_interleaved_keep_the_rules(pods, runtime, clock, events):
    sandboxes = [pods.sandbox() for _ in range(3)]
    for i, sb in enumerate(sandboxes):
        pods.running(sb, "sleeper", command=["sleep", str(i + 1)])
        pods.running(sb, "server")
        pods.running(sb, "quick", command=["false"])
    for _ in range(4):
        clock.advance(1)
        runtime.tick()
    runtime.remove_pod_sandbox(sandboxes[0].id)
    runtime.stop_pod_sandbox(sandboxes[1].id)
    runtime.remove_pod_sandbox(sandboxes[1].id)
    runtime.remove_pod_sandbox(sandboxes[2].id)
    check_order(events())


def test_each_event_carries_its_pod_as_it_was_at_that_moment(joined):
    rt = joined.runtime
    sb = rt.run_pod_sandbox(name="p", namespace="n", uid="u")
    c = rt.create_container(sb.id, name="x", image="busybox", command=("true",))
    d = rt.create_container(sb.id, name="y", image="busybox")
    rt.start_container(c.id)  # `true` exits at once
    rt.remove_container(c.id)
    rt.remove_pod_sandbox(sb.id)
    said = rt.drain_events()
    assert all(isinstance(e, Event) for e in said)  # `true` writes nothing
    seen = [(e.type.name, e.container_id[-2:], e.subject.state.name if e.subject is not None else None,
             e.sandbox.state.name if e.sandbox is not None else None,
             [(x.id[-2:], x.state.name) for x in e.containers]) for e in said]
    sid, cid, did = sb.id[-2:], c.id[-2:], d.id[-2:]
    assert seen == [
        ("CREATED", sid, "READY", "READY", []),
        ("STARTED", sid, "READY", "READY", []),
        ("CREATED", cid, "CREATED", "READY", [(cid, "CREATED")]),
        ("CREATED", did, "CREATED", "READY", [(cid, "CREATED"), (did, "CREATED")]),
        ("STARTED", cid, "RUNNING", "READY", [(cid, "RUNNING"), (did, "CREATED")]),
        ("STOPPED", cid, "EXITED", "READY", [(cid, "EXITED"), (did, "CREATED")]),
        ("DELETED", cid, "EXITED", "READY", [(did, "CREATED")]),  # its last record; the pod without it
        ("STOPPED", sid, "NOTREADY", "NOTREADY", [(did, "CREATED")]),
        ("DELETED", did, "CREATED", "NOTREADY", []),
        ("DELETED", sid, "NOTREADY", "NOTREADY", []),  # sent while the sandbox is still listed
    ]
    for e in said:  # the subject is the record in the pod snapshot, or the sandbox itself
        if e.is_sandbox:
            assert e.subject is e.sandbox and e.sandbox_id == e.container_id == sb.id
        else:
            assert e.subject.id == e.container_id and e.sandbox_id == sb.id
            assert all(x.id != e.container_id or x is e.subject for x in e.containers)
    assert said[5].subject.exit_code == 0 and said[5].subject.reason == "Completed"
    assert rt.drain_events() == []


def test_events_and_output_share_one_outbox_in_order(pods, runtime, clock):
    sb = pods.sandbox()
    runtime.drain_events()
    c = pods.running(sb, command=["sh", "-c", "echo a; sleep 1; echo b; exit 2"])
    clock.advance(1)
    runtime.tick()
    said = runtime.drain_events()
    assert [e.type.name if isinstance(e, Event) else e.text for e in said] == [
        "CREATED", "STARTED", "a\n", "b\n", "STOPPED"]
    assert all(isinstance(o, Output) and o.container_id == c.id and o.log_path == c.log_path for o in said[2:4])
    assert said[4].subject.exit_code == 2 and said[4].created_at == said[3].ts_ns == c.started_at + 1_000_000_000


def test_records_in_events_do_not_change_later(pods, runtime, events):
    sb = pods.sandbox()
    c = pods.running(sb)
    first = events()
    runtime.stop_pod_sandbox(sb.id)
    assert first[-1].type == EventType.STARTED and first[-1].subject.state == ContainerState.RUNNING
    assert first[0].sandbox.state == SandboxState.READY
    assert runtime.get_container(c.id).state == ContainerState.EXITED


class JumpyClock:
    """A clock that steps back once, as a wall clock can after an NTP correction."""

    is_fake = True

    def __init__(self):
        self.times = [5_000, 5_000, 4_000, 4_500, 6_000]  # created_at, CREATED, STARTED, ...

    def now_ns(self):
        return self.times.pop(0) if len(self.times) > 1 else self.times[0]


def test_created_at_never_goes_backwards():
    rt = Runtime(JumpyClock(), SequentialIds())
    rt.run_pod_sandbox(name="p", namespace="n", uid="u")  # created_at read, then CREATED, STARTED
    rt.run_pod_sandbox(name="q", namespace="n", uid="u")
    ts = [e.created_at for e in rt.drain_events()]
    assert ts == [5_000, 5_000, 6_000, 6_000]  # the 4_000 reading was lifted to 5_000


def test_outbox_is_bounded():
    rt = Runtime(FakeClock(), SequentialIds(), outbox_limit=3)
    for i in range(3):
        rt.run_pod_sandbox(name=f"p{i}", namespace="n", uid="u")
    assert len(rt.drain_events()) == 3


def test_an_event_carries_its_containers_images_as_they_were(pods, runtime, events):
    sb = pods.sandbox()
    c = pods.container(sb)
    created = events()[-1]
    assert created.type == EventType.CREATED and created.containers == (c,)
    assert created.images == {c.image_id: runtime.images.get(c.image_id)}
    assert created.images[c.image_id].repo_tags == ("docker.io/library/busybox:latest",)
    other = pods.container(sb, "other")
    runtime.images.remove(c.image_id)  # the image goes; the events said before still tell what it was
    assert created.images[c.image_id] is not None
    runtime.remove_container(c.id)
    deleted = events()[-1]
    assert deleted.type == EventType.DELETED and deleted.containers == (other,)
    assert deleted.images == {other.image_id: None}  # the store no longer holds it
