"""Properties of how events reach subscribers: every one of them, the same to all,
none replayed, and a stream that stays open (or whose end the client survives)."""
from __future__ import annotations

import functools
from typing import Any

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import EventStreamClosed
from fakecri.client.pleg import LegacyEventedPLEG
from fakecri.conformance.expectations import Subscriber, ident, owed_events, type_name, unneeded_events
from fakecri.conformance.properties.base import MUST, SHOULD, ExampleView, Property


class SubscribersSeeSameSequence(Property):
    """Two subscribers open at the same time receive the same sequence of events
    (type and id) for the objects created while both were open.

    Source: containerd split events among subscribers with one shared channel
    (containerd#7318, fixed by the eventq fan-out #9661); CRI-O served one client
    (cri-o#6466, fixed in #6838; races with several clients #9004/#9014)."""

    name, level, item = "subscribers-see-same-sequence", SHOULD, "P7"
    basis = ('the CRI says nothing of several subscribers; a kubelet and a crictl or agent watching beside it each'
             ' need every event (containerd#7318)')
    needs = ('containers', 'container_events')
    proof = "drop_events (drawn per subscriber); reorder_events"

    @staticmethod
    def sequence(ex: ExampleView, sub: Subscriber) -> list[tuple[int, str]]:
        out = []
        for rec in sub.snapshot():
            owner = ex.owner(rec.event.container_id)
            if owner is not None and ex.judged_for_all(owner):
                out.append((int(rec.event.container_event_type), rec.event.container_id))
        return out

    def check(self, ex: ExampleView, final: bool) -> None:
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
            ex.exercised(self, min(len(a), len(b)) if final else 0)
            if mismatch is not None:
                def show(seq: list[tuple[int, str]], i: int) -> str:
                    if i >= len(seq):
                        return "nothing"
                    t, ident = seq[i]
                    return f"{type_name(t)} of {ex.owner(ident)!r}"
                ex.violate(self, f"event #{mismatch + 1}: {first} got {show(a, mismatch)}, "
                                 f"{sub} got {show(b, mismatch)}")

    def at_end(self, ex: ExampleView) -> None:
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
    basis = 'the CRI says nothing of slow readers; a kubelet must not lose events because another reader is slow'
    needs = ('containers', 'container_events')
    proof = "checked against fakecri's close, drop and block subscriber policies (tests/conformance)"


class EventsComplete(Property):
    """Every transition the suite caused reaches every open subscriber: CREATED and
    STARTED for what it created and started, STOPPED for everything that ran and
    ended, DELETED for everything removed.

    Source: events dropped when buffers fill (containerd#8892, CRI-O 1000-slot channel
    with a drop counter), lost exits over a restart (containerd#10390, fix #11579)."""

    name, level, item = "events-complete", MUST, "P1, P15"
    basis = ('api.proto GetContainerEvents and ContainerEventType: a runtime that serves the stream sends each '
             'transition (kubelet 1.36 pleg/evented.go relists a pod on its STOPPED)')
    needs = ('containers', 'container_events')
    proof = "drop_events; quirk no-sandbox-deleted-event"

    def at_end(self, ex: ExampleView) -> None:
        for sub in ex.subs:
            have = sub.pairs()
            for owner, t in owed_events(ex.pods, functools.partial(ex.judged, sub)):
                ex.exercised(self)
                if (t, ident(owner)) not in have:
                    ex.violate(self, f"{sub} never received {type_name(t)} of {owner!r}")
            if any((t, ident(c)) not in have
                   for c, t in unneeded_events(ex.pods, functools.partial(ex.judged, sub))):
                ex.note(self, "some STOPPED or DELETED events of containers RemovePodSandbox removed never came: not"
                              " owed, since no kubelet waits for them (it removes a sandbox only once its containers"
                              " are gone: kuberuntime_gc.go)")


class StreamEndIsFailure(Property):
    """When the runtime ends an event stream (clean close, UNIMPLEMENTED, transport
    error), the client counts it as a failure, relists, and reconnects a bounded number
    of times (no busy loop); a clean close is never taken for "no more events".

    Source: CRI-O returns EOF at once when pod events are off (cri-o#7164; #7257
    closed); the fake remote runtime's nil return made the legacy loop spin; the 2026
    kubelet treats a clean close as a failure (k/k#139262). Judged on the client
    library's PLEG; skipped when no stream ended during the run."""

    name, level, item = "stream-end-is-failure", SHOULD, "P9"
    basis = ("kubelet pkg/kubelet/pleg/evented.go counts a stream's end as a failure and falls back to the relist "
             "(k/k#139262); judged on the client library's PLEG")
    proof = "cut_stream (exercised, must pass); checked on the client's StreamLoop"

    @classmethod
    def judge(cls, ex: ExampleView, ended: list[Subscriber], pleg: Any) -> None:
        """At the end of an example: the subscribers whose stream the runtime ended, and
        the PLEG (None when not run) whose stream loop counted failures."""
        failures = pleg.stream_failures if pleg is not None else 0
        if not ended and not failures:
            return
        ex.exercised(cls)
        for s in ended:
            if not isinstance(s.ended, EventStreamClosed):
                ex.violate(cls, f"{s} ended with {type(s.ended).__name__}, not EventStreamClosed")
        if pleg is None:
            return
        errors = pleg.stream_errors
        if len(errors) != failures:
            ex.violate(cls, f"the PLEG counted {failures} stream failures but kept {len(errors)} errors")
        limit = 5
        if failures > limit:
            ex.violate(cls, f"the PLEG reconnected {failures} times (limit {limit}): a busy loop")
        relists = pleg.metrics.relists + pleg.metrics.relist_errors  # attempts: a relist may fail too
        if isinstance(pleg, LegacyEventedPLEG) and relists < failures:
            ex.violate(cls, f"{failures} stream failures but only {relists} relist attempts")


class EventStreamStaysOpen(Property):
    """The runtime keeps an event stream open while it runs; it never ends one on its
    own, with OK or an error.

    Source: CRI-O with pod events off answers GetContainerEvents with an immediate EOF
    (cri-o#7164); containerd ends a stream only on a send error. Every end costs a
    kubelet one of its 5 retries (k/k#129827)."""

    name, level, item = "event-stream-stays-open", SHOULD, "P9"
    basis = 'kubelet pkg/kubelet/pleg/evented.go gives up on events after 5 ends (k/k#129827)'
    needs = ('events',)
    proof = "cut_stream"

    def at_end(self, ex: ExampleView) -> None:
        for sub in [*ex.subs, *ex.late]:
            code = getattr(sub.ended, "code", None)
            if code is not None and code.name == "UNIMPLEMENTED":
                continue  # events are optional in CRI: judged as a skip, not here
            if sub.ended is None and not sub.received:
                continue  # neither an end nor an event: nothing shows the stream was ever open
            ex.exercised(self)
            if sub.ended is None:
                continue
            if code is not None and code.name == "OK" and not sub.received:
                ex.violate(self, f"the runtime closed {sub}'s event stream with OK at once, before any event "
                                 "(a runtime without events should answer UNIMPLEMENTED; a kubelet counts each "
                                 "close as a failure)")
            else:
                ex.violate(self, f"{sub} was ended by the runtime: {sub.ended}")


class NoStaleReplay(Property):
    """A new subscriber gets only events that happen after it subscribed: never an
    event another subscriber had already received before it connected.

    Source: containerd's eventq keeps events for 5 minutes while nobody listens and
    hands that backlog to the first subscriber (possibly stale); the KEP's cache rule
    exists because buffered old events must not overwrite a newer relist."""

    name, level, item = "no-stale-replay", SHOULD, "P10"
    basis = 'kubelet container/cache.go: an event older than the cache must not overwrite it (KEP-3386)'
    needs = ('events',)
    proof = "stale_replay"

    def judges_any_event(self, sub: Subscriber) -> bool:
        return bool(sub.baseline)  # only a subscriber opened after events were received can see a replay

    def on_any_event(self, ex: ExampleView, sub: Subscriber, ev: pb.ContainerEventResponse) -> None:
        key = (ev.container_event_type, ev.container_id)
        if key in sub.baseline:
            ex.violate(self, f"{sub} (opened later) received {type_name(key[0])} of "
                             f"{ex.describe(ev.container_id)}, which happened before it subscribed")
