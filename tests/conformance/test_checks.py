"""The property checks on synthetic inputs: each catches the defect it is named after.

These prove the properties no fakecri fault can break (snapshot consistency, partial
pod views, cache monotonicity, the relist table, duplicate containers, cascades,
Stream* lists) and pin down the others' exact judgement.
"""
from __future__ import annotations

import time

import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.errors import NotFoundError
from fakecri.client.pleg.lifecycle import EventType
from fakecri.conformance import operations as op
from fakecri.conformance import properties as P
from fakecri.conformance.example import Example
from fakecri.conformance.expectations import (
    CREATED,
    DELETED,
    STARTED,
    STOPPED,
    ContainerModel,
    PodModel,
    Subscriber,
)
from fakecri.conformance.options import Options

RUNNING, EXITED = pb.CONTAINER_RUNNING, pb.CONTAINER_EXITED


class FakeEx:
    """Just what the event hooks use of an Example."""

    def __init__(self) -> None:
        self.violations: list[tuple[str, str]] = []
        self.by_id: dict[str, object] = {}
        self.pods: list[PodModel] = []
        self.subs: list[Subscriber] = []
        self.late: list[Subscriber] = []
        self.sentinel = None
        self.pod = PodModel(label="pod-1", name="p", uid="uid-1", config=pb.PodSandboxConfig(), sid="sb1",
                            created=True)
        self.c1 = ContainerModel(pod=self.pod, name="a", attempt=0, kind="long", cid="c1", created=True)
        self.c2 = ContainerModel(pod=self.pod, name="b", attempt=0, kind="long", cid="c2", created=True)
        self.pod.containers += [self.c1, self.c2]
        self.pods.append(self.pod)
        self.by_id = {"sb1": self.pod, "c1": self.c1, "c2": self.c2}

    def violate(self, prop, message):
        self.violations.append((prop.name, message))

    def exercised(self, prop, n=1):
        pass

    def owner(self, ident):
        return self.by_id.get(ident)

    def judged(self, sub, pod):
        return True

    def judged_for_all(self, owner):
        return True

    def now(self):
        return time.time_ns()

    def describe(self, ident):
        return repr(self.by_id.get(ident, ident))

    def describe_uid(self, uid):
        return uid

    def names(self) -> set[str]:
        return {name for name, _ in self.violations}


_clock = [time.time_ns()]


def ev(kind, ident, *, sandbox_state=pb.SANDBOX_READY, statuses=(), created_at=None, status=True):
    """An event about `ident` in pod-1; statuses are (id, state) pairs."""
    _clock[0] += 1000
    msg = pb.ContainerEventResponse(container_id=ident, container_event_type=kind,
                                    created_at=_clock[0] if created_at is None else created_at)
    if status:
        msg.pod_sandbox_status.CopyFrom(pb.PodSandboxStatus(
            id="sb1", state=sandbox_state, metadata=pb.PodSandboxMetadata(name="p", namespace="n", uid="uid-1")))
    for cid, state in statuses:
        msg.containers_statuses.append(pb.ContainerStatus(
            id=cid, state=state, started_at=1 if state != pb.CONTAINER_CREATED else 0,
            finished_at=1 if state == EXITED else 0))
    return msg


def feed(events, ex=None, sub=None):
    ex = ex or FakeEx()
    sub = sub or Subscriber("A", frozenset())
    sub.synced = True
    ex.subs.append(sub)
    props = [cls() for cls in P.ALL]
    for e in events:
        P.feed_event(ex, props, sub, e)
    return ex


def clean_stream():
    return [
        ev(CREATED, "sb1"), ev(STARTED, "sb1"),
        ev(CREATED, "c1", statuses=[("c1", pb.CONTAINER_CREATED)]),
        ev(STARTED, "c1", statuses=[("c1", RUNNING)]),
        ev(CREATED, "c2", statuses=[("c1", RUNNING), ("c2", pb.CONTAINER_CREATED)]),
        ev(STOPPED, "c1", statuses=[("c1", EXITED), ("c2", pb.CONTAINER_CREATED)]),
        ev(STOPPED, "sb1", sandbox_state=pb.SANDBOX_NOTREADY, statuses=[("c1", EXITED), ("c2", EXITED)]),
        ev(DELETED, "c1", sandbox_state=pb.SANDBOX_NOTREADY, statuses=[("c2", EXITED)]),
        ev(DELETED, "c2", sandbox_state=pb.SANDBOX_NOTREADY),
        ev(DELETED, "sb1", sandbox_state=pb.SANDBOX_NOTREADY),
    ]


def test_a_correct_stream_breaks_nothing():
    assert feed(clean_stream()).violations == []


def test_stopped_before_started_and_duplicates_break_event_order():
    s = clean_stream()
    assert "event-order-per-container" in feed(s[:3] + [s[5], s[3]]).names()
    assert "event-order-per-container" in feed(s[:4] + [s[3]]).names()


def test_snapshot_older_than_the_event_is_caught():
    s = clean_stream()
    stale_stop = ev(STOPPED, "c1", statuses=[("c1", RUNNING), ("c2", pb.CONTAINER_CREATED)])
    assert "snapshot-agrees-with-type" in feed(s[:5] + [stale_stop]).names()
    still_listed = ev(DELETED, "c1", sandbox_state=pb.SANDBOX_NOTREADY, statuses=[("c1", EXITED), ("c2", EXITED)])
    assert "snapshot-agrees-with-type" in feed(s[:7] + [still_listed]).names()
    ready_on_stop = ev(STOPPED, "sb1", statuses=[("c1", EXITED), ("c2", EXITED)])
    assert "snapshot-agrees-with-type" in feed(s[:6] + [ready_on_stop]).names()


def test_a_sandbox_only_view_is_a_partial_pod_view():
    s = clean_stream()
    sandbox_only = ev(STOPPED, "sb1", sandbox_state=pb.SANDBOX_NOTREADY)
    assert feed(s[:6] + [sandbox_only]).names() == {"no-partial-pod-view"}


def test_bracketing_order():
    s = clean_stream()
    early = feed([s[0], s[2]])  # container CREATED before sandbox STARTED
    assert "sandbox-bracketing" in early.names()
    deleted_first = feed(s[:7] + [s[9], s[7]])
    assert "sandbox-bracketing" in deleted_first.names()


def test_time_units_and_order():
    s = clean_stream()
    assert "created-at-nanoseconds-monotonic" in feed([ev(CREATED, "sb1", created_at=int(time.time()))]).names()
    backwards = ev(STARTED, "sb1", created_at=s[0].created_at - 10)
    assert "created-at-nanoseconds-monotonic" in feed([s[0], backwards]).names()


def test_missing_sandbox_status():
    assert feed([ev(CREATED, "sb1", status=False)]).names() >= {"sandbox-status-on-every-event"}


def test_stale_replay_against_the_baseline():
    late = Subscriber("late", frozenset({(CREATED, "sb1")}))
    assert "no-stale-replay" in feed([ev(CREATED, "sb1")], sub=late).names()


def test_two_subscribers_that_differ():
    ex = FakeEx()
    a, b = Subscriber("A", frozenset()), Subscriber("B", frozenset())
    ex.subs = [a, b]
    s = clean_stream()
    for e in s[:4]:
        a.on_event(e)
    for e in [s[0], s[1], s[3]]:
        b.on_event(e)
    P.SubscribersSeeSameSequence().check(ex, final=True)
    assert ex.names() == {"subscribers-see-same-sequence"}


def test_cache_regressions():
    assert P.cache_regressions([1, 2, 2, 3, None, 1, 5]) == []
    assert P.cache_regressions([1, 5, 4]) == [(5, 4)]


@pytest.mark.parametrize("kinds,removed,bad", [
    ([EventType.STARTED, EventType.DIED, EventType.REMOVED], True, False),
    ([], True, False),  # a life shorter than one period
    ([EventType.DIED, EventType.REMOVED], True, False),
    ([EventType.STARTED], False, False),
    ([EventType.STARTED], True, True),
    ([EventType.REMOVED], True, True),
    ([EventType.DIED, EventType.STARTED], False, True),
    ([EventType.STARTED, EventType.STARTED], False, True),
    ([EventType.CHANGED], False, True),
])
def test_relist_table(kinds, removed, bad):
    assert (P.relist_sequence_problem(kinds, removed=removed) is not None) is bad


def test_duplicate_live_containers():
    def c(cid, name, state, sid="sb1"):
        return pb.Container(id=cid, pod_sandbox_id=sid, state=state, metadata=pb.ContainerMetadata(name=name))
    fine = [c("1", "a", EXITED), c("2", "a", RUNNING), c("3", "a", RUNNING, sid="sb2")]
    assert P.duplicate_live(fine) == []
    assert P.duplicate_live(fine + [c("4", "a", pb.CONTAINER_CREATED)]) == [("sb1", "a")]


# ---------------------------------------------------------------- call-side checks, with a fake runtime


class FakeRun:
    run_id = "r1"
    focus = None
    image_ref = "sha256:busybox"
    log_root = None

    def __init__(self):
        self.recorded: list[tuple[str, str]] = []
        self.notes: list[tuple[str, str]] = []

    def timed(self, rpc, seconds):
        pass

    def saw(self, what, n=1):
        pass

    def make_log_dir(self, pod, container):
        pass

    def add_note(self, name, text):
        self.notes.append((name, text))

    def record(self, name, message, calls):
        self.recorded.append((name, message))

    def exercised(self, name, n=1):
        pass

    def note_skip(self, name, reason):
        self.recorded.append(("skip:" + name, reason))

    def enabled(self, name):
        return False  # no PLEG waits here


class SloppyRuntime:
    """A runtime whose StopPodSandbox leaves containers running, whose RemovePodSandbox
    leaves them listed, whose streamed list repeats an item, and which accepts a
    duplicate CreateContainer."""

    def __init__(self):
        self.unimplemented_streams: set[str] = set()
        self.removed = False

    def stop_pod_sandbox(self, sid):
        return None

    def remove_pod_sandbox(self, sid):
        self.removed = True

    def list_containers(self, filter=None, streaming=False):
        items = [pb.Container(id="c1", pod_sandbox_id="sb1", state=RUNNING, metadata=pb.ContainerMetadata(name="a"))]
        return items * 2 if streaming else items

    def container_status(self, cid):
        return pb.ContainerStatusResponse(status=pb.ContainerStatus(id=cid, state=RUNNING))

    def pod_sandbox_status(self, sid):
        raise NotFoundError("gone")

    def create_container(self, sid, config, sandbox_config=None):
        return "c-dup"


def sloppy_example():
    ex = Example.__new__(Example)
    ex.run, ex.client, ex.calls, ex.focus_violation, ex.cleaning = FakeRun(), SloppyRuntime(), [], None, False
    ex.opts = Options(endpoint="unix:///unused")
    fx = FakeEx()
    ex.by_id, ex.pods, ex.sentinels, ex.pleg = fx.by_id, fx.pods, [], None
    return ex, fx


def test_stop_and_remove_pod_must_cascade():
    ex, fx = sloppy_example()
    fx.c1.started = True
    op.stop_pod(ex, fx.pod)
    op.remove_pod(ex, fx.pod)
    names = [n for n, _ in ex.run.recorded]
    assert names.count("sandbox-stop-remove-cascades") >= 2


def test_streamed_list_with_a_repeat_differs_from_unary():
    ex, _ = sloppy_example()
    op.list_pair(ex, "ListContainers", ex.client.list_containers, {}, lambda c: (c.id, c.state))
    assert ("stream-lists-equal-unary", "StreamContainers repeats an item") in ex.run.recorded


def test_an_accepted_duplicate_create_is_caught():
    ex, fx = sloppy_example()
    op.create_duplicate(ex, fx.c1)
    assert [n for n, _ in ex.run.recorded] == ["no-duplicate-live-containers"]


class RetryingRuntime(SloppyRuntime):
    """Answers a repeated CreateContainer with the original's id and lists one container
    (CRI-O's idempotent retry)."""

    def create_container(self, sid, config, sandbox_config=None):
        return "c1"


def test_a_repeated_create_answered_with_the_same_id_is_an_idempotent_retry():
    ex, fx = sloppy_example()
    ex.client = RetryingRuntime()
    op.create_duplicate(ex, fx.c1)
    assert ex.run.recorded == []
    assert ex.by_id["c1"] is fx.c1 and fx.pod.containers == [fx.c1, fx.c2]  # the model keeps the original
    assert ex.run.notes and "idempotent retry" in ex.run.notes[0][1]


class RetryingTwiceListed(RetryingRuntime):
    def list_containers(self, filter=None, streaming=False):
        return [pb.Container(id="c1", pod_sandbox_id="sb1", state=RUNNING, metadata=pb.ContainerMetadata(name="a"))] * 2


def test_the_same_id_with_two_containers_listed_is_a_duplicate():
    ex, fx = sloppy_example()
    ex.client = RetryingTwiceListed()
    op.create_duplicate(ex, fx.c1)
    assert [n for n, _ in ex.run.recorded] == ["no-duplicate-live-containers"]
