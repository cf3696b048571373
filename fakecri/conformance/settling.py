"""Waiting for the runtime and the kubelet-like cache to settle: syncing subscribers
on sentinel pods, waiting for owed events, and the bounded convergence waits whose
timeouts are the relist properties' verdicts."""
from __future__ import annotations

import time
from typing import Any

from fakecri.client import CRIError
from fakecri.client.pleg import State, build_pods
from fakecri.conformance import properties as P
from fakecri.conformance.example import Example
from fakecri.conformance.expectations import RUN_LABEL, ContainerModel, PodModel, ident, owed_events

# How long each sync attempt waits for the sentinel's events before trying another.
SYNC_WAITS = (0.1, 0.3, 1.0, 3.0, 3.0, 3.0)


def sync(ex: Example) -> None:
    """Run sentinel pods until every subscriber still waiting in `ex.late` has received
    an event about one: from then on none can have missed anything for being late to
    register."""
    for attempt, wait in enumerate(SYNC_WAITS):
        if all(s.ended is not None for s in ex.late):
            return  # every stream waiting for a sentinel has ended: nothing left to sync
        pod = ex.make_pod(f"sentinel-{attempt}")
        try:
            pod.sid = ex.call(f"RunPodSandbox({pod})  # sync", ex.client.run_pod_sandbox, pod.config,
                              ex.opts.runtime_handler)
        except CRIError as exc:
            ex.violate(P.ValidCallsSucceed, f"RunPodSandbox({pod}) failed: {exc}")
            return
        pod.created = True
        ex.sentinels.append(pod)
        ex.by_id[pod.sid] = pod
        waiting = [s for s in ex.late if s not in ex.subs]
        deadline = time.monotonic() + min(wait, ex.opts.sync_timeout)
        while waiting and time.monotonic() < deadline:
            # Any event about any sentinel proves the stream was registered before it.
            sids = {p.sid for p in ex.sentinels}
            waiting = [s for s in waiting if not any(r.event.container_id in sids for r in s.snapshot())
                       and s.ended is None]
            if waiting:
                time.sleep(0.01)
        for s in ex.late:
            if s not in waiting and s not in ex.subs and s.ended is None:
                s.synced = True
                ex.subs.append(s)
        ex.late = [s for s in ex.late if s not in ex.subs]
        if not ex.late:
            return
    # A correct runtime delivers a sentinel's events within seconds; one that never
    # does is judged all the same (what it misses counts against it).
    for s in ex.late:
        if s.ended is None:
            s.synced = True
            ex.subs.append(s)
    ex.late = [s for s in ex.late if s not in ex.subs]


def owed(ex: Example, sub: Any) -> list[tuple[PodModel | ContainerModel, int]]:
    return owed_events(ex.pods, lambda pod: ex.judged(sub, pod))


def settle(ex: Example) -> None:
    """Wait (bounded) until every subscriber has every event it is owed."""
    deadline = time.monotonic() + ex.opts.settle_timeout
    last_count, quiet_since = -1, time.monotonic()
    while time.monotonic() < deadline:
        if all(all((t, ident(o)) in s.pairs() for o, t in owed(ex, s)) for s in ex.subs):
            break
        count = sum(len(s.received) for s in ex.subs)
        if count != last_count:
            last_count, quiet_since = count, time.monotonic()
        elif time.monotonic() - quiet_since > ex.opts.settle_quiet:
            break  # nothing has arrived for a while: what is missing is not coming
        time.sleep(0.02)
    time.sleep(0.05)  # let duplicates and stragglers in
    ex.process_events()


def sample_cache(ex: Example) -> None:
    """Note each pod's cache timestamp (cache-monotonic judges the series)."""
    if ex.pleg is None:
        return
    for pod in [*ex.pods, *ex.sentinels]:
        entry = ex.pleg.cache.get(pod.uid)
        ex.cache_samples.setdefault(pod.uid, []).append(None if entry is None else entry.modified)


def truth(ex: Example) -> dict[str, dict[str, State]]:
    sel = {"label_selector": {RUN_LABEL: ex.run.run_id}}
    pods = build_pods(ex.client.list_pod_sandbox(sel), ex.client.list_containers(sel))
    return {uid: {cid: rec.state for cid, rec in pod.containers.items()} for uid, pod in pods.items()}


def bound(ex: Example) -> float:
    """How long the cache may lag the runtime: one relist period, the cache tick, a margin."""
    return ex.period + ex.tick + ex.opts.margin


def _states(ex: Example, states: dict[str, State] | None, entry: Any) -> str:
    if states is None:
        return "absent" if entry is None else f"no status ({entry.error})"
    return "{" + ", ".join(f"{ex.describe(i)}={s.value}" for i, s in sorted(states.items())) + "}"


def beyond_the_relist(ex: Example, want: dict[str, State] | None, have: dict[str, State] | None) -> set[str]:
    """Legacy profile: the ids in a cache entry that no relist can ever correct, namely
    those the events alone put there, gone from the runtime, that no relist saw. The
    legacy relist (generic.go) compares only objects it has records of, so when the
    event that would clear such an entry is lost it stays, in a real kubelet too. The
    current profile relists every pod it is asked about, so nothing is beyond it."""
    if ex.opts.profile != "legacy-evented" or not have:
        return set()
    return {i for i in have if i not in (want or {}) and i not in ex.relisted}


def wait_converged(ex: Example, phase: str) -> None:
    """relist-convergence: within the bound, the cache equals a fresh relist (leaving out,
    in the legacy profile, what is beyond its relist: see beyond_the_relist)."""
    if ex.pleg is None or not ex.enabled(P.RelistConvergence):
        return
    uids = [p.uid for p in [*ex.pods, *ex.sentinels]]
    deadline = time.monotonic() + bound(ex)
    diff: list[str] = []
    while True:
        sample_cache(ex)
        stale: set[str] = set()
        try:
            now = truth(ex)
        except CRIError as exc:
            diff = [f"listing failed: {exc}"]
        else:
            diff = []
            for uid in uids:
                want = now.get(uid)
                entry = ex.pleg.cache.get(uid)
                have = entry.status.states() if entry is not None and entry.status is not None else None
                if want is None and entry is None:
                    continue
                beyond = beyond_the_relist(ex, want, have)
                if beyond and have is not None:
                    stale |= beyond
                    have = {i: v for i, v in have.items() if i not in beyond}
                    if want is None and not have:
                        continue
                if want != have:
                    diff.append(f"{ex.describe_uid(uid)}: cache {_states(ex, have, entry)} vs runtime "
                                f"{_states(ex, want, None)}")
        if not diff:
            ex.exercised(P.RelistConvergence)
            ex.note_beyond_the_relist(stale)
            return
        if time.monotonic() > deadline:
            ex.note_beyond_the_relist(stale)
            ex.violate(P.RelistConvergence, f"{phase}: {bound(ex):g}s later the cache still differs from "
                                            f"a fresh relist: {'; '.join(diff[:3])}")
            return
        time.sleep(0.05)


def wait_exit_in_cache(ex: Example, c: ContainerModel, code: int) -> None:
    """no-lost-exits: before the suite removes an exited container, the PLEG cache
    must show it EXITED with the runtime's exit code (within the relist bound)."""
    if ex.pleg is None or not ex.enabled(P.NoLostExits):
        return
    deadline = time.monotonic() + bound(ex)
    while True:
        sample_cache(ex)
        entry = ex.pleg.cache.get(c.pod.uid)
        if entry is not None and entry.status is not None:
            states = entry.status.states()
            codes = entry.status.exit_codes()
            if states.get(c.cid) is State.EXITED and codes.get(c.cid) == code:
                ex.exercised(P.NoLostExits)
                return
        if time.monotonic() > deadline:
            seen = "absent" if entry is None or entry.status is None else \
                f"{entry.status.states().get(c.cid, State.NON_EXISTENT).value}" \
                f" code {entry.status.exit_codes().get(c.cid)}"
            ex.violate(P.NoLostExits, f"{c} exited with {code}, but {bound(ex):g}s later the cache "
                                      f"shows it {seen}")
            return
        time.sleep(0.02)
