"""Properties judged on the kubelet-like PLEG the suite runs: its cache, its relist
events, and whether every exit and transition reaches it."""
from __future__ import annotations

from collections.abc import Iterable

from fakecri.client.pleg.ledger import ANNOUNCES, CURRENT_ANNOUNCES
from fakecri.client.pleg.lifecycle import EventType
from fakecri.conformance.expectations import EXPECTED_EXIT, ContainerModel, PodModel
from fakecri.conformance.properties.base import MUST, SHOULD, ExampleView, Property


class CacheMonotonic(Property):
    """A pod's entry in the kubelet-like cache never goes back in time while it
    exists: an update older than the cached entry is rejected (an equal one
    overwrites), so buffered events after a disconnect never undo a newer relist.

    Source: kubelet container/cache.go Set with Evented PLEG on; KEP-3386 "Pod Status
    Update in the Cache". Sampled after every step and while waiting for convergence."""

    name, level, item = "cache-monotonic", SHOULD, "P11"
    basis = ('kubelet pkg/kubelet/container/cache.go Set rejects an older update (KEP-3386); judged on the client '
             "library's cache")
    needs = ('containers',)
    proof = "synthetic cache samples (tests/conformance/test_checks.py)"

    def at_end(self, ex: ExampleView) -> None:
        for uid, series in ex.cache_samples.items():
            ex.exercised(self, sum(1 for v in series if v is not None))
            problems = cache_regressions(series)
            for before, after in problems[:1]:
                ex.violate(self, f"the cache entry of {ex.describe_uid(uid)} went back from {before} to {after}")


def cache_regressions(series: Iterable[int | None]) -> list[tuple[int, int]]:
    """(before, after) pairs where a present entry's timestamp decreased; None = absent."""
    out = []
    last: int | None = None
    for value in series:
        if value is None:
            last = None
            continue
        if last is not None and value < last:
            out.append((last, value))
        last = value
    return out


class RelistConvergence(Property):
    """The kubelet-like cache (profile current: generic relist 1 s plus the STOPPED
    fast path; legacy-evented: events write the cache, relist scaled to 2 s plus the
    2 s tick) equals a fresh ListPodSandbox + ListContainers + status snapshot within
    one relist period plus a margin, while the pods run and after they are removed.

    In the legacy profile, objects no relist saw that are gone from the runtime but still
    in the cache the events wrote are left out (and named in the verdict): generic.go
    compares only objects it has records of, so no relist ever corrects them.

    Source: KEP-3386 non-goal "events alone are never enough"; k/k#139262 made the
    relist authoritative again. Must hold under dropped events, cut streams and a
    runtime restart that keeps state."""

    name, level, item = "relist-convergence", SHOULD, "P12"
    basis = ('kubelet pkg/kubelet/pleg/generic.go Relist: the cache follows ListPodSandbox, ListContainers and the'
             ' statuses within a period')
    needs = ('containers',)
    proof = ("must pass under drop_events, cut_stream and restart (state kept); no fault fakecri can inject"
             " breaks it without breaking the calls themselves (ListContainers errors are retried and relisted)")


class NoMissedEvents(Property):
    """Every transition a relist finds that the profile's kubelet wants an event for was
    announced first by one (the kube_pod_missed_events metric the KEP proposed and nobody
    built stays 0). Profile legacy-evented: every Started, Died and Removed. Profile current:
    only the Died of a sandbox or of a container that ran, announced by a STOPPED
    (kubernetes/kubernetes#139262 acts on nothing else).

    Source: KEP-3386 "kube_pod_missed_events"; runtimes drop events when buffers fill
    (containerd#8892, crio_containers_events_dropped_total) and lose exits over a
    restart (containerd#10390)."""

    name, level, item = "no-missed-events", SHOULD, "P12"
    basis = 'KEP-3386 kube_pod_missed_events; kubelet 1.36 pleg/evented.go acts on STOPPED only'
    needs = ('containers', 'container_events')
    proof = "drop_events"

    def at_end(self, ex: ExampleView) -> None:
        announced: dict[str, set[EventType]] = {}
        ref = ex.subs[0] if ex.subs else None
        if ref is None:
            return
        table = CURRENT_ANNOUNCES if ex.profile == "current" else ANNOUNCES
        wanted = {k for kinds in table.values() for k in kinds}
        delivered = ref.snapshot()
        for rec in delivered:
            announces = table.get(rec.event.container_event_type, ())
            announced.setdefault(rec.event.container_id, set()).update(announces)
        for ident, all_kinds in ex.relist_events.items():
            kinds = [k for k in all_kinds if k in wanted]
            if not kinds:
                continue
            owner = ex.owner(ident)
            if owner is None or not ex.judged(ref, owner if isinstance(owner, PodModel) else owner.pod):
                continue
            if isinstance(owner, PodModel) and owner is ex.sentinel:
                continue
            if not delivered:
                continue  # nothing was delivered to compare with: judged as a skip
            if ex.profile == "current" and isinstance(owner, ContainerModel) and not owner.started:
                continue  # it never ran: no termination for the hint path to hurry
            ex.exercised(self, len(kinds))
            missed = [k.value for k in kinds if k not in announced.get(ident, set())]
            if missed:
                ex.violate(self, f"the relist found {', '.join(missed)} of {owner!r} with no event announcing it")


class RelistTable(Property):
    """The relist's lifecycle events follow the kubelet's table: per container (and
    sandbox, treated as a container) at most ContainerStarted, ContainerDied,
    ContainerRemoved in that order, Removed only after Died, CREATED/unknown never
    sent; once a removed object was seen at all it ends with Removed. A life shorter
    than one period may leave no trace.

    Source: pkg/kubelet/pleg/generic.go (generateEvents and its header comment)."""

    name, level, item = "relist-table", SHOULD, "P13"
    basis = 'kubelet pkg/kubelet/pleg/generic.go generateEvents'
    needs = ('containers',)
    proof = "synthetic relist sequences (tests/conformance/test_checks.py)"

    def at_end(self, ex: ExampleView) -> None:
        for ident, kinds in ex.relist_events.items():
            owner = ex.owner(ident)
            if owner is None:
                continue
            ex.exercised(self)
            problem = relist_sequence_problem(kinds, removed=owner.removed)
            if problem:
                ex.violate(self, f"relist events of {owner!r}: {problem}")


_TABLE_ORDER = [EventType.STARTED, EventType.DIED, EventType.REMOVED]


def relist_sequence_problem(kinds: list[EventType], *, removed: bool) -> str | None:
    """Why `kinds` (one container's relist events, oldest first) breaks the table, or None."""
    names = " ".join(k.value for k in kinds)
    if EventType.CHANGED in kinds:
        return f"{names}: ContainerChanged is never sent"
    if len(set(kinds)) != len(kinds):
        return f"{names}: an event repeats"
    if [k for k in _TABLE_ORDER if k in kinds] != kinds:
        return f"{names}: out of table order"
    if EventType.REMOVED in kinds and EventType.DIED not in kinds:
        return f"{names}: Removed without Died"
    if removed and kinds and kinds[-1] is not EventType.REMOVED:
        return f"{names}: removed, but no ContainerRemoved"
    return None


class NoLostExits(Property):
    """Every container exit reaches the kubelet-like cache as EXITED with the exit code
    the runtime reports, before the suite removes the container; and the runtime
    reports the code the command gives (3 for `exit 3`, 0 for a finished `sleep 1`).

    Source: exits lost around a containerd restart (containerd#10390, fix #11579);
    k/k#139262 narrowed Evented PLEG to exactly this path (STOPPED -> targeted relist),
    with the periodic relist as the fallback when requests are dropped."""

    name, level, item = "no-lost-exits", MUST, "P15"
    basis = ('api.proto ContainerStatus: an exited container is CONTAINER_EXITED with its exit_code, which the '
             "kubelet's relist reads (pleg/generic.go) before it removes it")
    needs = ('containers', 'exits')
    proof = ("must pass under drop_events and cut_stream; no fakecri fault reports a wrong exit code, so the"
             " failing side is shown only by the checker's own logic")

    @classmethod
    def judge_exit_code(cls, ex: ExampleView, c: ContainerModel, exit_code: int) -> None:
        """The runtime showed `c` exited with `exit_code`: a command that ran undisturbed
        gives its own code."""
        expected = EXPECTED_EXIT[c.kind]
        undisturbed = c.started and not (c.stop_called or c.pod.stopped or c.removed)
        if expected is not None and undisturbed:
            ex.exercised(cls)
        if expected is not None and undisturbed and exit_code != expected:
            ex.violate(cls, f"{c} ran `{c.command_text}` but the runtime reports exit code "
                            f"{exit_code}, not {expected}")
