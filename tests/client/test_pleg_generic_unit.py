"""GenericPLEG logic over an in-memory runtime: relist diff, cache, reinspection,
discards, health, targeted relist."""
from helpers.memory_runtime import MemoryRuntime

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg import EventType, GenericPLEG, State

S, D, RM = EventType.STARTED, EventType.DIED, EventType.REMOVED


class Clock:
    def __init__(self, t=1_000 * 10**9):
        self.t = t

    def __call__(self):
        return self.t

    def advance(self, seconds):
        self.t += int(seconds * 1e9)


def events(pleg):
    return [(e.pod_uid, e.container_id, e.type) for e in pleg.events.drain()]


def make(**kw):
    rt = MemoryRuntime()
    clock = Clock()
    pleg = GenericPLEG(rt, now=clock, **kw)
    return rt, clock, pleg


def test_scripted_lifecycle_follows_the_table():
    rt, clock, pleg = make()
    rt.add_pod("u1", "s1")
    rt.add("s1", "c1")  # CREATED: no event
    assert pleg.relist()
    assert events(pleg) == [("u1", "s1", S)]
    assert pleg.cache.get("u1").status.states() == {"s1": State.RUNNING, "c1": State.UNKNOWN}
    rt.set("c1", pb.CONTAINER_RUNNING)
    pleg.relist()
    assert events(pleg) == [("u1", "c1", S)]
    rt.set("c1", pb.CONTAINER_EXITED, exit_code=3)
    pleg.relist()
    assert events(pleg) == [("u1", "c1", D)]
    assert pleg.cache.get("u1").status.exit_codes() == {"c1": 3}
    rt.remove("c1")
    pleg.relist()
    assert events(pleg) == [("u1", "c1", RM)]
    rt.add("s1", "c2", pb.CONTAINER_RUNNING)
    pleg.relist()
    rt.remove("c2")
    pleg.relist()
    assert events(pleg) == [("u1", "c2", S), ("u1", "c2", D), ("u1", "c2", RM)]
    rt.stop_pod("s1")
    pleg.relist()
    assert events(pleg) == [("u1", "s1", D)]
    rt.remove_pod("s1")
    pleg.relist()
    assert events(pleg) == [("u1", "s1", RM)]
    assert pleg.cache.get("u1") is None and pleg.records() == {}


def test_a_container_shorter_than_one_period_leaves_no_event():
    rt, clock, pleg = make()
    rt.add_pod("u1", "s1")
    pleg.relist()
    events(pleg)
    rt.add("s1", "short", pb.CONTAINER_RUNNING)
    rt.set("short", pb.CONTAINER_EXITED)
    rt.remove("short")
    pleg.relist()
    assert events(pleg) == []
    rt.add("s1", "brief", pb.CONTAINER_RUNNING)
    rt.set("brief", pb.CONTAINER_EXITED, 3)
    pleg.relist()
    assert events(pleg) == [("u1", "brief", D)]  # started and died collapse into Died


def test_failed_inspection_is_retried_and_events_come_once_it_works():
    rt, clock, pleg = make()
    rt.add_pod("u1", "s1")
    rt.add("s1", "c1", pb.CONTAINER_RUNNING)
    rt.failing.add("c1")
    pleg.relist()
    assert events(pleg) == []
    assert pleg.cache.get("u1").error and pleg.metrics.inspect_errors == 1
    pleg.relist()  # still failing: record not advanced, events held back
    assert events(pleg) == []
    rt.failing.clear()
    pleg.relist()
    assert events(pleg) == [("u1", "s1", S), ("u1", "c1", S)]
    assert pleg.cache.get("u1").error is None


def test_pod_with_pending_reinspection_and_no_new_event_is_reinspected():
    rt, clock, pleg = make()
    rt.add_pod("u1", "s1")
    pleg.relist()
    events(pleg)
    rt.add("s1", "c1", pb.CONTAINER_RUNNING)
    rt.failing.add("c1")
    pleg.relist()
    rt.failing.clear()
    rt.calls.clear()
    pleg.relist()
    assert "ContainerStatus" in rt.calls
    assert pleg.cache.get("u1").status.states()["c1"] is State.RUNNING
    assert pleg._reinspect == set()


def test_full_channel_discards_and_counts():
    rt, clock, pleg = make(channel_capacity=3)
    for i in range(5):
        rt.add_pod(f"u{i}", f"s{i}")
    pleg.relist()
    assert len(pleg.events) == 3
    assert pleg.metrics.discard_events == 2 == pleg.events.discarded
    rt.add("s0", "late", pb.CONTAINER_RUNNING)
    pleg.relist()
    assert pleg.metrics.discard_events == 3  # discarded events are not regenerated later


def test_health_threshold_uses_the_injected_clock():
    rt, clock, pleg = make(relist_threshold=180)
    ok, why = pleg.healthy()
    assert not ok and "yet" in why
    pleg.relist()
    assert pleg.healthy() == (True, "")
    clock.advance(179)
    assert pleg.healthy()[0]
    clock.advance(2)
    ok, why = pleg.healthy()
    assert not ok and "threshold" in why
    rt.list_fails = True
    assert not pleg.relist()
    assert not pleg.healthy()[0] and pleg.metrics.relist_errors == 1


def test_cache_stamped_with_relist_time_and_pod_ip_kept():
    rt, clock, pleg = make()
    rt.add_pod("u1", "s1", ip="10.1.2.3")
    pleg.relist()
    entry = pleg.cache.get("u1")
    assert entry.modified == clock.t and entry.status.ips == ("10.1.2.3",)
    assert pleg.cache.timestamp == clock.t
    clock.advance(1)
    rt.stop_pod("s1")  # a stopped sandbox reports no IP
    pleg.relist()
    assert pleg.cache.get("u1").status.ips == ("10.1.2.3",)
    assert pleg.metrics.relists == 2 and pleg.metrics.relist_duration.count == 2


def test_runtime_timestamp_mode_uses_the_runtime_clock():
    rt, clock, pleg = make(use_runtime_timestamp=True)
    rt.timestamp = 42
    rt.add_pod("u1", "s1")
    pleg.relist()
    assert pleg.cache.get("u1").modified == 42


def test_relist_pod_touches_only_that_pod():
    rt, clock, pleg = make()
    rt.add_pod("u1", "s1")
    rt.add_pod("u2", "s2")
    rt.add("s1", "a", pb.CONTAINER_RUNNING)
    rt.add("s2", "b", pb.CONTAINER_RUNNING)
    pleg.relist()
    events(pleg)
    rt.set("a", pb.CONTAINER_EXITED, 3)
    rt.set("b", pb.CONTAINER_EXITED, 4)
    assert pleg.relist_pod("u1")
    assert events(pleg) == [("u1", "a", D)]
    assert pleg.cache.get("u1").status.exit_codes() == {"a": 3}
    assert pleg.cache.get("u2").status.exit_codes() == {}
    pleg.relist()
    assert events(pleg) == [("u2", "b", D)]  # u1's transition is not reported twice


def test_start_and_stop_leave_no_thread():
    import threading
    import time

    rt, _, _ = make()
    pleg = GenericPLEG(rt, relist_period=0.01)
    rt.add_pod("u1", "s1")
    with pleg:
        deadline = time.monotonic() + 5
        while pleg.metrics.relists < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert pleg.metrics.relists >= 3
    assert not pleg.running
    assert not [t for t in threading.enumerate() if t.name == "generic-pleg"]
