"""Event order rules (docs/behaviour.md, Lifecycle rules): one per transition, bracketed by the sandbox's."""
from __future__ import annotations

from helpers.core_pods import check_order, kinds

from fakecri.engine.clock import FakeClock
from fakecri.engine.ids import SequentialIds
from fakecri.engine.runtime import Runtime


def test_full_pod_lifecycle(pods, runtime):
    sb = pods.sandbox()
    c = pods.running(sb)
    runtime.stop_container(c.id, 5)
    runtime.remove_container(c.id)
    runtime.stop_pod_sandbox(sb.id)
    runtime.remove_pod_sandbox(sb.id)
    events = runtime.drain_events()
    assert kinds(events) == [
        ("CREATED", "sb", "01"), ("STARTED", "sb", "01"), ("CREATED", "c", "02"), ("STARTED", "c", "02"),
        ("STOPPED", "c", "02"), ("DELETED", "c", "02"), ("STOPPED", "sb", "01"), ("DELETED", "sb", "01"),
    ]
    check_order(events)


def test_instant_exit_emits_started_then_stopped(pods, runtime):
    sb = pods.sandbox()
    runtime.drain_events()
    c = pods.running(sb, command=["sh", "-c", "exit 3"])
    assert (c.exit_code, c.reason) == (3, "Error")
    assert kinds(runtime.drain_events()) == [("CREATED", "c", "02"), ("STARTED", "c", "02"), ("STOPPED", "c", "02")]


def test_remove_sandbox_with_several_containers(pods, runtime):
    sb = pods.sandbox()
    a = pods.running(sb, "a")
    b = pods.running(sb, "b", command=["true"])  # already exited
    c = pods.container(sb, "c")  # never started
    runtime.drain_events()
    runtime.remove_pod_sandbox(sb.id)
    events = runtime.drain_events()
    sid, aid, bid, cid = sb.id[-2:], a.id[-2:], b.id[-2:], c.id[-2:]
    assert kinds(events) == [
        ("STOPPED", "c", aid), ("STOPPED", "sb", sid),
        ("DELETED", "c", aid), ("DELETED", "c", bid), ("DELETED", "c", cid), ("DELETED", "sb", sid),
    ]


def test_stop_sandbox_with_several_running_containers(pods, runtime):
    sb = pods.sandbox()
    cs = [pods.running(sb, f"c{i}") for i in range(3)]
    runtime.drain_events()
    runtime.stop_pod_sandbox(sb.id)
    events = runtime.drain_events()
    assert [(e.type.name, e.container_id) for e in events] == [("STOPPED", c.id) for c in cs] + [("STOPPED", sb.id)]


def test_many_pods_interleaved_keep_the_rules(pods, runtime, clock):
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
    check_order(runtime.drain_events())


def test_on_event_is_called_synchronously_with_state_at_that_moment(clock):
    seen = []
    rt = None

    def hook(ev):
        c = rt._containers.get(ev.container_id)
        seen.append((ev.type.name, c.state.name if c is not None else None))

    rt = Runtime(clock, SequentialIds(), on_event=hook)
    sb = rt.run_pod_sandbox(name="p", namespace="n", uid="u")
    from helpers.core_pods import IMAGE
    c = rt.create_container(sb.id, name="x", image=IMAGE, command=("true",))
    rt.start_container(c.id)
    rt.remove_container(c.id)
    assert seen[2:] == [("CREATED", "CREATED"), ("STARTED", "RUNNING"), ("STOPPED", "EXITED"), ("DELETED", None)]
    assert len(rt.drain_events()) == 6


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
