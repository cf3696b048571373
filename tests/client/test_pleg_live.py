"""The PLEGs against fakecri on a real socket: what each generation must do end to end."""
import threading
import time
from collections import Counter

from helpers.live import Pods, fakecri, fault, quiet, wait_for
from helpers.missed import KINDS, drop_positions, must_count, recording

from fakecri.client import CRIClient
from fakecri.client.pleg import CurrentEventedPLEG, EventType, GenericPLEG, LegacyEventedPLEG, State

S, D, RM = EventType.STARTED, EventType.DIED, EventType.REMOVED


def relisted(pleg):
    assert pleg.relist()
    return [(e.container_id, e.type) for e in pleg.events.drain()]


def fresh_snapshot(client):
    """What a brand-new relist sees: the reference the evented caches must converge to."""
    reference = GenericPLEG(client)
    assert reference.relist()
    return reference.cache.states()


def test_generic_events_follow_the_table_for_scripted_lifecycles():
    with fakecri() as server, CRIClient(server.endpoint, timeout=10) as client:
        pods = Pods(client)
        pleg = GenericPLEG(client)
        assert relisted(pleg) == []
        sid = pods.run("u1")
        assert relisted(pleg) == [(sid, S)]
        c1 = pods.container(sid, "c1", start=False)
        assert relisted(pleg) == []  # CREATED maps to unknown: no event
        client.start_container(c1)
        assert relisted(pleg) == [(c1, S)]
        client.stop_container(c1, timeout=0)
        assert relisted(pleg) == [(c1, D)]
        client.remove_container(c1)
        assert relisted(pleg) == [(c1, RM)]
        c2 = pods.container(sid, "c2")
        assert relisted(pleg) == [(c2, S)]
        client.remove_container(c2)  # running -> gone
        assert relisted(pleg) == [(c2, D), (c2, RM)]
        # Shorter than one relist period: started, exited and removed unseen.
        c3 = pods.container(sid, "c3", command=["sh", "-c", "exit 3"])
        assert wait_for(lambda: client.container_status(c3).status.finished_at > 0)
        client.remove_container(c3)
        assert relisted(pleg) == []
        # Exits at once: the relist sees only the death, with its exit code.
        c4 = pods.container(sid, "c4", command=["sh", "-c", "exit 3"])
        assert wait_for(lambda: client.container_status(c4).status.finished_at > 0)
        assert relisted(pleg) == [(c4, D)]
        assert pleg.cache.get("u1").status.exit_codes()[c4] == 3
        # Lives about a second: started on one relist, died on a later one.
        c5 = pods.container(sid, "c5", command=["sleep", "1"])
        assert relisted(pleg) == [(c5, S)]
        assert wait_for(lambda: client.container_status(c5).status.finished_at > 0, timeout=5)
        assert relisted(pleg) == [(c5, D)]
        client.stop_pod_sandbox(sid)
        assert relisted(pleg) == [(sid, D)]
        client.remove_pod_sandbox(sid)
        assert sorted(relisted(pleg)) == sorted([(sid, RM), (c4, RM), (c5, RM)])
        assert pleg.cache.get("u1") is None and pleg.metrics.discard_events == 0


def test_legacy_with_dropped_events_converges_and_counts_missed():
    drop = fault("drop_events", toxicity=0.2)
    with fakecri([drop]) as server, CRIClient(server.endpoint, timeout=10) as client:
        pods = Pods(client)
        # A wide settle window: a DELETED one step after its STOPPED was dropped still announces the death.
        pleg = recording(LegacyEventedPLEG)(client, relist_period=3600, missed_settle=600).start()
        try:
            assert wait_for(lambda: pleg.metrics.connection_successes == 1 and pleg.metrics.relists == 1)
            n = 12
            sids = [pods.run(f"u{i}") for i in range(n)]
            cids: list[str] = []
            steps = [
                lambda: None,  # the sandboxes started
                lambda: cids.extend(pods.container(s, "app") for s in sids),
                lambda: [client.stop_container(c, timeout=0) for c in cids],
                lambda: [client.remove_container(c) for c in cids],
                lambda: [client.stop_pod_sandbox(s) for s in sids],
                lambda: [client.remove_pod_sandbox(s) for s in sids],
            ]
            for step in steps:
                step()
                quiet(lambda: pleg.metrics.events_received)
                assert pleg.generic.relist()  # stands in for the periodic relist
                assert pleg.cache.states() == fresh_snapshot(client)
            # Each object was seen by a relist at every step, so every dropped event of a
            # kind the relist sees is a transition it finds unannounced.
            ids = [*sids, *cids]
            assert len(pleg.got) + len(drop_positions(server.endpoint)) == 4 * len(ids)
            dropped = {(i, k) for i in ids for k in KINDS} - set(pleg.got)
            assert dropped, "the 20% drop fault dropped nothing"
            pleg.ledger.settle()  # every event was accounted for: none is still coming
            assert Counter((e.container_id, e.type) for e in pleg.ledger.missed) == must_count(ids, dropped)
            assert not pleg.fell_back.is_set() and pleg.stream_failures == 0
        finally:
            pleg.stop()


def test_legacy_converges_within_one_relist_period():
    drop = fault("drop_events", toxicity=1.0)  # every event lost: only the relist can help
    period = 1.0
    with fakecri([drop]) as server, CRIClient(server.endpoint, timeout=10) as client:
        pods = Pods(client)
        with LegacyEventedPLEG(client, relist_period=period) as pleg:
            sid = pods.run("u1")
            cid = pods.container(sid, "app", command=["sh", "-c", "exit 3"])
            t0 = time.monotonic()
            assert wait_for(lambda: pleg.cache.states() == fresh_snapshot(client), timeout=period + 1.0, step=0.05)
            assert time.monotonic() - t0 <= period + 0.5
            assert pleg.cache.get("u1").status.states() == {sid: State.RUNNING, cid: State.EXITED}


def test_cutting_the_stream_five_times_falls_back_to_generic():
    cut = fault("cut_stream", after=0, code="UNAVAILABLE", count=5)
    with fakecri([cut]) as server, CRIClient(server.endpoint, timeout=10) as client:
        with LegacyEventedPLEG(client, relist_period=300) as pleg:
            assert wait_for(pleg.fell_back.is_set, timeout=10)
            assert pleg.stream_failures == 5 and pleg.metrics.connection_errors == 5
            assert pleg.generic.relist_period == 1.0 and pleg.generic.relist_threshold == 180.0
            before = pleg.metrics.relists
            assert wait_for(lambda: pleg.metrics.relists >= before + 2, timeout=4)  # relisting at 1 s now
            assert pleg.healthy() == (True, "")
        assert not [t for t in threading.enumerate() if "pleg" in t.name]


def test_current_turns_stopped_into_a_targeted_relist_within_a_bound():
    bound = 0.5
    with fakecri() as server, CRIClient(server.endpoint, timeout=10) as client:
        pods = Pods(client)
        sid = pods.run("u1")
        other = pods.run("u2")
        cid = pods.container(sid, "app")
        with CurrentEventedPLEG(client, relist_period=60) as pleg:  # the periodic relist will not help
            assert wait_for(lambda: pleg.metrics.connection_successes == 1 and pleg.metrics.relists == 1)
            pleg.events.drain()
            t0 = time.monotonic()
            client.stop_container(cid, timeout=0)
            assert wait_for(lambda: (e := pleg.cache.get("u1")) is not None
                            and e.status.states().get(cid) is State.EXITED, timeout=5)
            assert time.monotonic() - t0 < bound
            assert [(e.container_id, e.type, e.source) for e in pleg.events.drain()] == [(cid, D, "relist")]
            assert [uid for uid, _ in pleg.targeted] == ["u1"]
            client.stop_pod_sandbox(other)  # a sandbox STOPPED asks too
            assert wait_for(lambda: pleg.cache.get("u2").status.states().get(other) is State.EXITED, timeout=5)
            assert [uid for uid, _ in pleg.targeted] == ["u1", "u2"]
            assert max(lat for _, lat in pleg.targeted) < bound
            assert pleg.metrics.relists == 1
        assert not [t for t in threading.enumerate() if "pleg" in t.name]
