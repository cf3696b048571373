"""The properties, one class each. The docstring says what is checked and which real
bug or rule it comes from; `item` points at section P of the design notes
(../shared/notes/cri-events-and-pleg.md).

Hooks, all optional:
- `on_event(ex, sub, event, owner)`: an event about one of this example's objects,
  before the subscriber's history records it (so `sub.history` is what came before);
- `on_any_event(ex, sub, event)`: every event, ours or not;
- `at_end(ex)`: after the example's pods were removed and the streams settled.
Checks that hang off CRI calls (idempotence, cascades, resources, duplicates) live in
the machine's operations and report under these names.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg.lifecycle import EventType
from fakecri.conformance.model import (
    CREATED,
    DELETED,
    STARTED,
    STOPPED,
    ContainerModel,
    PodModel,
    Subscriber,
    type_name,
)

if TYPE_CHECKING:
    from fakecri.conformance.machine import Example

MUST, SHOULD = "MUST", "SHOULD"
RANK = {CREATED: 0, STARTED: 1, STOPPED: 2, DELETED: 3}
# A plausible nanosecond wall-clock time is above this (1973 in ns; 3e9 years in s).
MIN_NS = 10**17
NS_SLACK = 24 * 3600 * 10**9  # created_at within a day of the suite's clock


class Property:
    name: ClassVar[str]
    level: ClassVar[str]
    item: ClassVar[str]  # section P item(s)
    proof: ClassVar[str]  # which injected defect shows the suite catches a violation

    @classmethod
    def summary(cls) -> str:
        return (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")

    def on_event(self, ex: Example, sub: Subscriber, ev: pb.ContainerEventResponse,
                 owner: PodModel | ContainerModel) -> None:
        return None

    def on_any_event(self, ex: Example, sub: Subscriber, ev: pb.ContainerEventResponse) -> None:
        return None

    def at_end(self, ex: Example) -> None:
        return None


def own_status(ev: pb.ContainerEventResponse) -> pb.ContainerStatus | None:
    for st in ev.containers_statuses:
        if st.id == ev.container_id:
            return st
    return None


def feed_event(ex: Example, props: Iterable[Property], sub: Subscriber,
               ev: pb.ContainerEventResponse) -> PodModel | ContainerModel | None:
    """Run every property's event hooks on one received event, then record it in the
    subscriber's history. Returns the example's object the event is about, if any."""
    props = list(props)
    for prop in props:
        prop.on_any_event(ex, sub, ev)
    owner = ex.owner(ev.container_id)
    if owner is None:
        return None
    for prop in props:
        prop.on_event(ex, sub, ev, owner)
    pod = owner if isinstance(owner, PodModel) else owner.pod
    sub.history.setdefault(ev.container_id, []).append(ev.container_event_type)
    if ev.created_at >= MIN_NS:
        sub.last_created_at[pod.uid] = max(sub.last_created_at.get(pod.uid, 0), ev.created_at)
    return owner


class EventOrderPerContainer(Property):
    """Per container (and sandbox) id, events come in the order CREATED, STARTED,
    STOPPED, DELETED, each at most once; never STOPPED before STARTED.

    Source: CRI-O sends STOPPED before STARTED for containers that exit at once
    (cri-o#9738, fix PR #9822; the same window exists in containerd by code reading);
    spurious DELETED on stop (cri-o#6625). A duplicate event is a second transition
    that never happened."""

    name, level, item = "event-order-per-container", MUST, "P1"
    proof = "quirk stopped-before-started; duplicate_events; reorder_events"

    def on_event(self, ex, sub, ev, owner):
        seen = sub.history.get(ev.container_id, [])
        t = ev.container_event_type
        if t in seen:
            ex.violate(self, f"{sub}: {type_name(t)} of {owner!r} arrived twice")
        elif seen and RANK.get(t, 9) < RANK.get(seen[-1], 9):
            ex.violate(self, f"{sub}: {type_name(t)} of {owner!r} arrived after {type_name(seen[-1])}")


class SandboxBracketing(Property):
    """Sandbox events carry container_id == pod_sandbox_status.id; the sandbox's CREATED
    and STARTED come before any of its containers' CREATED; its STOPPED after the
    STOPPED of every container that started; its DELETED after every container's
    DELETED, and it does arrive.

    Source: the order containerd's integration test TestContainerEvents expects; the
    proto says StopPodSandbox stops and RemovePodSandbox removes the containers. CRI-O
    sends no sandbox DELETED at all (by code reading of generateCRIEvent)."""

    name, level, item = "sandbox-bracketing", MUST, "P2"
    proof = "quirk no-sandbox-deleted-event; reorder_events"

    def on_event(self, ex, sub, ev, owner):
        t = ev.container_event_type
        if isinstance(owner, PodModel):
            if ev.pod_sandbox_status.id and ev.pod_sandbox_status.id != ev.container_id:
                ex.violate(self, f"{sub}: sandbox event for {owner!r} carries the status of sandbox "
                                 f"{ev.pod_sandbox_status.id[:12]}")
            if t in (STOPPED, DELETED):
                need = STOPPED if t == STOPPED else DELETED
                for c in owner.containers:
                    ctypes = sub.history.get(c.cid, [])
                    if not c.cid or not ctypes:
                        continue
                    if t == STOPPED and STARTED not in ctypes:
                        continue
                    if need not in ctypes:
                        ex.violate(self, f"{sub}: sandbox {type_name(t)} of {owner!r} came before "
                                         f"{type_name(need)} of {c!r}")
            return
        pod = owner.pod
        if not ex.judged(sub, pod):
            return
        sb = sub.history.get(pod.sid, [])
        if t == CREATED and not (CREATED in sb and STARTED in sb):
            ex.violate(self, f"{sub}: CREATED of {owner!r} came before its sandbox was CREATED and STARTED")
        if DELETED in sb:
            ex.violate(self, f"{sub}: {type_name(t)} of {owner!r} came after its sandbox was DELETED")
        elif STOPPED in sb and t != DELETED:
            ex.violate(self, f"{sub}: {type_name(t)} of {owner!r} came after its sandbox STOPPED")

    def at_end(self, ex):
        for sub in ex.subs:
            for pod in ex.pods:
                if pod.removed and ex.judged(sub, pod) and DELETED not in sub.history.get(pod.sid, []):
                    ex.violate(self, f"{sub}: no sandbox DELETED event for {pod!r} after RemovePodSandbox")


class SandboxStatusOnEveryEvent(Property):
    """Every event carries pod_sandbox_status with metadata (uid), including the
    sandbox's own DELETED event.

    Source: kubelet's Evented PLEG dropped or panicked on events without it
    (k/k#114351, #114371); containerd dropped such events (#7785), then sent them
    (#8047); containerd 1.7 sent the sandbox DELETED event with a nil status (#12418)."""

    name, level, item = "sandbox-status-on-every-event", MUST, "P3"
    proof = "quirk nil-sandbox-status-on-delete"

    def on_event(self, ex, sub, ev, owner):
        if not ev.HasField("pod_sandbox_status") or not ev.pod_sandbox_status.HasField("metadata") \
                or not ev.pod_sandbox_status.metadata.uid:
            ex.violate(self, f"{sub}: {type_name(ev.container_event_type)} of {owner!r} has no "
                             "pod_sandbox_status.metadata.uid")


class SnapshotAgreesWithType(Property):
    """The statuses in an event show the state at or after the event: STARTED ->
    the container RUNNING or EXITED (started_at set); STOPPED -> EXITED with
    finished_at; DELETED -> absent; the sandbox NOTREADY on its STOPPED and DELETED;
    pod_sandbox_status is the container's own sandbox. Compared per container id,
    since the scope differs (containerd: the sandbox, CRI-O: the whole pod).

    Source: containerd snapshots statuses when it generates the event; CRI-O refreshes
    the container first (generateCRIEvent); kubelet's legacy Evented PLEG writes them
    straight into its cache, so a snapshot older than the event rolls the pod back."""

    name, level, item = "snapshot-agrees-with-type", MUST, "P4"
    proof = "synthetic event streams (tests/conformance/test_checks.py)"

    def on_event(self, ex, sub, ev, owner):
        t = ev.container_event_type
        sb = ev.pod_sandbox_status
        if isinstance(owner, PodModel):
            if t in (STOPPED, DELETED) and ev.HasField("pod_sandbox_status") and sb.state != pb.SANDBOX_NOTREADY:
                ex.violate(self, f"{sub}: sandbox {type_name(t)} of {owner!r} shows the sandbox "
                                 f"{pb.PodSandboxState.Name(sb.state)}")
            return
        if ev.HasField("pod_sandbox_status") and sb.id and owner.pod.sid and sb.id != owner.pod.sid:
            ex.violate(self, f"{sub}: {type_name(t)} of {owner!r} carries another sandbox's status")
        own = own_status(ev)
        if t == DELETED:
            if own is not None:
                ex.violate(self, f"{sub}: DELETED of {owner!r} still lists the container "
                                 f"({pb.ContainerState.Name(own.state)})")
            return
        if own is None:
            return
        if t == STARTED and (own.state == pb.CONTAINER_CREATED or not own.started_at):
            ex.violate(self, f"{sub}: STARTED of {owner!r} shows it {pb.ContainerState.Name(own.state)}, "
                             f"started_at={own.started_at}")
        if t == STOPPED and (own.state != pb.CONTAINER_EXITED or not own.finished_at):
            ex.violate(self, f"{sub}: STOPPED of {owner!r} shows it {pb.ContainerState.Name(own.state)}, "
                             f"finished_at={own.finished_at}")


class CreatedAtNanosecondsMonotonic(Property):
    """created_at is wall-clock nanoseconds (the same unit and clock as
    PodSandboxStatusResponse.timestamp) and never decreases within a pod on one stream.

    Source: kubelet read created_at as seconds (k/k#124297); CRI-O's sandbox timestamp
    was in seconds while events were in ns (k/k#126414, cri-o#8582); containerd gave no
    timestamp (#127195). The legacy cache rejects updates older than its entry, so a
    wrong unit or an out-of-order stamp freezes or rolls back a pod."""

    name, level, item = "created-at-nanoseconds-monotonic", MUST, "P5"
    proof = "quirk created-at-seconds; reorder_events"

    def on_event(self, ex, sub, ev, owner):
        ts = ev.created_at
        if ts < MIN_NS or abs(ts - ex.now()) > NS_SLACK:
            ex.violate(self, f"{sub}: {type_name(ev.container_event_type)} of {owner!r} has created_at={ts}, "
                             "not nanoseconds near the current time")
            return
        pod = owner if isinstance(owner, PodModel) else owner.pod
        last = sub.last_created_at.get(pod.uid)
        if last is not None and ts < last:
            ex.violate(self, f"{sub}: {type_name(ev.container_event_type)} of {owner!r} has created_at {ts}, "
                             f"before the previous event of {pod!r} ({last})")


class StatusTimestampWithStatuses(Property):
    """PodSandboxStatusResponse fills timestamp and containers_statuses together or
    neither: a timestamp with no statuses while the sandbox has containers empties the
    pod in the kubelet; a timestamp, when set, is in nanoseconds.

    Source: containerd 2.0 set timestamp without statuses (containerd#10740), which made
    the kubelet drop the pod's containers (k/k#129818, #129857); reverted in
    containerd#11323. The kubelet uses the statuses only if both are set (#129990)."""

    name, level, item = "status-timestamp-with-statuses", MUST, "P6"
    proof = "quirk timestamp-without-statuses"


class SubscribersSeeSameSequence(Property):
    """Two subscribers open at the same time receive the same sequence of events
    (type and id) for the objects created while both were open.

    Source: containerd split events among subscribers with one shared channel
    (containerd#7318, fixed by the eventq fan-out #9661); CRI-O served one client
    (cri-o#6466, fixed in #6838; races with several clients #9004/#9014)."""

    name, level, item = "subscribers-see-same-sequence", MUST, "P7"
    proof = "drop_events (drawn per subscriber); reorder_events"

    @staticmethod
    def sequence(ex: Example, sub: Subscriber) -> list[tuple[int, str]]:
        out = []
        for rec in sub.snapshot():
            owner = ex.owner(rec.event.container_id)
            if owner is not None and ex.judged_for_all(owner):
                out.append((rec.event.container_event_type, rec.event.container_id))
        return out

    def check(self, ex: Example, final: bool) -> None:
        if len(ex.subs) < 2:
            return
        first, *others = ex.subs
        a = self.sequence(ex, first)
        for sub in others:
            b = self.sequence(ex, sub)
            n = min(len(a), len(b))
            mismatch = next((i for i in range(n) if a[i] != b[i]), None)
            if mismatch is None and final and len(a) != len(b):
                mismatch = n
            if mismatch is not None:
                def show(seq: list[tuple[int, str]], i: int) -> str:
                    if i >= len(seq):
                        return "nothing"
                    t, ident = seq[i]
                    return f"{type_name(t)} of {ex.owner(ident)!r}"
                ex.violate(self, f"event #{mismatch + 1}: {first} got {show(a, mismatch)}, "
                                 f"{sub} got {show(b, mismatch)}")

    def at_end(self, ex):
        self.check(ex, final=True)


class SlowSubscriberPolicy(Property):
    """A subscriber that stops reading during a burst of events (300 containers
    created, started and removed) costs the reading subscriber nothing, the runtime's
    calls keep completing, and what the slow one gets when it reads again is an
    order-preserving subsequence of the full sequence: everything (buffered or
    blocking), a prefix then an error (closed), or a subsequence (dropped). The policy
    seen is reported; drop counters are not visible over CRI.

    Source: containerd split events among subscribers and dropped when its single
    1000-slot channel filled (containerd#7318, #8892); its eventq (#9661) blocks per
    subscriber (an earlier attempt, #8916, was rejected because one slow client blocked
    the others); CRI-O drops into crio_containers_events_dropped_total."""

    name, level, item = "slow-subscriber-policy", SHOULD, "P8"
    proof = "checked against fakecri's close, drop and block subscriber policies (tests/conformance)"


class StreamEndIsFailure(Property):
    """When the runtime ends an event stream (clean close, UNIMPLEMENTED, transport
    error), the client counts it as a failure, relists, and reconnects a bounded number
    of times (no busy loop); a clean close is never taken for "no more events".

    Source: CRI-O returns EOF at once when pod events are off (cri-o#7164; #7257
    closed); the fake remote runtime's nil return made the legacy loop spin; the 2026
    kubelet treats a clean close as a failure (k/k#139262). Judged on the client
    library's PLEG; skipped when no stream ended during the run."""

    name, level, item = "stream-end-is-failure", MUST, "P9"
    proof = "cut_stream (applicable, must pass); checked on the client's StreamLoop"


class EventStreamStaysOpen(Property):
    """The runtime keeps an event stream open while it runs; it never ends one on its
    own, with OK or an error.

    Source: CRI-O with pod events off answers GetContainerEvents with an immediate EOF
    (cri-o#7164); containerd ends a stream only on a send error. Every end costs a
    kubelet one of its 5 retries (k/k#129827)."""

    name, level, item = "event-stream-stays-open", SHOULD, "P9"
    proof = "cut_stream"

    def at_end(self, ex):
        for sub in [*ex.subs, *ex.late]:
            if sub.ended is not None:
                ex.violate(self, f"{sub} was ended by the runtime: {sub.ended}")


class NoStaleReplay(Property):
    """A new subscriber gets only events that happen after it subscribed: never an
    event another subscriber had already received before it connected.

    Source: containerd's eventq keeps events for 5 minutes while nobody listens and
    hands that backlog to the first subscriber (possibly stale); the KEP's cache rule
    exists because buffered old events must not overwrite a newer relist."""

    name, level, item = "no-stale-replay", SHOULD, "P10"
    proof = "stale_replay"

    def on_any_event(self, ex, sub, ev):
        key = (ev.container_event_type, ev.container_id)
        if key in sub.baseline:
            ex.violate(self, f"{sub} (opened later) received {type_name(key[0])} of "
                             f"{ex.describe(ev.container_id)}, which happened before it subscribed")


class CacheMonotonic(Property):
    """A pod's entry in the kubelet-like cache never goes back in time while it
    exists: an update older than the cached entry is rejected (an equal one
    overwrites), so buffered events after a disconnect never undo a newer relist.

    Source: kubelet container/cache.go Set with Evented PLEG on; KEP-3386 "Pod Status
    Update in the Cache". Sampled after every step and while waiting for convergence."""

    name, level, item = "cache-monotonic", MUST, "P11"
    proof = "synthetic cache samples (tests/conformance/test_checks.py)"

    def at_end(self, ex):
        for uid, series in ex.cache_samples.items():
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

    Source: KEP-3386 non-goal "events alone are never enough"; k/k#139262 made the
    relist authoritative again. Must hold under dropped events, cut streams and a
    runtime restart that keeps state."""

    name, level, item = "relist-convergence", MUST, "P12"
    proof = ("must pass under drop_events, cut_stream and restart (state kept); no fault fakecri can inject"
             " breaks it without breaking the calls themselves (ListContainers errors are retried and relisted)")


class NoMissedEvents(Property):
    """Every transition a relist finds was announced first by a CRI event (the
    kube_pod_missed_events metric the KEP proposed and nobody built stays 0).

    Source: KEP-3386 "kube_pod_missed_events"; runtimes drop events when buffers fill
    (containerd#8892, crio_containers_events_dropped_total) and lose exits over a
    restart (containerd#10390)."""

    name, level, item = "no-missed-events", SHOULD, "P12"
    proof = "drop_events"

    def at_end(self, ex):
        announced: dict[str, set[EventType]] = {}
        ref = ex.subs[0] if ex.subs else None
        if ref is None:
            return
        from fakecri.client.pleg.ledger import ANNOUNCES

        for rec in ref.snapshot():
            announced.setdefault(rec.event.container_id, set()).update(ANNOUNCES.get(rec.event.container_event_type, ()))
        for ident, kinds in ex.relist_events.items():
            owner = ex.owner(ident)
            if owner is None or not ex.judged(ref, owner if isinstance(owner, PodModel) else owner.pod):
                continue
            if isinstance(owner, PodModel) and owner is ex.sentinel:
                continue
            missed = [k.value for k in kinds if k not in announced.get(ident, set())]
            if missed:
                ex.violate(self, f"the relist found {', '.join(missed)} of {owner!r} with no event announcing it")


class EventsComplete(Property):
    """Every transition the suite caused reaches every open subscriber: CREATED and
    STARTED for what it created and started, STOPPED for everything that ran and
    ended, DELETED for everything removed.

    Source: events dropped when buffers fill (containerd#8892, CRI-O 1000-slot channel
    with a drop counter), lost exits over a restart (containerd#10390, fix #11579)."""

    name, level, item = "events-complete", MUST, "P1, P15"
    proof = "drop_events; quirk no-sandbox-deleted-event"

    def at_end(self, ex):
        for sub in ex.subs:
            have = sub.pairs()
            for owner, t in ex.owed_events(sub):
                if (t, owner.cid if isinstance(owner, ContainerModel) else owner.sid) not in have:
                    ex.violate(self, f"{sub} never received {type_name(t)} of {owner!r}")


class RelistTable(Property):
    """The relist's lifecycle events follow the kubelet's table: per container (and
    sandbox, treated as a container) at most ContainerStarted, ContainerDied,
    ContainerRemoved in that order, Removed only after Died, CREATED/unknown never
    sent; once a removed object was seen at all it ends with Removed. A life shorter
    than one period may leave no trace.

    Source: pkg/kubelet/pleg/generic.go (generateEvents and its header comment)."""

    name, level, item = "relist-table", MUST, "P13"
    proof = "synthetic relist sequences (tests/conformance/test_checks.py)"

    def at_end(self, ex):
        for ident, kinds in ex.relist_events.items():
            owner = ex.owner(ident)
            if owner is None:
                continue
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


class NoDuplicateLiveContainers(Property):
    """At most one CREATED or RUNNING container per sandbox and name is ever listed,
    and CreateContainer with the (name, attempt) of an existing container in the same
    sandbox is refused.

    Source: duplicate containers in one pod with Evented PLEG (k/k#121003 =
    containerd#9070, #120941/#120140 fixed by #120942, #121349, #123087, #122778,
    #125018). The cri-api fake accepts the duplicate; containerd reserves names."""

    name, level, item = "no-duplicate-live-containers", MUST, "P14"
    proof = "synthetic container lists (tests/conformance/test_checks.py)"


def duplicate_live(containers: Iterable[pb.Container]) -> list[tuple[str, str]]:
    """(sandbox id, name) pairs with more than one CREATED or RUNNING container."""
    seen: dict[tuple[str, str], int] = {}
    for c in containers:
        if c.state in (pb.CONTAINER_CREATED, pb.CONTAINER_RUNNING):
            key = (c.pod_sandbox_id, c.metadata.name)
            seen[key] = seen.get(key, 0) + 1
    return sorted(k for k, n in seen.items() if n > 1)


class NoLostExits(Property):
    """Every container exit reaches the kubelet-like cache as EXITED with the exit code
    the runtime reports, before the suite removes the container; and the runtime
    reports the code the command gives (3 for `exit 3`, 0 for a finished `sleep 1`).

    Source: exits lost around a containerd restart (containerd#10390, fix #11579);
    k/k#139262 narrowed Evented PLEG to exactly this path (STOPPED -> targeted relist),
    with the periodic relist as the fallback when requests are dropped."""

    name, level, item = "no-lost-exits", MUST, "P15"
    proof = ("must pass under drop_events and cut_stream; no fakecri fault reports a wrong exit code, so the"
             " failing side is shown only by the checker's own logic")


class NoPartialPodView(Property):
    """An event never shows its pod without a container the same stream announced as
    CREATED and not yet DELETED: a sandbox-only view in the cache makes the kubelet
    recreate containers.

    Source: sandbox CREATED events updating the cache with a sandbox-only view before
    containers exist (discussion in k/k#129355); a CREATED event triggering a restart
    (#122778)."""

    name, level, item = "no-partial-pod-view", SHOULD, "P17"
    proof = "synthetic event streams (tests/conformance/test_checks.py)"

    def on_event(self, ex, sub, ev, owner):
        if not ev.HasField("pod_sandbox_status"):
            return
        pod = owner if isinstance(owner, PodModel) else owner.pod
        if ev.container_event_type == DELETED and isinstance(owner, PodModel):
            return
        listed = {st.id for st in ev.containers_statuses}
        for c in pod.containers:
            if not c.cid or c.cid == ev.container_id:
                continue
            h = sub.history.get(c.cid, [])
            if CREATED in h and DELETED not in h and c.cid not in listed:
                ex.violate(self, f"{sub}: {type_name(ev.container_event_type)} of {owner!r} omits {c!r}, "
                                 "which exists")
                return


class IdempotentStopRemove(Property):
    """StopContainer, RemoveContainer, StopPodSandbox and RemovePodSandbox of a missing
    or already stopped object answer OK (so do RemoveImage of a missing image);
    ContainerStatus and PodSandboxStatus of a missing object answer NOT_FOUND.

    Source: critest's idempotence specs; the proto comments ("If there are any
    running containers ... must be forcibly terminated"; "this call is idempotent")."""

    name, level, item = "idempotent-stop-remove", MUST, "P21"
    proof = "error fault NOT_FOUND on StopContainer"


class SandboxStopRemoveCascades(Property):
    """After StopPodSandbox no container of the sandbox is RUNNING; after
    RemovePodSandbox none is listed and their status is NOT_FOUND.

    Source: proto comments on StopPodSandbox/RemovePodSandbox; broken in the cri-api
    fake and, until 2025-06, in the kubelet's fake remote runtime; still in criproxy."""

    name, level, item = "sandbox-stop-remove-cascades", MUST, "P22"
    proof = "synthetic (no fakecri fault breaks it): checked on every stop/remove of a pod"


class ResourcesStickAllOrNothing(Property):
    """An UpdateContainerResources that answers OK shows in ContainerStatus.resources;
    one that fails (a memory limit below 4 MiB next to a valid CPU change) changes
    nothing.

    Source: proto "UpdateContainerResources ... synchronous; error if not
    transactional"; resizes stuck or half applied (k/k#123441, #125559)."""

    name, level, item = "resources-stick-all-or-nothing", MUST, "P23"
    proof = "quirk resize-not-applied"


class StreamListsEqualUnary(Property):
    """StreamPodSandboxes, StreamContainers and StreamContainerStats (KEP-5825) give
    the same items as the unary lists with the same filter, each exactly once;
    skipped if the runtime answers UNIMPLEMENTED.

    Source: KEP-5825 proto comments (each item exactly once, EOF terminates, kubelet
    falls back to unary on UNIMPLEMENTED)."""

    name, level, item = "stream-lists-equal-unary", MUST, "P24"
    proof = "synthetic list pairs (tests/conformance/test_checks.py)"


class ValidCallsSucceed(Property):
    """Every well-formed call the suite makes on an object in a state that allows it
    succeeds (UNAVAILABLE is retried for up to 15 s, as a kubelet would).

    Source: critest's basic specs; the CRI proto. Any other error is reported here with
    the call that got it."""

    name, level, item = "valid-calls-succeed", MUST, "-"
    proof = "error faults (e.g. INTERNAL on CreateContainer)"


ALL: list[type[Property]] = [
    EventOrderPerContainer,
    SandboxBracketing,
    SandboxStatusOnEveryEvent,
    SnapshotAgreesWithType,
    CreatedAtNanosecondsMonotonic,
    StatusTimestampWithStatuses,
    SubscribersSeeSameSequence,
    SlowSubscriberPolicy,
    EventsComplete,
    StreamEndIsFailure,
    EventStreamStaysOpen,
    NoStaleReplay,
    CacheMonotonic,
    RelistConvergence,
    NoMissedEvents,
    RelistTable,
    NoDuplicateLiveContainers,
    NoLostExits,
    NoPartialPodView,
    IdempotentStopRemove,
    SandboxStopRemoveCascades,
    ResourcesStickAllOrNothing,
    StreamListsEqualUnary,
    ValidCallsSucceed,
]
BY_NAME: dict[str, type[Property]] = {p.name: p for p in ALL}
NAMES = [p.name for p in ALL]
