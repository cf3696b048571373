"""Missed events counted by the evented PLEGs are real losses: checked against what the
server itself says it dropped (its fault log), on a real socket."""
from __future__ import annotations

from collections import Counter

import pytest
from helpers.live import Pods, fakecri, fault, wait_for
from helpers.missed import KINDS, drop_positions, must_count, recording

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient
from fakecri.client.pleg import CurrentEventedPLEG, EventType, LegacyEventedPLEG, State
from fakecri.control_client import ControlClient

D = EventType.DIED


def subscribed(server, n=1):
    with ControlClient(server.endpoint) as ctl:
        return wait_for(lambda: ctl.server_info()["counters"].get("subscribers_opened", 0) >= n)


def test_a_targeted_relist_that_overtakes_deleted_events_counts_nothing_missed():
    """Stop and at once remove a pod: the sandbox's STOPPED asks for a relist of the pod,
    which finds the removals while their DELETED events are still on the way. A current
    kubelet acts on no DELETED (it only hears STOPPED), so nothing is pending or missed."""
    with fakecri() as server, CRIClient(server.endpoint, timeout=10) as client:
        pods = Pods(client)
        got: list[pb.ContainerEventResponse] = []
        watcher = client.watch_container_events(got.append)
        try:
            assert subscribed(server)
            pleg = CurrentEventedPLEG(client, relist_period=3600)  # not started: the test hands it the events
            assert pleg.generic.relist()  # the baseline
            sid = pods.run("u1")
            for name in "abc":
                pods.container(sid, name)
            assert wait_for(lambda: len(got) == 8)
            for event in got:
                pleg.handle_event(event)
            assert pleg.generic.relist()  # sees the pod running
            client.stop_pod_sandbox(sid)
            client.remove_pod_sandbox(sid)
            assert wait_for(lambda: len(got) == 16)
            stopped, deleted = got[8:12], got[12:16]
            assert {e.container_event_type for e in stopped} == {pb.CONTAINER_STOPPED_EVENT}
            for event in stopped:
                pleg.handle_event(event)
            # Each STOPPED asks for a relist of the pod; they run before any DELETED arrives.
            assert pleg.serve_pending() == 4
            assert pleg.metrics.missed_events == 0 and pleg.ledger.pending == []
            for event in deleted:
                pleg.handle_event(event)
            assert pleg.metrics.missed_events == 0 and pleg.ledger.pending == []
            assert pleg.ledger.settle() == 0
            assert pleg.metrics.missed_events == 0
        finally:
            watcher.stop()


def test_a_transition_whose_event_never_comes_counts_once_its_window_closes():
    clock = [10**18]
    with fakecri() as server, CRIClient(server.endpoint, timeout=10) as client:
        pods = Pods(client)
        pleg = CurrentEventedPLEG(client, relist_period=3600, now=lambda: clock[0], missed_settle=5.0)
        assert pleg.generic.relist()
        sid = pods.run("u1")
        assert pleg.generic.relist()  # the pod running (a current kubelet judges no start)
        assert pleg.ledger.pending == []
        client.stop_pod_sandbox(sid)
        assert pleg.generic.relist()  # no event handed over: the sandbox's death unannounced
        assert pleg.metrics.missed_events == 0 and [e.type for e in pleg.ledger.pending] == [D]
        clock[0] += int(4.9e9)
        assert pleg.ledger.expire() == 0
        clock[0] += int(0.2e9)
        assert pleg.ledger.expire() == 1
        assert pleg.metrics.missed_events == 1 and [(e.container_id, e.type) for e in pleg.ledger.missed] == [(sid, D)]


@pytest.mark.parametrize("drop", [0.0, 0.2], ids=["clean", "drop-20%"])
@pytest.mark.parametrize("kind", [CurrentEventedPLEG, LegacyEventedPLEG], ids=["current", "legacy"])
def test_missed_events_are_exactly_the_drops_a_relist_can_see(kind, drop):
    """Six pods of three containers, seen running by a relist, then each pod stopped and
    at once removed, with the PLEG running as a kubelet runs it. What the PLEG counts
    missed is what the server's fault log says it dropped, of the kinds a relist sees."""
    faults = [fault("drop_events", toxicity=drop)] if drop else []
    with fakecri(faults) as server, CRIClient(server.endpoint, timeout=10) as client:
        pods = Pods(client)
        options = {"relist_period": 1.0} if kind is LegacyEventedPLEG else {}
        with recording(kind)(client, **options) as pleg:
            assert wait_for(lambda: pleg.metrics.connection_successes == 1 and pleg.metrics.relists >= 1)
            assert subscribed(server)
            ids = []
            for i in range(6):
                sid = pods.run(f"u{i}")
                ids += [sid, *(pods.container(sid, name) for name in "abc")]
            assert wait_for(lambda: sum(1 for rec in pleg.generic.records().values()
                                        for c in rec.containers.values() if c.state is State.RUNNING) == 24)
            for sid in ids[::4]:
                client.stop_pod_sandbox(sid)
                client.remove_pod_sandbox(sid)
            total = 4 * len(ids)
            assert wait_for(lambda: len(pleg.got) + len(drop_positions(server.endpoint)) == total, timeout=20)
            assert wait_for(lambda: pleg.generic.records() == {}, timeout=10)
            # Every event the server sent or dropped is accounted for: nothing is in flight.
            pleg.ledger.settle()
            dropped = {(i, k) for i in ids for k in KINDS} - set(pleg.got)
            assert len(dropped) == len(drop_positions(server.endpoint)), "the fault log and the missing events agree"
            assert bool(dropped) == bool(drop)
            missed = Counter((e.container_id, e.type) for e in pleg.ledger.missed)
            assert missed == must_count(ids, dropped, pleg.ledger.announces)
            assert pleg.metrics.missed_events == sum(missed.values())
