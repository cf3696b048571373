"""The quirks' modules (fakecri.faults.quirk_kinds) on their own: each function over engine
records, the quirks in force and the fault plan, with no server around it. The live tests
(tests/server/test_conformance_quirks.py, test_bug_lab_quirks.py) show them over a socket."""
from __future__ import annotations

import pytest

from fakecri.engine import errors
from fakecri.engine.records import Event, EventType
from fakecri.faults.model import Fault
from fakecri.faults.plan import FaultPlan
from fakecri.faults.quirk_kinds import (
    created_at_seconds,
    deleted_on_stop,
    no_container_deleted_on_sandbox_remove,
    no_sandbox_deleted_event,
    stopped_as_created,
    stopped_before_started,
)
from fakecri.faults.quirks import Quirk


def _plan(*quirks: Quirk) -> FaultPlan:
    plan = FaultPlan(0, now_ns=lambda: 0)
    for q in quirks:
        plan.add(Fault(type="quirk", attributes={"name": q.value}))
    return plan


def _ev(type_: EventType, cid: str = "c1", *, sandbox: bool = False, at: int = 5_000_000_000) -> Event:
    return Event(type=type_, container_id="s1" if sandbox else cid, sandbox_id="s1", created_at=at,
                 is_sandbox=sandbox)


def test_a_quirk_off_changes_nothing_and_logs_nothing():
    plan = _plan()
    stopped = _ev(EventType.STOPPED)
    assert created_at_seconds.created_at(stopped, plan.quirks(), plan) == 5_000_000_000
    assert stopped_as_created.event_type(stopped, plan.quirks(), plan) == EventType.STOPPED
    assert deleted_on_stop.spurious_delete(stopped, plan.quirks(), plan) is None
    assert not no_sandbox_deleted_event.swallows(_ev(EventType.DELETED, sandbox=True), plan.quirks(), plan)
    assert plan.log == []


def test_a_quirk_on_acts_and_the_plan_logs_each_use_against_the_event():
    plan = _plan(Quirk.CREATED_AT_SECONDS, Quirk.STOPPED_AS_CREATED, Quirk.DELETED_ON_STOP)
    stopped = _ev(EventType.STOPPED)
    assert created_at_seconds.created_at(stopped, plan.quirks(), plan) == 5
    assert stopped_as_created.event_type(stopped, plan.quirks(), plan) == EventType.CREATED
    spurious = deleted_on_stop.spurious_delete(stopped, plan.quirks(), plan)
    assert spurious is not None and spurious.type == EventType.DELETED and spurious.container_id == "c1"
    assert [r.hit for r in plan.log] == ["STOPPED c1"] * 3
    # a sandbox's STOPPED is neither retyped nor followed by a DELETED
    assert stopped_as_created.event_type(_ev(EventType.STOPPED, sandbox=True), plan.quirks(), plan) == EventType.STOPPED


def test_stopped_before_started_holds_a_start_until_its_stop_overtakes_it():
    quirks = frozenset({Quirk.STOPPED_BEFORE_STARTED})
    held = stopped_before_started.HeldStart()
    assert held.take(_ev(EventType.STARTED), b"start", quirks) == []
    assert held.take(_ev(EventType.STOPPED), b"stop", quirks) == [b"stop", b"start"]
    assert held.release() == []
    # another container's event lets the held start go first
    assert held.take(_ev(EventType.STARTED), b"start", quirks) == []
    assert held.take(_ev(EventType.CREATED, "c2"), b"other", quirks) is None
    assert held.release() == [b"start"]
    assert held.take(_ev(EventType.STARTED), b"start", frozenset()) is None  # off


def test_quiet_sandboxes_swallow_their_containers_deletes_until_the_sandbox_goes():
    quiet = no_container_deleted_on_sandbox_remove.QuietSandboxes()
    quiet.add("s1")
    assert quiet.swallows(_ev(EventType.DELETED))
    assert not quiet.swallows(_ev(EventType.STOPPED))
    assert not quiet.swallows(_ev(EventType.DELETED, sandbox=True))
    assert not quiet.swallows(_ev(EventType.DELETED))  # the sandbox's own DELETED passed


def test_the_refused_remove_is_containerds_plain_error():
    from fakecri.faults.quirk_kinds.remove_exiting_unknown import still_running

    err = still_running("abc")
    assert isinstance(err, errors.CoreError) and err.code == "UNKNOWN"
    with pytest.raises(errors.CoreError, match="failed to set removing state for container 'abc': "
                                               "container is still running, to stop first"):
        raise err
