"""One example: its pods and containers, its event subscribers and PLEG, the calls it
made, and how it reports what the properties find.

Every call an example makes is written to `Example.calls` in a readable form, which
is what a failure report shows. Opening an example (subscribers synced, PLEG started)
and finishing it are in machine.py; the operations in operations.py; the waits in
settling.py.
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient, UnavailableError
from fakecri.client.pleg import CurrentEventedPLEG, LegacyEventedPLEG
from fakecri.client.pleg.lifecycle import EventType, PodLifecycleEvent
from fakecri.conformance import kubelet_calls
from fakecri.conformance import properties as P
from fakecri.conformance.expectations import (
    NAMESPACE,
    RUN_LABEL,
    STOPPED,
    ContainerModel,
    PodModel,
    Subscriber,
)
from fakecri.conformance.profiles import PROFILE_PERIODS
from fakecri.conformance.run_state import RunState

Params = ParamSpec("Params")
T = TypeVar("T")

MIB = 1024 * 1024
UNAVAILABLE_RETRY_S = 15.0


class Violation(AssertionError):
    """A property failed (raised only for the property a focused run shrinks)."""

    def __init__(self, prop: str, message: str) -> None:
        super().__init__(f"[{prop}] {message}")
        self.prop = prop
        self.message = message


class Example:
    """One example's world; see the module docstring."""

    def __init__(self, run: RunState) -> None:
        self.run = run
        self.opts = run.options
        self.client: CRIClient = run.client
        self.calls: list[str] = []
        self.pods: list[PodModel] = []
        self.sentinel: PodModel | None = None
        self.sentinels: list[PodModel] = []
        self.by_id: dict[str, PodModel | ContainerModel] = {}
        self.subs: list[Subscriber] = []
        self.late: list[Subscriber] = []
        self._clients: list[CRIClient] = []
        self.props = [cls() for cls in P.ALL]
        self.relist_events: dict[str, list[EventType]] = {}
        self.relisted: set[str] = set()  # sandbox and container ids some relist of the PLEG saw
        self.cache_samples: dict[str, list[int | None]] = {}
        self.focus_violation: Violation | None = None
        self.finished = False
        self.cleaning = False  # calls made while removing the example's pods are marked so
        self.pod_counter = 0
        self.tag = run.example_tag()  # prefixes the example's object names: unique across examples
        self.profile = self.opts.profile
        period, tick = PROFILE_PERIODS[self.profile]
        self.period, self.tick = period * self.opts.relist_scale, tick * self.opts.relist_scale
        self.pleg: CurrentEventedPLEG | LegacyEventedPLEG | None = None

    # ------------------------------------------------------------ connections

    def new_client(self) -> CRIClient:
        c = CRIClient(self.opts.endpoint, timeout=self.opts.call_timeout)
        self._clients.append(c)
        return c

    def subscribe(self, sub: Subscriber) -> Subscriber:
        """Open `sub`'s event stream on its own connection."""
        sub.watcher = self.new_client().watch_container_events(sub.on_event, on_error=sub.on_error)
        return sub

    def start_pleg(self) -> None:
        client = self.new_client()
        if self.opts.profile == "current":
            pleg: Any = CurrentEventedPLEG(client, relist_period=self.period)
        else:
            pleg = LegacyEventedPLEG(client, relist_period=self.period, global_cache_period=self.tick)
        inner = pleg.generic.relist_observer

        def observe(events: list[PodLifecycleEvent], first: bool) -> None:
            if inner is not None:
                inner(events, first)
            for ev in events:
                self.relist_events.setdefault(ev.container_id, []).append(ev.type)

        pleg.generic.relist_observer = observe
        after = pleg.generic.after_relist

        def note_relisted() -> None:
            if after is not None:
                after()
            for record in pleg.generic.records().values():
                self.relisted.update(record.sandbox_ids())
                self.relisted.update(record.container_ids())

        pleg.generic.after_relist = note_relisted
        self.pleg = pleg.start()

    def close(self) -> None:
        for sub in [*self.subs, *self.late]:
            if sub.watcher is not None:
                sub.watcher.stop()
        if self.pleg is not None:
            self.pleg.stop()
        for c in self._clients:
            c.close()
        self._clients = []

    # ------------------------------------------------------------ reporting

    def violate(self, prop: type[P.Property] | P.Property, message: str) -> None:
        name = prop.name
        self.run.record(name, message, list(self.calls))
        if self.run.focus == name and self.focus_violation is None:
            # Raised at the end of the example, not here: when a check notices depends on
            # timing, and Hypothesis needs every replay to make the same draws.
            self.focus_violation = Violation(name, message)

    def note_beyond_the_relist(self, ids: set[str]) -> None:
        """Objects relist-convergence left out (settling.beyond_the_relist), for its verdict."""
        for ident in sorted(ids, key=self.describe):
            found = self.by_id.get(ident)
            pod = found if isinstance(found, PodModel) else found.pod if found is not None else None
            if pod is not None and pod in self.sentinels:
                text = f"{found!r} (the suite's sync pod)" if found is pod else f"{found!r}"
            else:
                text = self.describe(ident)
            self.run.remark(P.RelistConvergence.name, ident, text)

    def exercised(self, prop: type[P.Property] | P.Property, n: int = 1) -> None:
        self.run.exercised(prop.name, n)

    def note(self, prop: type[P.Property] | P.Property, text: str) -> None:
        """Something the verdict of `prop` should say (once), whatever it is."""
        self.run.add_note(prop.name, text)

    def enabled(self, prop: type[P.Property]) -> bool:
        return self.run.enabled(prop.name)

    def now(self) -> int:
        return time.time_ns()

    def owner(self, ident: str) -> PodModel | ContainerModel | None:
        found = self.by_id.get(ident)
        if isinstance(found, PodModel) and found in self.sentinels:
            return None
        return found

    def describe(self, ident: str) -> str:
        found = self.by_id.get(ident)
        return repr(found) if found is not None else f"an object of an earlier example ({ident[:12]})"

    def describe_uid(self, uid: str) -> str:
        """The pod as call sequences write it; the suite's sync pods say what they are."""
        for pod in self.pods:
            if pod.uid == uid:
                return repr(pod)
        for pod in self.sentinels:
            if pod.uid == uid:
                return f"{pod!r} (the suite's own pod, run to sync the event streams)"
        return uid

    def judged(self, sub: Subscriber, pod: PodModel) -> bool:
        return sub.synced and sub in self.subs and pod not in self.sentinels

    def judged_for_all(self, owner: PodModel | ContainerModel) -> bool:
        pod = owner if isinstance(owner, PodModel) else owner.pod
        return all(self.judged(s, pod) for s in self.subs)

    # ------------------------------------------------------------ calls

    def call(self, text: str, fn: Callable[Params, T], *args: Params.args, **kwargs: Params.kwargs) -> T:
        """Make one CRI call, logged as `text`. UNAVAILABLE (a runtime restarting) is
        retried for a while, as a kubelet would; other errors are raised."""
        self.calls.append(text + ("  # cleanup" if self.cleaning else ""))
        if self.opts.on_call is not None:
            self.opts.on_call(self.run.random_index(), text)
        self.exercised(P.ValidCallsSucceed)
        deadline = time.monotonic() + UNAVAILABLE_RETRY_S
        while True:
            began = time.monotonic()
            try:
                out = fn(*args, **kwargs)
                self.run.timed(text.split("(", 1)[0], time.monotonic() - began)
                return out
            except UnavailableError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def make_pod(self, label: str) -> PodModel:
        label = f"{self.tag}.{label}"
        uid = str(uuid.uuid4())
        name = f"{label}-{uid[:8]}"
        config = kubelet_calls.sandbox_config(name=name, namespace=NAMESPACE, uid=uid,
                                              labels={RUN_LABEL: self.run.run_id},
                                              annotations={"fakecri.io/conformance": "true"},
                                              log_root=self.run.log_root)
        return PodModel(label=label, name=name, uid=uid, config=config)

    def container_config(self, c: ContainerModel) -> pb.ContainerConfig:
        config = kubelet_calls.container_config(name=c.name, attempt=c.attempt, image_ref=self.run.image_ref,
                                                image=self.opts.image, command=c.command, pod=c.pod.config,
                                                labels={RUN_LABEL: self.run.run_id})
        self.run.make_log_dir(c.pod.config, config)
        return config

    # ------------------------------------------------------------ events

    def observe_container(self, c: ContainerModel, state: int, exit_code: int) -> None:
        """Record an exit a status or an event showed, and judge its code."""
        if state != pb.CONTAINER_EXITED:
            return
        if not c.seen_exited:
            self.run.saw("exits")
        c.seen_exited = True
        c.exit_code = exit_code
        P.NoLostExits.judge_exit_code(self, c, exit_code)

    def process_events(self) -> None:
        """Feed every event received since the last call to the properties."""
        for sub in [*self.subs, *self.late]:
            records = sub.snapshot()
            for rec in records[sub.processed:]:
                ev = rec.event
                owner = P.feed_event(self, self.props, sub, ev)
                if owner is not None and sub in self.subs:
                    self.run.event_bytes += ev.ByteSize()
                    self.run.event_count += 1
                    self.run.saw("events")
                    if isinstance(owner, ContainerModel):
                        self.run.saw("container_events")
                if ev.container_event_type == STOPPED and isinstance(owner, ContainerModel):
                    own = P.own_status(ev)
                    if own is not None and own.state == pb.CONTAINER_EXITED:
                        self.observe_container(owner, own.state, own.exit_code)
            sub.processed = len(records)
