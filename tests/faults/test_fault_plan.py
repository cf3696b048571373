"""FaultPlan: the collection, and the decisions for calls, pulls, quirks, conditions, restarts."""
import pytest

from fakecri.engine import errors
from fakecri.faults import (
    CallAction,
    ConditionOverride,
    Fault,
    FaultPlan,
    PullAction,
    RestartAction,
    parse_error,
)

NS = 1_000_000_000


class Clock:
    def __init__(self) -> None:
        self.now = 1000 * NS

    def __call__(self) -> int:
        return self.now


def make_plan(seed=0):
    clock = Clock()
    fired = []
    return FaultPlan(seed, on_fire=fired.append, now_ns=clock), clock, fired


# ---- the collection -------------------------------------------------------


def test_add_fills_default_names_per_type_and_returns_copies():
    plan, _, _ = make_plan()
    a = plan.add(Fault(type="hang", target="Status"))
    b = plan.add(Fault(type="hang", target="Version"))
    c = plan.add(Fault(type="error"))
    assert (a.name, b.name, c.name) == ("hang_1", "hang_2", "error_1")
    a.target = "changed"
    assert [f.target for f in plan.list()] == ["Status", "Version", ""]


def test_default_name_skips_a_taken_name():
    plan, _, _ = make_plan()
    plan.add(Fault(name="hang_1", type="hang"))
    assert plan.add(Fault(type="hang")).name == "hang_2"


def test_duplicate_name_and_bad_fault_and_unknown_remove():
    plan, _, _ = make_plan()
    plan.add(Fault(name="x", type="hang"))
    with pytest.raises(errors.AlreadyExists, match="'x'"):
        plan.add(Fault(name="x", type="hang"))
    with pytest.raises(errors.InvalidArgument, match="fault 'y' \\(latency\\): attribute 'delay' is required"):
        plan.add(Fault(name="y", type="latency"))
    with pytest.raises(errors.NotFound, match="'z'"):
        plan.remove("z")
    plan.remove("x")
    assert plan.list() == []


def test_reset_removes_faults_but_keeps_the_log():
    plan, _, _ = make_plan()
    plan.add(Fault(type="hang"))
    plan.on_call("Status", "before")
    plan.reset()
    assert plan.list() == [] and plan.on_call("Status", "before") is None
    assert plan.add(Fault(type="hang")).name == "hang_1"
    assert plan.counters == {"hang_1": 1} and len(plan.log) == 1
    plan.clear_log()
    assert plan.counters == {} and plan.log == []


def test_seed_property():
    assert FaultPlan(17).seed == 17


# ---- RPC faults ---------------------------------------------------------------


def test_error_fires_on_matching_methods_and_stage_only():
    plan, clock, fired = make_plan()
    plan.add(Fault(name="e", type="error", target="*Sandbox*", attributes={"code": "INTERNAL", "message": "boom"}))
    assert plan.on_call("ListContainers", "before") is None
    assert plan.on_call("RunPodSandbox", "after") is None
    action = plan.on_call("RunPodSandbox", "before")
    assert action == CallAction(error=("INTERNAL", "boom"), faults=("e",))
    assert [(r.fault, r.type, r.hit, r.at_ns) for r in fired] == [("e", "error", "RunPodSandbox (before)", clock.now)]
    assert plan.log == fired and plan.counters == {"e": 1}
    assert plan.list()[0].hits == 1


def test_error_after_stage_and_default_message():
    plan, _, _ = make_plan()
    plan.add(*parse_error("CreateContainer/after=UNAVAILABLE"))
    assert plan.on_call("CreateContainer", "before") is None
    code, message = plan.on_call("CreateContainer", "after").error
    assert code == "UNAVAILABLE" and "error_1" in message and "CreateContainer" in message


def test_count_removes_the_fault_after_n_hits():
    plan, _, _ = make_plan()
    plan.add(Fault(name="twice", type="error", count=2))
    assert plan.list()[0].count == 2
    assert plan.on_call("Version", "before").error is not None
    assert plan.list()[0].count == 1
    assert plan.on_call("Version", "before").error is not None
    assert plan.on_call("Version", "before") is None
    assert plan.list() == [] and plan.counters == {"twice": 2}


def test_toxicity_fires_about_that_often_per_call():
    plan, _, _ = make_plan(seed=3)
    plan.add(Fault(type="error", toxicity=0.3))
    hits = sum(plan.on_call("Version", "before") is not None for _ in range(2000))
    # mean 600, sd about 20.5; allow 5 sd
    assert abs(hits - 600) < 103


def test_latency_fixed_and_jittered():
    plan, _, _ = make_plan()
    plan.add(Fault(name="fixed", type="latency", target="Status", attributes={"delay": "200ms"}))
    assert plan.on_call("Status", "before").delay_s == pytest.approx(0.2)
    plan.add(Fault(name="jit", type="latency", target="ListContainers",
                   attributes={"delay": "200ms", "jitter": "50ms"}))
    delays = [plan.on_call("ListContainers", "before").delay_s for _ in range(200)]
    assert all(0.15 <= d <= 0.25 for d in delays)
    assert max(delays) - min(delays) > 0.05


def test_latencies_add_up_and_combine_with_an_error():
    plan, _, _ = make_plan()
    plan.add(Fault(name="a", type="latency", attributes={"delay": "1s"}))
    plan.add(Fault(name="b", type="latency", attributes={"delay": "2s"}))
    plan.add(Fault(name="c", type="error", attributes={"code": "ABORTED"}))
    action = plan.on_call("Version", "before")
    assert action.delay_s == pytest.approx(3.0) and action.error[0] == "ABORTED"
    assert action.faults == ("a", "b", "c")


def test_hang():
    plan, _, _ = make_plan()
    plan.add(Fault(type="hang", target="ExecSync"))
    assert plan.on_call("ExecSync", "before") == CallAction(hang=True, faults=("hang_1",))
    assert plan.on_call("Exec", "before") is None


def test_restart_at_the_nth_matching_call_then_gone():
    plan, _, fired = make_plan()
    plan.add(Fault(name="r", type="restart", target="CreateContainer",
                   attributes={"at": "3", "downtime": "2s", "wipe": "true"}))
    assert plan.on_call("CreateContainer", "before") is None
    assert plan.on_call("StartContainer", "before") is None
    assert plan.on_call("CreateContainer", "before") is None
    action = plan.on_call("CreateContainer", "before")
    assert action.restart == RestartAction(downtime_s=2.0, wipe=True)
    assert fired[-1].hit == "CreateContainer (before), call 3"
    assert plan.list() == [] and plan.on_call("CreateContainer", "before") is None


def test_restart_at_once_is_taken_once():
    plan, _, fired = make_plan()
    added = plan.add(Fault(type="restart", attributes={"downtime": "500ms"}))
    assert added.hits == 1 and plan.list() == []
    assert plan.take_restart() == RestartAction(downtime_s=0.5, wipe=False)
    assert plan.take_restart() is None
    assert fired[0].hit == "at once"


def test_restart_with_a_target_waits_for_the_first_matching_call():
    plan, _, _ = make_plan()
    plan.add(Fault(type="restart", target="StopPodSandbox", stage="after"))
    assert plan.take_restart() is None
    assert plan.on_call("StopPodSandbox", "before") is None
    assert plan.on_call("StopPodSandbox", "after").restart == RestartAction(1.0, False)


# ---- pulls, quirks, conditions ---------------------------------------------------


@pytest.mark.parametrize("reason, code, words", [
    ("not_found", "NOT_FOUND", "no such repository"),
    ("auth", "UNAUTHENTICATED", "401"),
    ("rate_limited", "RESOURCE_EXHAUSTED", "429"),
])
def test_pull_error_reasons(reason, code, words):
    plan, _, _ = make_plan()
    plan.add(Fault(type="pull_error", target="*/private/*", attributes={"reason": reason}))
    assert plan.on_pull("docker.io/library/busybox:latest") is None
    action = plan.on_pull("registry.example/private/app:1")
    assert action.error[0] == code and words in action.error[1]
    assert "registry.example/private/app:1" in action.error[1]


def test_pull_error_override_and_slow_pull():
    plan, _, fired = make_plan()
    plan.add(Fault(type="pull_error", target="bad*", attributes={"code": "INTERNAL", "message": "nope"}))
    plan.add(Fault(type="slow_pull", attributes={"delay": "3s"}))
    assert plan.on_pull("busybox") == PullAction(error=None, delay_s=3.0)
    assert plan.on_pull("bad:1") == PullAction(error=("INTERNAL", "nope"), delay_s=3.0)
    assert [r.hit for r in fired] == ["pull busybox", "pull bad:1", "pull bad:1"]


def test_quirks_are_switches_and_log_their_hits():
    plan, _, fired = make_plan()
    assert plan.quirks() == frozenset()
    plan.add(Fault(type="quirk", attributes={"name": "created-at-seconds"}))
    plan.add(Fault(name="q2", type="quirk", attributes={"name": "resize-not-applied"}))
    assert plan.quirks() == {"created-at-seconds", "resize-not-applied"}
    assert plan.quirk_hit("resize-not-applied", "UpdateContainerResources abc") is True
    assert plan.quirk_hit("stopped-before-started", "event") is False
    assert [(r.fault, r.hit) for r in fired] == [("q2", "UpdateContainerResources abc")]
    plan.remove("q2")
    assert plan.quirks() == {"created-at-seconds"}


def test_condition_for_a_while_then_expired():
    plan, clock, fired = make_plan()
    plan.add(Fault(name="net", type="condition", attributes={
        "condition": "NetworkReady", "reason": "NoCNI", "message": "cni not ready", "duration": "10s"}))
    until = clock.now + 10 * NS
    expected = {"NetworkReady": ConditionOverride(False, "NoCNI", "cni not ready", until)}
    assert plan.conditions(clock.now) == expected
    assert plan.conditions(clock.now + 9 * NS) == expected
    assert len(fired) == 1 and fired[0].hit == "NetworkReady=false"
    assert plan.conditions(until) == {}
    assert plan.list() == []


def test_condition_without_duration_lasts_until_removed():
    plan, clock, _ = make_plan()
    plan.add(Fault(name="rt", type="condition", attributes={"condition": "RuntimeReady"}))
    assert plan.conditions(clock.now + 10**6 * NS)["RuntimeReady"].until_ns is None
    plan.remove("rt")
    assert plan.conditions(clock.now) == {}


# ---- determinism ----------------------------------------------------------------


def _decisions(plan, calls=300):
    out = []
    for _ in range(calls):
        for method in ("ListContainers", "RunPodSandbox", "PullImage"):
            action = plan.on_call(method, "before")
            out.append(None if action is None else (action.delay_s, action.error, action.faults))
    return out


def _faults():
    return [
        Fault(name="lat", type="latency", target="List*", toxicity=0.5, attributes={"delay": "1s", "jitter": "1s"}),
        Fault(name="err", type="error", target="*", toxicity=0.2),
        Fault(name="err2", type="error", target="RunPodSandbox", toxicity=0.4, attributes={"code": "INTERNAL"}),
    ]


def test_same_seed_same_decisions_whatever_the_order_faults_were_added_in():
    first, second = FaultPlan(99, now_ns=lambda: 0), FaultPlan(99, now_ns=lambda: 0)
    for f in _faults():
        first.add(f)
    for f in reversed(_faults()):
        second.add(f)
    a = _decisions(first)
    assert a == _decisions(second)
    assert first.counters == second.counters
    assert [(r.fault, r.hit) for r in first.log] == [(r.fault, r.hit) for r in second.log]


def test_another_seed_other_decisions():
    plans = []
    for seed in (1, 2):
        plan = FaultPlan(seed, now_ns=lambda: 0)
        for f in _faults():
            plan.add(f)
        plans.append(_decisions(plan))
    assert plans[0] != plans[1]


def test_a_fault_draws_the_same_with_or_without_its_neighbours():
    alone, crowded = FaultPlan(5, now_ns=lambda: 0), FaultPlan(5, now_ns=lambda: 0)
    alone.add(Fault(name="err", type="error", toxicity=0.3))
    crowded.add(Fault(name="err", type="error", toxicity=0.3))
    crowded.add(Fault(name="other", type="latency", toxicity=0.5, attributes={"delay": "1s", "jitter": "1s"}))
    pick = lambda plan: [bool(a and a.error) for a in (plan.on_call("Version", "before") for _ in range(200))]
    assert pick(alone) == pick(crowded)


def test_log_is_bounded():
    plan = FaultPlan(0, now_ns=lambda: 0, log_size=5)
    plan.add(Fault(type="hang"))
    for _ in range(12):
        plan.on_call("Version", "before")
    assert len(plan.log) == 5 and plan.counters == {"hang_1": 12}


def test_add_starts_hits_at_zero():
    plan, _, _ = make_plan()
    assert plan.add(Fault(type="hang", hits=7)).hits == 0
