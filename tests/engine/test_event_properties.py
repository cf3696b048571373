"""Random operation sequences never break the event order rules or the table's states."""
from __future__ import annotations

from helpers.core_pods import Joined, check_order
from hypothesis import given, settings
from hypothesis import strategies as st

from fakecri.engine.errors import CoreError
from fakecri.engine.records import Event

COMMANDS = [("sleep", "infinity"), ("sleep", "1"), ("true",), ("sh", "-c", "exit 4"), ("nginx",)]
ANNOTATIONS = [{}, {"fakecri.io/stop-delay": "2s"}, {"fakecri.io/oom-after": "1500ms"},
               {"fakecri.io/fail-start": "true"}, {"fakecri.io/log-every": "500ms"}]

op = st.one_of(
    st.tuples(st.just("run"), st.integers(0, 3)),
    st.tuples(st.just("create"), st.integers(0, 3), st.integers(0, 4), st.integers(0, 4)),
    st.tuples(st.sampled_from(["start", "stop", "remove", "exit"]), st.integers(0, 11)),
    st.tuples(st.sampled_from(["stop_pod", "remove_pod"]), st.integers(0, 3)),
    st.tuples(st.just("advance"), st.sampled_from([0.5, 1, 3])),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(op, max_size=40))
def test_any_sequence_keeps_the_rules(ops):
    joined = Joined()
    clock, rt = joined.clock, joined.runtime
    sandboxes: list[str] = []
    containers: list[str] = []
    for i, (kind, *a) in enumerate(ops):
        try:
            if kind == "run":
                sandboxes.append(rt.run_pod_sandbox(name=f"p{a[0]}", namespace="n", uid=str(i)).id)
            elif kind == "create" and sandboxes:
                sid = sandboxes[a[0] % len(sandboxes)]
                c = rt.create_container(sid, name=f"c{i}", image="busybox", command=COMMANDS[a[1]],
                                        annotations=ANNOTATIONS[a[2]])
                containers.append(c.id)
            elif kind in ("start", "stop", "remove", "exit") and containers:
                cid = containers[a[0] % len(containers)]
                if kind == "start":
                    rt.start_container(cid)
                elif kind == "stop":
                    rt.stop_container(cid, 1)
                elif kind == "remove":
                    rt.remove_container(cid)
                else:
                    rt.exit_container(cid, 9)
            elif kind in ("stop_pod", "remove_pod") and sandboxes:
                sid = sandboxes[a[0] % len(sandboxes)]
                (rt.stop_pod_sandbox if kind == "stop_pod" else rt.remove_pod_sandbox)(sid)
            elif kind == "advance":
                clock.advance(a[0])
                rt.tick()
        except CoreError as exc:
            assert exc.code in ("NOT_FOUND", "FAILED_PRECONDITION", "UNKNOWN", "ALREADY_EXISTS"), exc
    for sid in list(sandboxes):
        rt.remove_pod_sandbox(sid)
    events = [e for e in rt.drain_events() if isinstance(e, Event)]
    check_order(events)
    for e in events:  # each event's pod snapshot holds the subject as it was then
        if not e.is_sandbox and e.type.name != "DELETED":
            assert e.subject in e.containers and e.sandbox.id == e.sandbox_id
    counts = rt.counts()
    assert (counts["sandboxes"], counts["containers"], counts["running"]) == (0, 0, 0)
    assert rt.next_deadline_ns() is None
    created = {e.container_id for e in events if e.type.name == "CREATED" and not e.is_sandbox}
    deleted = {e.container_id for e in events if e.type.name == "DELETED" and not e.is_sandbox}
    assert created == deleted == set(containers)
