"""Per-subscriber event faults: drop, duplicate, reorder, delay, cut, stale replay."""
import math

import pytest

from fakecri.faults import Fault, FaultPlan, parse_drop_events


def plan_with(*faults, seed=0):
    fired = []
    plan = FaultPlan(seed, on_fire=fired.append, now_ns=lambda: 0)
    for f in faults:
        plan.add(f)
    return plan, fired


def run(sub, n):
    """Feed events 0..n-1 through a subscriber; return what it delivers, flushed at the end."""
    out = []
    for i in range(n):
        out.extend(sub.on_event(i, i + 1))
    out.extend((0.0, item) for item in sub.flush())
    return out


def test_no_faults_pass_events_through():
    plan, _ = plan_with()
    sub = plan.subscriber(0)
    assert run(sub, 5) == [(0.0, i) for i in range(5)]
    assert sub.cut(5) is None and sub.replay([1, 2]) == []


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_drop_five_percent_over_2000_events_is_within_a_binomial_bound(seed):
    plan, fired = plan_with(parse_drop_events("5%"), seed=seed)
    sub = plan.subscriber(0)
    delivered = run(sub, 2000)
    dropped = 2000 - len(delivered)
    mean, sd = 2000 * 0.05, math.sqrt(2000 * 0.05 * 0.95)
    assert abs(dropped - mean) < 4.5 * sd
    assert len(fired) == dropped and fired[0].hit.startswith("subscriber 0, event ")
    # What gets through keeps its order.
    assert [item for _, item in delivered] == sorted(item for _, item in delivered)


def test_each_subscriber_has_its_own_stream_and_the_seed_reproduces_it():
    plan, _ = plan_with(Fault(type="drop_events", toxicity=0.5), seed=11)
    again, _ = plan_with(Fault(type="drop_events", toxicity=0.5), seed=11)
    a0, a1 = run(plan.subscriber(0), 200), run(plan.subscriber(1), 200)
    assert a0 != a1
    assert run(again.subscriber(1), 200) == a1
    assert run(again.subscriber(0), 200) == a0


def test_duplicate_events():
    plan, fired = plan_with(Fault(type="duplicate_events", attributes={"copies": "2"}))
    assert plan.subscriber(0).on_event("e", 1) == [(0.0, "e")] * 3
    assert len(fired) == 1


def test_delay_events_with_jitter():
    plan, _ = plan_with(Fault(type="delay_events", attributes={"delay": "1s", "jitter": "500ms"}))
    sub = plan.subscriber(0)
    delays = [d for i in range(100) for d, _ in sub.on_event(i, i + 1)]
    assert len(delays) == 100 and all(0.5 <= d <= 1.5 for d in delays)
    assert len(set(delays)) > 50


def test_reorder_events_keeps_every_event_and_moves_some_within_the_window():
    plan, fired = plan_with(Fault(type="reorder_events", toxicity=0.3, attributes={"window": "3"}), seed=4)
    out = [item for _, item in run(plan.subscriber(0), 500)]
    assert sorted(out) == list(range(500))
    assert out != list(range(500))
    # A held event waits for at most `window` later events, so it ends up at most 3 places late.
    assert max(pos - item for pos, item in enumerate(out)) <= 3
    assert len(fired) > 0


def test_reorder_window_one_swaps_a_held_event_with_the_next():
    plan, _ = plan_with(Fault(type="reorder_events", count=1, attributes={"window": "1"}))
    sub = plan.subscriber(0)
    assert sub.on_event("a", 1) == []
    assert sub.on_event("b", 2) == [(0.0, "b"), (0.0, "a")]
    assert sub.on_event("c", 3) == [(0.0, "c")]


def test_held_events_come_out_when_the_fault_goes_or_the_stream_ends():
    plan, _ = plan_with(Fault(name="r", type="reorder_events", attributes={"window": "5"}))
    sub = plan.subscriber(0)
    assert sub.on_event("a", 1) == []
    plan.remove("r")
    assert sub.on_event("b", 2) == [(0.0, "b"), (0.0, "a")]
    plan.add(Fault(name="r2", type="reorder_events", attributes={"window": "5"}))
    sub.on_event("c", 3)
    assert sub.flush() == ["c"] and sub.flush() == []


def test_cut_stream_after_n_events_with_a_code():
    plan, fired = plan_with(Fault(name="cut", type="cut_stream", attributes={"after": "3", "code": "OK"}))
    sub = plan.subscriber(0)
    assert [sub.cut(n) for n in range(3)] == [None, None, None]
    assert sub.cut(3) == "OK"
    assert sub.cut(4) == "OK"
    assert sub.cut_status[0] == "OK" and "after 3 events" in sub.cut_status[1]
    assert [r.hit for r in fired] == ["subscriber 0, after 3 events"]


def test_cut_stream_count_one_cuts_a_single_stream():
    plan, _ = plan_with(Fault(type="cut_stream", count=1, attributes={"code": "unavailable"}))
    first, second = plan.subscriber(0), plan.subscriber(1)
    assert first.cut(0) == "UNAVAILABLE"
    assert second.cut(0) is None and plan.list() == []


def test_cut_stream_toxicity_is_drawn_once_per_stream():
    plan, _ = plan_with(Fault(type="cut_stream", toxicity=0.5, attributes={"after": "2"}), seed=8)
    verdicts = []
    for index in range(200):
        sub = plan.subscriber(index)
        verdicts.append([sub.cut(n) for n in range(4)])
    cut = [v for v in verdicts if v[2] is not None]
    assert all(v == [None, None, "UNAVAILABLE", "UNAVAILABLE"] for v in cut)
    assert all(v == [None] * 4 for v in verdicts if v[2] is None)
    assert 60 < len(cut) < 140


def test_stale_replay_sends_old_events_once():
    plan, fired = plan_with(Fault(type="stale_replay", attributes={"events": "2"}))
    sub = plan.subscriber(3)
    assert sub.replay(["old1", "old2", "old3"]) == ["old2", "old3"]
    assert sub.replay(["old1"]) == []
    assert fired[0].hit == "subscriber 3, 2 old events"
    plan.reset()
    plan.add(Fault(type="stale_replay"))
    assert plan.subscriber(4).replay(("x", "y")) == ["x", "y"]


def test_drop_wins_over_other_event_faults():
    plan, fired = plan_with(Fault(name="a-drop", type="drop_events"),
                            Fault(name="b-dup", type="duplicate_events"))
    assert plan.subscriber(0).on_event("e", 1) == []
    assert [r.fault for r in fired] == ["a-drop"]


def test_event_fault_count_is_shared_across_subscribers():
    plan, _ = plan_with(Fault(type="drop_events", count=3))
    a, b = plan.subscriber(0), plan.subscriber(1)
    out = a.on_event(1, 1) + b.on_event(1, 1) + a.on_event(2, 2) + b.on_event(2, 2)
    assert out == [(0.0, 2)] and plan.list() == []
