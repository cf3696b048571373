"""Both evented PLEGs: event handling rules on hand-made events, retries and fallback
against a stub runtime on a real socket."""
import threading

import grpc
from helpers.cri_stub import StubRuntime, StubServer
from helpers.memory_runtime import MemoryRuntime
from helpers.polling import first_true

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient
from fakecri.client.pleg import CurrentEventedPLEG, EventType, LegacyEventedPLEG, State

S, D, RM = EventType.STARTED, EventType.DIED, EventType.REMOVED


def ev(kind, cid, uid="u1", sid="s1", at=100, cstate=pb.CONTAINER_RUNNING, sb_state=pb.SANDBOX_READY, status=True):
    msg = pb.ContainerEventResponse(container_id=cid, container_event_type=kind, created_at=at)
    if status:
        msg.pod_sandbox_status.CopyFrom(pb.PodSandboxStatus(
            id=sid, metadata=pb.PodSandboxMetadata(name="p", namespace="ns", uid=uid), state=sb_state,
            network=pb.PodSandboxNetworkStatus(ip="10.0.0.9" if sb_state == pb.SANDBOX_READY else "")))
        if cid != sid:
            msg.containers_statuses.append(pb.ContainerStatus(id=cid, state=cstate))
    return msg


def drained(pleg):
    return [(e.container_id, e.type) for e in pleg.events.drain()]


def test_legacy_events_write_the_cache_with_the_staleness_rule():
    pleg = LegacyEventedPLEG(MemoryRuntime(), now=lambda: 200)
    pleg.handle_event(ev(pb.CONTAINER_CREATED_EVENT, "c1", at=100, cstate=pb.CONTAINER_CREATED))
    assert drained(pleg) == []
    assert pleg.cache.get("u1").status.states() == {"s1": State.RUNNING, "c1": State.UNKNOWN}
    pleg.handle_event(ev(pb.CONTAINER_STARTED_EVENT, "c1", at=110))
    assert drained(pleg) == [("c1", S)]
    pleg.handle_event(ev(pb.CONTAINER_STOPPED_EVENT, "c1", at=105, cstate=pb.CONTAINER_EXITED))
    assert drained(pleg) == []  # older than the cache: rejected, no lifecycle event
    assert pleg.cache.get("u1").status.states()["c1"] is State.RUNNING
    pleg.handle_event(ev(pb.CONTAINER_STOPPED_EVENT, "c1", at=110, cstate=pb.CONTAINER_EXITED))
    assert drained(pleg) == [("c1", D)]  # equal timestamp overwrites
    assert pleg.cache.get("u1").modified == 110
    pleg.handle_event(ev(pb.CONTAINER_DELETED_EVENT, "c1", at=120))
    assert drained(pleg) == [("c1", D), ("c1", RM)]
    assert pleg.cache.get("u1") is not None  # a container DELETED leaves the pod cached
    pleg.handle_event(ev(pb.CONTAINER_DELETED_EVENT, "s1", at=130, sb_state=pb.SANDBOX_NOTREADY))
    assert drained(pleg) == [("s1", D), ("s1", RM)]
    assert pleg.cache.get("u1") is None
    assert pleg.metrics.events_received == 6
    assert pleg.metrics.event_latency.count == 6 and pleg.metrics.event_latency.max == 100e-9


def test_legacy_ignores_events_without_sandbox_status_or_metadata():
    pleg = LegacyEventedPLEG(MemoryRuntime(), now=lambda: 200)
    pleg.handle_event(ev(pb.CONTAINER_STARTED_EVENT, "c1", status=False))
    no_meta = pb.ContainerEventResponse(container_id="c1", container_event_type=pb.CONTAINER_DELETED_EVENT,
                                        pod_sandbox_status=pb.PodSandboxStatus(id="s1"))
    pleg.handle_event(no_meta)
    assert drained(pleg) == [] and len(pleg.cache) == 0
    assert pleg.metrics.events_ignored == 2


def test_legacy_keeps_the_pod_ip_when_an_event_has_none():
    pleg = LegacyEventedPLEG(MemoryRuntime(), now=lambda: 200)
    pleg.handle_event(ev(pb.CONTAINER_STARTED_EVENT, "c1", at=100))
    pleg.handle_event(ev(pb.CONTAINER_STOPPED_EVENT, "s1", at=101, sb_state=pb.SANDBOX_NOTREADY))
    assert pleg.cache.get("u1").status.ips == ("10.0.0.9",)


def test_missed_events_are_relist_transitions_no_event_announced():
    rt = MemoryRuntime()
    pleg = LegacyEventedPLEG(rt, now=lambda: 10**18, missed_settle=0)  # no event can trail: count at once
    rt.add_pod("u1", "s1")
    pleg.generic.relist()  # baseline: not counted
    assert pleg.metrics.missed_events == 0
    rt.add("s1", "a", pb.CONTAINER_RUNNING)
    rt.add("s1", "b", pb.CONTAINER_RUNNING)
    pleg.handle_event(ev(pb.CONTAINER_STARTED_EVENT, "a", at=1))  # b's STARTED was "dropped"
    pleg.generic.relist()
    assert pleg.metrics.missed_events == 1
    assert [(m.container_id, m.type) for m in pleg.ledger.missed] == [("b", S)]
    rt.remove("a")
    rt.remove("b")
    pleg.handle_event(ev(pb.CONTAINER_DELETED_EVENT, "a", at=2))  # announces Died and Removed
    pleg.generic.relist()
    assert pleg.metrics.missed_events == 3  # b: Died and Removed
    assert dict(pleg.metrics.missed_by_type) == {"ContainerStarted": 1, "ContainerDied": 1, "ContainerRemoved": 1}


def test_current_counts_as_missed_only_a_death_no_stopped_announced():
    """A kubelet that takes events as hints (k/k#139262) acts on STOPPED alone: a missing
    STARTED costs it nothing, and a DELETED does not stand in for the STOPPED it lacked."""
    rt = MemoryRuntime()
    clock = [10**18]
    pleg = CurrentEventedPLEG(rt, now=lambda: clock[0], missed_settle=0)  # counted at the relist
    rt.add_pod("u1", "s1")
    pleg.generic.relist()
    rt.add("s1", "a", pb.CONTAINER_RUNNING)
    rt.add("s1", "b", pb.CONTAINER_RUNNING)
    clock[0] += 1
    pleg.generic.relist()  # no STARTED event at all
    assert pleg.metrics.missed_events == 0
    rt.set("a", pb.CONTAINER_EXITED, 1)
    rt.set("b", pb.CONTAINER_EXITED, 1)
    pleg.handle_event(ev(pb.CONTAINER_STOPPED_EVENT, "a", cstate=pb.CONTAINER_EXITED))
    pleg.handle_event(ev(pb.CONTAINER_DELETED_EVENT, "b"))
    clock[0] += 1
    pleg.generic.relist()
    assert [(m.container_id, m.type) for m in pleg.ledger.missed] == [("b", D)]
    rt.remove("a")
    clock[0] += 1
    pleg.generic.relist()  # a's removal: nothing the hint path would have acted on
    assert pleg.metrics.missed_events == 1


def test_current_turns_only_stopped_into_relist_requests():
    rt = MemoryRuntime()
    rt.add_pod("u1", "s1")
    rt.add("s1", "c1", pb.CONTAINER_RUNNING)
    clock = [500]
    pleg = CurrentEventedPLEG(rt, now=lambda: clock[0])
    pleg.generic.relist()
    pleg.events.drain()
    for kind in (pb.CONTAINER_CREATED_EVENT, pb.CONTAINER_STARTED_EVENT, pb.CONTAINER_DELETED_EVENT):
        pleg.handle_event(ev(kind, "c1"))
    pleg.handle_event(ev(pb.CONTAINER_STOPPED_EVENT, "c1", status=False))  # no sandbox metadata: ignored
    assert pleg.requests.qsize() == 0 and len(pleg.cache) == 1
    rt.set("c1", pb.CONTAINER_EXITED, 3)
    clock[0] = 600
    pleg.handle_event(ev(pb.CONTAINER_STOPPED_EVENT, "c1", at=400, cstate=pb.CONTAINER_EXITED))
    assert pleg.cache.get("u1").status.states()["c1"] is State.RUNNING  # events never write the cache
    clock[0] = 700
    assert pleg.serve_pending() == 1
    assert drained(pleg) == [("c1", D)]
    assert pleg.cache.get("u1").status.exit_codes() == {"c1": 3}
    assert list(pleg.targeted) == [("u1", 100e-9)]  # from the event's arrival to the relist's end
    assert pleg.metrics.relist_requests == 1 and pleg.metrics.events_ignored == 1


def test_current_skips_a_request_that_a_later_global_relist_covered():
    """kubelet generic.go (PLEGOnDemandRelist): a queued pod relist runs only if it was asked
    for after the last global relist began; otherwise the global relist already saw the pod."""
    rt = MemoryRuntime()
    rt.add_pod("u1", "s1")
    rt.add("s1", "c1", pb.CONTAINER_RUNNING)
    clock = [500]
    pleg = CurrentEventedPLEG(rt, now=lambda: clock[0])
    pleg.generic.relist()
    pleg.events.drain()
    rt.set("c1", pb.CONTAINER_EXITED, 1)
    clock[0] = 600
    pleg.handle_event(ev(pb.CONTAINER_STOPPED_EVENT, "c1", cstate=pb.CONTAINER_EXITED))
    clock[0] = 700
    pleg.generic.relist()  # began after the request: it finds the exit itself
    assert drained(pleg) == [("c1", D)]
    rt.calls.clear()
    assert pleg.serve_pending() == 1
    assert rt.calls == [] and drained(pleg) == []
    assert pleg.metrics.targeted_relists == 0 and pleg.metrics.targeted_relists_skipped == 1


def test_current_targeted_relist_of_an_unchanged_pod_inspects_nothing():
    """kubelet relistPod: no transition and no pending reinspection, so no status calls; the
    pod is only marked observed (SetObservedTime), which wakes a pod worker waiting on it."""
    rt = MemoryRuntime()
    rt.add_pod("u1", "s1")
    rt.add("s1", "c1", pb.CONTAINER_RUNNING)
    clock = [500]
    pleg = CurrentEventedPLEG(rt, now=lambda: clock[0])
    pleg.generic.relist()
    before = pleg.cache.get("u1")
    clock[0] = 600
    pleg.request_relist("u1")
    rt.calls.clear()
    clock[0] = 650
    assert pleg.serve_pending() == 1
    assert "PodSandboxStatus" not in rt.calls and "ContainerStatus" not in rt.calls
    after = pleg.cache.get("u1")
    assert after.status is before.status and after.modified == 650
    assert pleg.cache.get_newer_than("u1", 600, timeout=0) is not None


def test_current_request_queue_drops_when_full():
    pleg = CurrentEventedPLEG(MemoryRuntime(), request_capacity=2, now=lambda: 1)
    for i in range(5):
        pleg.handle_event(ev(pb.CONTAINER_STOPPED_EVENT, f"c{i}", uid=f"u{i}"))
    assert pleg.requests.qsize() == 2
    assert pleg.metrics.relist_requests == 2 and pleg.metrics.relist_requests_dropped == 3


def wait_for(cond, timeout=10.0):
    return first_true(cond, timeout, 0.02) is not None


def pleg_threads():
    names = ("generic-pleg", "legacy-evented-pleg", "legacy-pleg-cache-tick", "current-evented-pleg",
             "pleg-relist-requests")
    return [t for t in threading.enumerate() if t.name in names]


def test_legacy_clean_closes_count_as_failures_and_fall_back_after_five():
    servicer = StubRuntime()  # every event stream closes at once with OK
    with StubServer(servicer) as server, CRIClient(server.endpoint, timeout=5) as client:
        pleg = LegacyEventedPLEG(client, relist_period=300, global_cache_period=0.05)
        with pleg:
            assert wait_for(pleg.fell_back.is_set)
            assert pleg.stream_failures == 5
            assert all(e.code is grpc.StatusCode.OK for e in pleg.stream_errors)
            assert pleg.metrics.connection_errors == 5 and pleg.metrics.connection_successes == 5
            assert pleg.generic.relist_period == 1.0 and pleg.generic.relist_threshold == 180.0
            # one relist at start, one forced per failure, one when the period changes
            assert wait_for(lambda: pleg.metrics.relists >= 7)
            assert servicer.calls.count("GetContainerEvents") == 5
    assert pleg_threads() == []


def test_current_disables_the_fast_path_after_five_failures():
    servicer = StubRuntime()
    servicer.event_end = grpc.StatusCode.UNIMPLEMENTED
    with StubServer(servicer) as server, CRIClient(server.endpoint, timeout=5) as client:
        with CurrentEventedPLEG(client, relist_period=0.05) as pleg:
            assert wait_for(pleg.fast_path_disabled.is_set)
            assert pleg.stream_failures == 5
            assert all(e.code is grpc.StatusCode.UNIMPLEMENTED for e in pleg.stream_errors)
            assert pleg.generic.running
    assert pleg_threads() == []


def test_stop_while_the_stream_is_open_is_quiet():
    servicer = StubRuntime()
    servicer.event_hold.clear()  # the stream stays open
    with StubServer(servicer) as server, CRIClient(server.endpoint, timeout=5) as client:
        for cls in (LegacyEventedPLEG, CurrentEventedPLEG):
            pleg = cls(client).start()
            assert wait_for(lambda pleg=pleg: pleg.metrics.connection_successes == 1)
            pleg.stop()
            assert pleg.stream_failures == 0 and pleg.metrics.connection_errors == 0
            assert pleg_threads() == []
