"""The state machine: random sequences of CRI calls, with two event subscribers and a
kubelet-like PLEG open, and the checks after every step and at the end of an example.

`Example` holds one example's world (model, subscribers, PLEG) and performs the
operations; `ConformanceMachine` is the Hypothesis RuleBasedStateMachine that picks
them. Every call an example makes is written to `Example.calls` in a readable form,
which is what a failure report shows.
"""
from __future__ import annotations

import shlex
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient, CRIError, NotFoundError, UnavailableError
from fakecri.client.errors import EventStreamClosed, UnimplementedError
from fakecri.client.pleg import CurrentEventedPLEG, LegacyEventedPLEG, State, build_pods
from fakecri.client.pleg.lifecycle import EventType, PodLifecycleEvent
from fakecri.conformance import properties as P
from fakecri.conformance.model import (
    CREATED,
    DELETED,
    EXPECTED_EXIT,
    STARTED,
    STOPPED,
    ContainerModel,
    PodModel,
    Subscriber,
)
from fakecri.conformance.profiles import PROFILE_PERIODS, PROFILES

__all__ = ["PROFILES", "ConformanceMachine", "Example", "Violation", "scripted"]

if TYPE_CHECKING:
    from fakecri.conformance.runner import RunState

RUN_LABEL = "fakecri.io/conformance-run"
NAMESPACE = "fakecri-conformance"
CONTAINER_NAMES = ("a", "b", "c")
KINDS = ("long", "instant", "short")
MIB = 1024 * 1024
UNAVAILABLE_RETRY_S = 15.0
# How long each sync attempt waits for the sentinel's events before trying another.
SYNC_WAITS = (0.1, 0.3, 1.0, 3.0, 3.0, 3.0)


class Violation(AssertionError):
    """A property failed (raised only for the property a focused run shrinks)."""

    def __init__(self, prop: str, message: str) -> None:
        super().__init__(f"[{prop}] {message}")
        self.prop = prop
        self.message = message


def _q(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


class Example:
    """One example: its pods and containers, two synced subscribers, a PLEG."""

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
        self.cache_samples: dict[str, list[int | None]] = {}
        self.focus_violation: Violation | None = None
        self.finished = False
        self.cleaning = False  # calls made while removing the example's pods are marked so
        self._pod_counter = 0
        self.period, self.tick = PROFILE_PERIODS[self.opts.profile]
        self.pleg: CurrentEventedPLEG | LegacyEventedPLEG | None = None
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ set-up and tear-down

    def _new_client(self) -> CRIClient:
        c = CRIClient(self.opts.endpoint, timeout=self.opts.call_timeout)
        self._clients.append(c)
        return c

    def _open(self) -> None:
        baseline = self.run.baseline()
        for name in ("A", "B"):
            sub = Subscriber(name, baseline)
            sub.watcher = self._new_client().watch_container_events(sub.on_event, on_error=sub.on_error)
            self.late.append(sub)  # promoted to self.subs once synced
        if self.run.wants_pleg():
            self._start_pleg()
        self._sync()

    def _start_pleg(self) -> None:
        client = self._new_client()
        if self.opts.profile == "current":
            pleg: Any = CurrentEventedPLEG(client)
        else:
            pleg = LegacyEventedPLEG(client, relist_period=self.period, global_cache_period=self.tick)
        inner = pleg.generic.relist_observer

        def observe(events: list[PodLifecycleEvent], first: bool) -> None:
            if inner is not None:
                inner(events, first)
            for ev in events:
                self.relist_events.setdefault(ev.container_id, []).append(ev.type)

        pleg.generic.relist_observer = observe
        self.pleg = pleg.start()

    def _sync(self) -> None:
        """Run sentinel pods until both subscribers have received an event about one:
        from then on neither can have missed anything for being late to register."""
        for attempt, wait in enumerate(SYNC_WAITS):
            pod = self._make_pod(f"sentinel-{attempt}")
            try:
                pod.sid = self.call(f"RunPodSandbox({pod})  # sync", self.client.run_pod_sandbox, pod.config)
            except CRIError as exc:
                self.violate(P.ValidCallsSucceed, f"RunPodSandbox({pod}) failed: {exc}")
                return
            pod.created = True
            self.sentinels.append(pod)
            self.by_id[pod.sid] = pod
            waiting = [s for s in self.late if s not in self.subs]
            deadline = time.monotonic() + min(wait, self.opts.sync_timeout)
            while waiting and time.monotonic() < deadline:
                # Any event about any sentinel proves the stream was registered before it.
                sids = {p.sid for p in self.sentinels}
                waiting = [s for s in waiting if not any(r.event.container_id in sids for r in s.snapshot())
                           and s.ended is None]
                if waiting:
                    time.sleep(0.01)
            for s in self.late:
                if s not in waiting and s not in self.subs and s.ended is None:
                    s.synced = True
                    self.subs.append(s)
            self.late = [s for s in self.late if s not in self.subs]
            if not self.late:
                return
        # A correct runtime delivers a sentinel's events within seconds; one that never
        # does is judged all the same (what it misses counts against it).
        for s in self.late:
            if s.ended is None:
                s.synced = True
                self.subs.append(s)
        self.late = [s for s in self.late if s not in self.subs]

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

    def applicable(self, prop: type[P.Property], note: str = "") -> None:
        self.run.mark_applicable(prop.name, note)

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
        for pod in [*self.pods, *self.sentinels]:
            if pod.uid == uid:
                return repr(pod)
        return uid

    def judged(self, sub: Subscriber, pod: PodModel) -> bool:
        return sub.synced and sub in self.subs and pod not in self.sentinels

    def judged_for_all(self, owner: PodModel | ContainerModel) -> bool:
        pod = owner if isinstance(owner, PodModel) else owner.pod
        return all(self.judged(s, pod) for s in self.subs)

    # ------------------------------------------------------------ calls

    def call(self, text: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Make one CRI call, logged as `text`. UNAVAILABLE (a runtime restarting) is
        retried for a while, as a kubelet would; other errors are raised."""
        self.calls.append(text + ("  # cleanup" if self.cleaning else ""))
        deadline = time.monotonic() + UNAVAILABLE_RETRY_S
        while True:
            try:
                return fn(*args, **kwargs)
            except UnavailableError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def _make_pod(self, label: str) -> PodModel:
        uid = str(uuid.uuid4())
        name = f"{label}-{uid[:8]}"
        labels = {
            RUN_LABEL: self.run.run_id,
            "io.kubernetes.pod.name": name,
            "io.kubernetes.pod.namespace": NAMESPACE,
            "io.kubernetes.pod.uid": uid,
        }
        config = pb.PodSandboxConfig(
            metadata=pb.PodSandboxMetadata(name=name, namespace=NAMESPACE, uid=uid, attempt=0),
            hostname=label,
            labels=labels,
            annotations={"fakecri.io/conformance": "true"},
        )
        return PodModel(label=label, name=name, uid=uid, config=config)

    def _container_config(self, c: ContainerModel) -> pb.ContainerConfig:
        return pb.ContainerConfig(
            metadata=pb.ContainerMetadata(name=c.name, attempt=c.attempt),
            image=pb.ImageSpec(image=self.opts.image),
            command=c.command,
            labels={
                RUN_LABEL: self.run.run_id,
                "io.kubernetes.container.name": c.name,
                "io.kubernetes.pod.uid": c.pod.uid,
                "io.kubernetes.pod.name": c.pod.name,
                "io.kubernetes.pod.namespace": NAMESPACE,
            },
            linux=pb.LinuxContainerConfig(
                resources=pb.LinuxContainerResources(cpu_shares=256, memory_limit_in_bytes=64 * MIB)
            ),
        )

    def _status(self, c: ContainerModel) -> pb.ContainerStatus | None:
        """ContainerStatus, None if NOT_FOUND; records what it shows."""
        try:
            st_ = self.call(f"ContainerStatus({c})", self.client.container_status, c.cid).status
        except NotFoundError:
            return None
        except CRIError as exc:
            self.violate(P.ValidCallsSucceed, f"ContainerStatus({c}) failed: {exc}")
            return None
        self._observe_container(c, st_.state, st_.exit_code)
        return st_

    def _observe_container(self, c: ContainerModel, state: int, exit_code: int) -> None:
        if state != pb.CONTAINER_EXITED:
            return
        c.seen_exited = True
        c.exit_code = exit_code
        self.applicable(P.NoLostExits)
        expected = EXPECTED_EXIT[c.kind]
        if expected is not None and c.started and not (c.stop_called or c.pod.stopped or c.removed) \
                and exit_code != expected:
            self.violate(P.NoLostExits, f"{c} ran `{_q(c.command)}` but the runtime reports exit code "
                                        f"{exit_code}, not {expected}")

    # ------------------------------------------------------------ operations

    def op_run_pod(self) -> PodModel | None:
        self._pod_counter += 1
        pod = self._make_pod(f"pod-{self._pod_counter}")
        try:
            pod.sid = self.call(f"RunPodSandbox({pod})", self.client.run_pod_sandbox, pod.config)
        except CRIError as exc:
            self.violate(P.ValidCallsSucceed, f"RunPodSandbox({pod}) failed: {exc}")
            return None
        pod.created = True
        self.pods.append(pod)
        self.by_id[pod.sid] = pod
        return pod

    def op_create(self, pod: PodModel, name: str, kind: str, start: bool) -> ContainerModel | None:
        attempt = 1 + max((c.attempt for c in pod.containers if c.name == name), default=-1)
        c = ContainerModel(pod=pod, name=name, attempt=attempt, kind=kind)
        try:
            c.cid = self.call(f"CreateContainer({pod}, {name} attempt {attempt}, `{_q(c.command)}`) -> {c}",
                              self.client.create_container, pod.sid, self._container_config(c), pod.config)
        except CRIError as exc:
            self.violate(P.ValidCallsSucceed, f"CreateContainer {c} in a ready sandbox failed: {exc}")
            return None
        c.created = True
        pod.containers.append(c)
        self.by_id[c.cid] = c
        if start:
            self.op_start(c)
        return c

    def op_start(self, c: ContainerModel) -> None:
        try:
            self.call(f"StartContainer({c})", self.client.start_container, c.cid)
        except CRIError as exc:
            self.violate(P.ValidCallsSucceed, f"StartContainer({c}) of a created container failed: {exc}")
            return
        c.started = True

    def op_stop_container(self, c: ContainerModel) -> None:
        again = c.removed or c.stop_called or c.pod.stopped
        try:
            self.call(f"StopContainer({c}, timeout=0)", self.client.stop_container, c.cid, 0)
        except CRIError as exc:
            prop = P.IdempotentStopRemove if again or not c.started else P.ValidCallsSucceed
            self.violate(prop, f"StopContainer({c}) ({self._state_words(c)}) failed: {exc}")
            return
        if again:
            self.applicable(P.IdempotentStopRemove)
        if c.removed:
            return
        if c.started:
            c.stop_called = True
            st_ = self._status(c)
            if st_ is not None and st_.state != pb.CONTAINER_EXITED:
                self.violate(P.ValidCallsSucceed, f"StopContainer({c}) returned but the container is "
                                                  f"{pb.ContainerState.Name(st_.state)}")

    def _settle_exit(self, c: ContainerModel) -> None:
        """Before a removal, let the cache see an exited container's code (no-lost-exits)."""
        if c.started and not c.removed:
            st_ = self._status(c)
            if st_ is not None and st_.state == pb.CONTAINER_EXITED:
                self.wait_exit_in_cache(c, st_.exit_code)

    def op_remove_container(self, c: ContainerModel) -> None:
        again = c.removed
        self._settle_exit(c)
        try:
            self.call(f"RemoveContainer({c})", self.client.remove_container, c.cid)
        except CRIError as exc:
            prop = P.IdempotentStopRemove if again else P.ValidCallsSucceed
            self.violate(prop, f"RemoveContainer({c}) ({self._state_words(c)}) failed: {exc}")
            return
        if again:
            self.applicable(P.IdempotentStopRemove)
        c.removed = True
        self._expect_not_found(c)

    def _expect_not_found(self, c: ContainerModel) -> None:
        try:
            got = self.call(f"ContainerStatus({c})", self.client.container_status, c.cid)
        except NotFoundError:
            self.applicable(P.IdempotentStopRemove)
            return
        except CRIError as exc:
            self.violate(P.IdempotentStopRemove, f"ContainerStatus of removed {c} failed with {exc.code.name}, "
                                                 "not NOT_FOUND")
            return
        self.violate(P.IdempotentStopRemove, f"ContainerStatus of removed {c} answered OK "
                                             f"({pb.ContainerState.Name(got.status.state)}), not NOT_FOUND")

    def op_container_status(self, c: ContainerModel) -> None:
        if c.removed:
            self._expect_not_found(c)
            return
        st_ = self._status(c)
        if st_ is None:
            self.violate(P.ValidCallsSucceed, f"ContainerStatus({c}) is NOT_FOUND but it was never removed")
            return
        state = st_.state
        if c.started and (c.stop_called or c.pod.stopped) and state != pb.CONTAINER_EXITED:
            prop = P.SandboxStopRemoveCascades if c.pod.stopped and not c.stop_called else P.ValidCallsSucceed
            self.violate(prop, f"{c} is {pb.ContainerState.Name(state)} after it was stopped")
        elif c.started and state == pb.CONTAINER_CREATED:
            self.violate(P.ValidCallsSucceed, f"{c} is still CREATED after StartContainer answered OK")
        elif not c.started and state == pb.CONTAINER_RUNNING:
            self.violate(P.ValidCallsSucceed, f"{c} is RUNNING but was never started")

    def op_stop_pod(self, pod: PodModel) -> None:
        again = pod.stopped or pod.removed
        try:
            self.call(f"StopPodSandbox({pod})", self.client.stop_pod_sandbox, pod.sid)
        except CRIError as exc:
            prop = P.IdempotentStopRemove if again else P.ValidCallsSucceed
            self.violate(prop, f"StopPodSandbox({pod}) ({'again' if again else 'ready'}) failed: {exc}")
            return
        if again:
            self.applicable(P.IdempotentStopRemove)
        if pod.removed:
            return
        pod.stopped = True
        self.applicable(P.SandboxStopRemoveCascades)
        for c in self._list_pod_containers(pod):
            if c.state == pb.CONTAINER_RUNNING:
                self.violate(P.SandboxStopRemoveCascades, f"after StopPodSandbox({pod}) container "
                                                          f"{self.describe(c.id)} is still RUNNING")
        for c in pod.containers:
            if c.started and not c.removed:
                self._status(c)

    def op_remove_pod(self, pod: PodModel) -> None:
        again = pod.removed
        if not again:
            for c in pod.containers:
                self._settle_exit(c)
        try:
            self.call(f"RemovePodSandbox({pod})", self.client.remove_pod_sandbox, pod.sid)
        except CRIError as exc:
            prop = P.IdempotentStopRemove if again else P.ValidCallsSucceed
            self.violate(prop, f"RemovePodSandbox({pod}) failed: {exc}")
            return
        if again:
            self.applicable(P.IdempotentStopRemove)
            return
        pod.removed = pod.stopped = True
        self.applicable(P.SandboxStopRemoveCascades)
        left = self._list_pod_containers(pod)
        if left:
            self.violate(P.SandboxStopRemoveCascades, f"after RemovePodSandbox({pod}) its containers are still "
                                                      f"listed: {', '.join(self.describe(c.id) for c in left)}")
        for c in pod.containers:
            if not c.removed:
                c.removed = True
                try:
                    self.call(f"ContainerStatus({c})", self.client.container_status, c.cid)
                except NotFoundError:
                    continue
                except CRIError:
                    continue
                self.violate(P.SandboxStopRemoveCascades, f"after RemovePodSandbox({pod}) ContainerStatus({c}) "
                                                          "still answers")
        try:
            self.call(f"PodSandboxStatus({pod})", self.client.pod_sandbox_status, pod.sid)
        except NotFoundError:
            return
        except CRIError as exc:
            self.violate(P.IdempotentStopRemove, f"PodSandboxStatus of removed {pod} failed with "
                                                 f"{exc.code.name}, not NOT_FOUND")
            return
        self.violate(P.IdempotentStopRemove, f"PodSandboxStatus of removed {pod} answered OK, not NOT_FOUND")

    def _list_pod_containers(self, pod: PodModel) -> list[pb.Container]:
        try:
            return self.call(f"ListContainers(sandbox={pod})", self.client.list_containers,
                             {"pod_sandbox_id": pod.sid})
        except CRIError as exc:
            self.violate(P.ValidCallsSucceed, f"ListContainers(sandbox={pod}) failed: {exc}")
            return []

    def op_pod_status(self, pod: PodModel) -> None:
        if pod.removed:
            try:
                self.call(f"PodSandboxStatus({pod})", self.client.pod_sandbox_status, pod.sid)
            except NotFoundError:
                self.applicable(P.IdempotentStopRemove)
                return
            except CRIError as exc:
                self.violate(P.IdempotentStopRemove, f"PodSandboxStatus of removed {pod} failed with "
                                                     f"{exc.code.name}, not NOT_FOUND")
                return
            self.violate(P.IdempotentStopRemove, f"PodSandboxStatus of removed {pod} answered OK, not NOT_FOUND")
            return
        try:
            resp = self.call(f"PodSandboxStatus({pod})", self.client.pod_sandbox_status, pod.sid)
        except CRIError as exc:
            self.violate(P.ValidCallsSucceed, f"PodSandboxStatus({pod}) failed: {exc}")
            return
        want = pb.SANDBOX_NOTREADY if pod.stopped else pb.SANDBOX_READY
        if resp.status.state != want:
            self.violate(P.ValidCallsSucceed, f"PodSandboxStatus({pod}) shows "
                                              f"{pb.PodSandboxState.Name(resp.status.state)}, expected "
                                              f"{pb.PodSandboxState.Name(want)}")
        self.check_status_timestamp(pod, resp)

    def check_status_timestamp(self, pod: PodModel, resp: pb.PodSandboxStatusResponse) -> None:
        self.applicable(P.StatusTimestampWithStatuses)
        live = [c for c in pod.containers if c.live]
        listed = {s.id for s in resp.containers_statuses}
        if resp.timestamp:
            if resp.timestamp < P.MIN_NS or abs(resp.timestamp - self.now()) > P.NS_SLACK:
                self.violate(P.CreatedAtNanosecondsMonotonic, f"PodSandboxStatus({pod}).timestamp={resp.timestamp} "
                                                              "is not nanoseconds near the current time")
            if live and not listed:
                self.violate(P.StatusTimestampWithStatuses, f"PodSandboxStatus({pod}) sets timestamp but no "
                                                            f"containers_statuses while {live[0]} exists")
        elif listed:
            self.violate(P.StatusTimestampWithStatuses, f"PodSandboxStatus({pod}) sets containers_statuses "
                                                        "without a timestamp")

    def op_update(self, c: ContainerModel, shares: int, memory_mib: int, valid: bool) -> None:
        before = self._status(c)
        if before is None:
            return
        if not before.HasField("resources") or not before.resources.HasField("linux"):
            self.run.note_skip(P.ResourcesStickAllOrNothing.name, "the runtime reports no ContainerStatus.resources")
            return
        old = before.resources.linux
        memory = memory_mib * MIB if valid else MIB  # below 4 MiB: runc refuses it
        req = pb.LinuxContainerResources(cpu_shares=shares, memory_limit_in_bytes=memory,
                                         cpu_period=old.cpu_period, cpu_quota=old.cpu_quota)
        text = f"UpdateContainerResources({c}, cpu_shares={shares}, memory={memory // MIB if valid else 1}Mi)"
        try:
            self.call(text, self.client.update_container_resources, c.cid, linux=req)
            failed: CRIError | None = None
        except UnimplementedError:
            self.run.note_skip(P.ResourcesStickAllOrNothing.name, "UpdateContainerResources is UNIMPLEMENTED")
            return
        except CRIError as exc:
            failed = exc
        after = self._status(c)
        if after is None:
            return
        self.applicable(P.ResourcesStickAllOrNothing)
        new = after.resources.linux
        if failed is None:
            if (new.cpu_shares, new.memory_limit_in_bytes) != (shares, memory):
                self.violate(P.ResourcesStickAllOrNothing,
                             f"{text} answered OK but ContainerStatus shows cpu_shares={new.cpu_shares}, "
                             f"memory_limit_in_bytes={new.memory_limit_in_bytes}")
        else:
            if (new.cpu_shares, new.memory_limit_in_bytes) != (old.cpu_shares, old.memory_limit_in_bytes):
                self.violate(P.ResourcesStickAllOrNothing,
                             f"{text} failed ({failed.code.name}) but changed the resources: cpu_shares "
                             f"{old.cpu_shares}->{new.cpu_shares}, memory {old.memory_limit_in_bytes}->"
                             f"{new.memory_limit_in_bytes}")
            if valid and after.state == pb.CONTAINER_RUNNING:
                self.violate(P.ValidCallsSucceed, f"{text} of a running container failed: {failed}")

    def op_duplicate(self, c: ContainerModel) -> None:
        dup = ContainerModel(pod=c.pod, name=c.name, attempt=c.attempt, kind="long")
        try:
            cid = self.call(f"CreateContainer({c.pod}, {c.name} attempt {c.attempt}, `{_q(dup.command)}`)"
                            "  # duplicate", self.client.create_container, c.pod.sid,
                            self._container_config(dup), c.pod.config)
        except CRIError:
            self.applicable(P.NoDuplicateLiveContainers)
            return
        dup.cid, dup.created = cid, True
        c.pod.containers.append(dup)
        self.by_id[cid] = dup
        self.violate(P.NoDuplicateLiveContainers, f"CreateContainer accepted a second {c.name} attempt "
                                                  f"{c.attempt} in {c.pod} while {c} exists")

    def op_lists(self) -> None:
        """Unary and Stream* lists (filtered to this run), compared with each other and
        with the model; the status of every live pod."""
        sel = {"label_selector": {RUN_LABEL: self.run.run_id}}
        sandboxes = self._list_pair("ListPodSandbox", self.client.list_pod_sandbox, sel,
                                    lambda s: (s.id, s.state))
        containers = self._list_pair("ListContainers", self.client.list_containers, sel,
                                     lambda c: (c.id, c.state))
        self._list_pair("ListContainerStats", self.client.list_container_stats, sel,
                        lambda s: (s.attributes.id,))
        if sandboxes is not None:
            listed = {s.id for s in sandboxes}
            for pod in self.pods:
                if pod.removed and pod.sid in listed:
                    self.violate(P.ValidCallsSucceed, f"ListPodSandbox still lists removed {pod}")
                elif not pod.removed and pod.sid not in listed:
                    self.violate(P.ValidCallsSucceed, f"ListPodSandbox does not list {pod}")
        if containers is not None:
            listed_c = {c.id for c in containers}
            for pod in self.pods:
                for c in pod.containers:
                    if c.removed and c.cid in listed_c:
                        prop = P.SandboxStopRemoveCascades if pod.removed else P.ValidCallsSucceed
                        self.violate(prop, f"ListContainers still lists removed {c}")
                    elif c.live and c.cid not in listed_c:
                        self.violate(P.ValidCallsSucceed, f"ListContainers does not list {c}")
        for pod in self.pods:
            if not pod.removed:
                self.op_pod_status(pod)

    def _list_pair(self, what: str, fn: Callable[..., list[Any]], sel: dict[str, Any],
                   key: Callable[[Any], tuple[Any, ...]]) -> list[Any] | None:
        stream_name = {"ListPodSandbox": "StreamPodSandboxes", "ListContainers": "StreamContainers",
                       "ListContainerStats": "StreamContainerStats"}[what]
        unary: list[Any] = []
        for attempt in range(3):
            try:
                unary = self.call(f"{what}(run label)", fn, sel)
                if stream_name in self.client.unimplemented_streams:
                    self.run.note_skip(P.StreamListsEqualUnary.name, f"{stream_name} is UNIMPLEMENTED")
                    return unary
                streamed = self.call(f"{stream_name}(run label)", fn, sel, streaming=True)
            except CRIError as exc:
                self.violate(P.ValidCallsSucceed, f"{what}/{stream_name} failed: {exc}")
                return None
            if stream_name in self.client.unimplemented_streams:
                self.run.note_skip(P.StreamListsEqualUnary.name, f"{stream_name} is UNIMPLEMENTED")
                return unary
            a = sorted(key(x) for x in unary)
            b = sorted(key(x) for x in streamed)
            dups = len(streamed) != len({key(x)[0] for x in streamed})
            if a == b and not dups:
                self.applicable(P.StreamListsEqualUnary)
                return unary
            if attempt == 2:  # three tries: a container may have exited between the two calls
                why = "repeats an item" if dups else f"gives {len(b)} items where the unary list gives {len(a)}" \
                    if len(a) != len(b) else "disagrees with the unary list"
                self.violate(P.StreamListsEqualUnary, f"{stream_name} {why}")
        return unary

    def op_reconnect(self) -> None:
        """Open one more subscriber (closing the previous late one): it is checked for
        order and stale replay, not for completeness."""
        for sub in self.late:
            if sub.watcher is not None:
                sub.watcher.stop()
                sub.watcher = None
        self.process_events()
        name = f"late-{len(self.calls)}"
        sub = Subscriber(name, self.run.baseline(extra=self.subs + self.late))
        self.calls.append(f"GetContainerEvents()  # subscriber {name}")
        sub.watcher = self._new_client().watch_container_events(sub.on_event, on_error=sub.on_error)
        self.late.append(sub)

    # ------------------------------------------------------------ checks

    def process_events(self) -> None:
        for sub in [*self.subs, *self.late]:
            records = sub.snapshot()
            for rec in records[sub.processed:]:
                ev = rec.event
                owner = P.feed_event(self, self.props, sub, ev)
                if ev.container_event_type == STOPPED and isinstance(owner, ContainerModel):
                    own = P.own_status(ev)
                    if own is not None and own.state == pb.CONTAINER_EXITED:
                        self._observe_container(owner, own.state, own.exit_code)
            sub.processed = len(records)

    def after_step(self) -> None:
        self.process_events()
        P.SubscribersSeeSameSequence().check(self, final=False)
        self.sample_cache()
        sel = {"label_selector": {RUN_LABEL: self.run.run_id}}
        try:
            containers = self.client.list_containers(sel)
        except CRIError:
            return
        for sid, name in P.duplicate_live(containers):
            owner = self.by_id.get(sid)
            self.violate(P.NoDuplicateLiveContainers, f"two live containers named {name} in {owner!r}")

    def sample_cache(self) -> None:
        if self.pleg is None:
            return
        for pod in [*self.pods, *self.sentinels]:
            entry = self.pleg.cache.get(pod.uid)
            self.cache_samples.setdefault(pod.uid, []).append(None if entry is None else entry.modified)

    def truth(self) -> dict[str, dict[str, State]]:
        sel = {"label_selector": {RUN_LABEL: self.run.run_id}}
        pods = build_pods(self.client.list_pod_sandbox(sel), self.client.list_containers(sel))
        return {uid: {cid: rec.state for cid, rec in pod.containers.items()} for uid, pod in pods.items()}

    def bound(self) -> float:
        return self.period + self.tick + self.opts.margin

    def wait_converged(self, phase: str) -> None:
        if self.pleg is None or not self.enabled(P.RelistConvergence):
            return
        self.applicable(P.RelistConvergence)
        uids = [p.uid for p in [*self.pods, *self.sentinels]]
        deadline = time.monotonic() + self.bound()
        diff: list[str] = []
        while True:
            self.sample_cache()
            try:
                truth = self.truth()
            except CRIError as exc:
                diff = [f"listing failed: {exc}"]
            else:
                diff = []
                for uid in uids:
                    want = truth.get(uid)
                    entry = self.pleg.cache.get(uid)
                    have = entry.status.states() if entry is not None and entry.status is not None else None
                    if want is None and entry is None:
                        continue
                    if want != have:
                        diff.append(f"{self.describe_uid(uid)}: cache {self._states(have, entry)} vs runtime "
                                    f"{self._states(want, None)}")
            if not diff:
                return
            if time.monotonic() > deadline:
                self.violate(P.RelistConvergence, f"{phase}: {self.bound():g}s later the cache still differs from "
                                                  f"a fresh relist: {'; '.join(diff[:3])}")
                return
            time.sleep(0.05)

    def _states(self, states: dict[str, State] | None, entry: Any) -> str:
        if states is None:
            return "absent" if entry is None else f"no status ({entry.error})"
        return "{" + ", ".join(f"{self.describe(i)}={s.value}" for i, s in sorted(states.items())) + "}"

    def wait_exit_in_cache(self, c: ContainerModel, code: int) -> None:
        """no-lost-exits: before the suite removes an exited container, the PLEG cache
        must show it EXITED with the runtime's exit code (within the relist bound)."""
        if self.pleg is None or not self.enabled(P.NoLostExits):
            return
        self.applicable(P.NoLostExits)
        deadline = time.monotonic() + self.bound()
        while True:
            self.sample_cache()
            entry = self.pleg.cache.get(c.pod.uid)
            if entry is not None and entry.status is not None:
                states = entry.status.states()
                codes = entry.status.exit_codes()
                if states.get(c.cid) is State.EXITED and codes.get(c.cid) == code:
                    return
            if time.monotonic() > deadline:
                seen = "absent" if entry is None or entry.status is None else \
                    f"{entry.status.states().get(c.cid, State.NON_EXISTENT).value}" \
                    f" code {entry.status.exit_codes().get(c.cid)}"
                self.violate(P.NoLostExits, f"{c} exited with {code}, but {self.bound():g}s later the cache "
                                            f"shows it {seen}")
                return
            time.sleep(0.02)

    def owed_events(self, sub: Subscriber) -> list[tuple[PodModel | ContainerModel, int]]:
        out: list[tuple[PodModel | ContainerModel, int]] = []
        for pod in self.pods:
            if not self.judged(sub, pod):
                continue
            out += [(pod, CREATED), (pod, STARTED)]
            if pod.stopped:
                out.append((pod, STOPPED))
            if pod.removed:
                out.append((pod, DELETED))
            for c in pod.containers:
                out.append((c, CREATED))
                if c.started and EXPECTED_EXIT[c.kind] is None:
                    out.append((c, STARTED))  # an instant exit may legitimately skip STARTED
                if c.must_have_stopped():
                    out.append((c, STOPPED))
                if c.removed:
                    out.append((c, DELETED))
        return out

    def settle(self) -> None:
        """Wait (bounded) until every subscriber has every event it is owed."""
        deadline = time.monotonic() + self.opts.settle_timeout
        last_count, quiet_since = -1, time.monotonic()
        while time.monotonic() < deadline:
            if all(all((t, o.cid if isinstance(o, ContainerModel) else o.sid) in s.pairs()
                       for o, t in self.owed_events(s)) for s in self.subs):
                break
            count = sum(len(s.received) for s in self.subs)
            if count != last_count:
                last_count, quiet_since = count, time.monotonic()
            elif time.monotonic() - quiet_since > self.opts.settle_quiet:
                break  # nothing has arrived for a while: what is missing is not coming
            time.sleep(0.02)
        time.sleep(0.05)  # let duplicates and stragglers in
        self.process_events()

    def check_stream_ends(self) -> None:
        ended = [s for s in [*self.subs, *self.late] if s.ended is not None]
        pleg = self.pleg
        failures = pleg.stream_failures if pleg is not None else 0
        if not ended and not failures:
            return
        self.applicable(P.StreamEndIsFailure)
        for s in ended:
            if not isinstance(s.ended, EventStreamClosed):
                self.violate(P.StreamEndIsFailure, f"{s} ended with {type(s.ended).__name__}, not EventStreamClosed")
        if pleg is None:
            return
        errors = pleg.stream_errors
        if len(errors) != failures:
            self.violate(P.StreamEndIsFailure, f"the PLEG counted {failures} stream failures but kept "
                                               f"{len(errors)} errors")
        limit = 5
        if failures > limit:
            self.violate(P.StreamEndIsFailure, f"the PLEG reconnected {failures} times (limit {limit}): a busy loop")
        relists = pleg.metrics.relists + pleg.metrics.relist_errors  # attempts: a relist may fail too
        if isinstance(pleg, LegacyEventedPLEG) and relists < failures:
            self.violate(P.StreamEndIsFailure, f"{failures} stream failures but only {relists} relist attempts")

    def cleanup(self) -> None:
        """Remove every pod of the example (RemovePodSandbox cascades), sentinels too."""
        for pod in self.pods:
            if not pod.removed:
                self.op_remove_pod(pod)
        for pod in self.sentinels:
            if not pod.removed:
                try:
                    self.call(f"RemovePodSandbox({pod})  # sync", self.client.remove_pod_sandbox, pod.sid)
                    pod.removed = pod.stopped = True
                except CRIError as exc:
                    self.violate(P.ValidCallsSucceed, f"RemovePodSandbox({pod}) failed: {exc}")

    def finish(self) -> None:
        """End of example: convergence with pods present, cleanup, settle, end checks."""
        if self.finished:
            return
        self.finished = True
        try:
            self.process_events()
            self.wait_converged("with the pods running")
            self.cleaning = True
            self.cleanup()
            self.settle()
            self.wait_converged("after the pods were removed")
            self.check_stream_ends()
            if self.pleg is not None:
                # One more relist, like the next periodic one, so the relist table is
                # judged on a relist that saw the pods gone (legacy: events emptied the
                # cache before its slow relist came round).
                self.pleg.generic.relist()
                if any(v is not None for series in self.cache_samples.values() for v in series):
                    self.applicable(P.CacheMonotonic)
                if any(self.owner(i) is not None for i in self.relist_events):
                    self.applicable(P.RelistTable)
                    self.applicable(P.NoMissedEvents)
            for prop in self.props:
                prop.at_end(self)
        finally:
            self.run.example_done(self)
            self.close()
        if self.focus_violation is not None:
            raise self.focus_violation

    @staticmethod
    def _state_words(c: ContainerModel) -> str:
        if c.removed:
            return "already removed"
        if c.stop_called:
            return "already stopped"
        return "running" if c.started else "created"


# ---------------------------------------------------------------- the Hypothesis machine


def _ready(m: ConformanceMachine) -> list[PodModel]:
    return [p for p in m.ex.pods if p.ready and any(not any(c.live and c.name == n for c in p.containers)
                                                      for n in CONTAINER_NAMES)]


def _containers(m: ConformanceMachine) -> list[ContainerModel]:
    return [c for p in m.ex.pods for c in p.containers]


class ConformanceMachine(RuleBasedStateMachine):
    """Random CRI call sequences against one runtime; see Example for the checks."""

    def __init__(self, run: RunState) -> None:
        super().__init__()
        self.ex = Example(run)
        run.current = self.ex

    @initialize(kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3))
    def first_pod(self, kinds: list[str]) -> None:
        """Every example starts with a pod running one to three containers."""
        pod = self.ex.op_run_pod()
        if pod is not None:
            for name, kind in zip(CONTAINER_NAMES, kinds):
                self.ex.op_create(pod, name, kind, True)

    @rule()
    def run_pod(self) -> None:
        self.ex.op_run_pod()

    @precondition(lambda self: bool(_ready(self)))
    @rule(data=st.data(), kind=st.sampled_from(KINDS), start=st.booleans())
    def create_container(self, data: st.DataObject, kind: str, start: bool) -> None:
        pod = data.draw(st.sampled_from(_ready(self)), label="pod")
        free = [n for n in CONTAINER_NAMES if not any(c.live and c.name == n for c in pod.containers)]
        name = data.draw(st.sampled_from(free), label="name")
        self.ex.op_create(pod, name, kind, start)

    @precondition(lambda self: any(c.created and not c.started and not c.removed and c.pod.ready
                                   for c in _containers(self)))
    @rule(data=st.data())
    def start_container(self, data: st.DataObject) -> None:
        c = data.draw(st.sampled_from([c for c in _containers(self)
                                       if c.created and not c.started and not c.removed and c.pod.ready]),
                      label="container")
        self.ex.op_start(c)

    @precondition(lambda self: bool(_containers(self)))
    @rule(data=st.data())
    def stop_container(self, data: st.DataObject) -> None:
        self.ex.op_stop_container(data.draw(st.sampled_from(_containers(self)), label="container"))

    @precondition(lambda self: bool(_containers(self)))
    @rule(data=st.data())
    def remove_container(self, data: st.DataObject) -> None:
        self.ex.op_remove_container(data.draw(st.sampled_from(_containers(self)), label="container"))

    @precondition(lambda self: bool(_containers(self)))
    @rule(data=st.data())
    def container_status(self, data: st.DataObject) -> None:
        self.ex.op_container_status(data.draw(st.sampled_from(_containers(self)), label="container"))

    @precondition(lambda self: any(c.live and c.pod.ready for c in _containers(self)))
    @rule(data=st.data(), shares=st.sampled_from([128, 512, 1024]), memory_mib=st.sampled_from([32, 128]),
          valid=st.booleans())
    def update_resources(self, data: st.DataObject, shares: int, memory_mib: int, valid: bool) -> None:
        c = data.draw(st.sampled_from([c for c in _containers(self) if c.live and c.pod.ready]), label="container")
        self.ex.op_update(c, shares, memory_mib, valid)

    @precondition(lambda self: any(c.live and c.pod.ready for c in _containers(self)))
    @rule(data=st.data())
    def create_duplicate(self, data: st.DataObject) -> None:
        c = data.draw(st.sampled_from([c for c in _containers(self) if c.live and c.pod.ready]), label="container")
        self.ex.op_duplicate(c)

    @precondition(lambda self: bool(self.ex.pods))
    @rule(data=st.data())
    def stop_pod(self, data: st.DataObject) -> None:
        self.ex.op_stop_pod(data.draw(st.sampled_from(self.ex.pods), label="pod"))

    @precondition(lambda self: bool(self.ex.pods))
    @rule(data=st.data())
    def remove_pod(self, data: st.DataObject) -> None:
        self.ex.op_remove_pod(data.draw(st.sampled_from(self.ex.pods), label="pod"))

    @precondition(lambda self: bool(self.ex.pods))
    @rule(data=st.data())
    def pod_status(self, data: st.DataObject) -> None:
        self.ex.op_pod_status(data.draw(st.sampled_from(self.ex.pods), label="pod"))

    @rule()
    def list_everything(self) -> None:
        self.ex.op_lists()

    @rule()
    def open_late_subscriber(self) -> None:
        self.ex.op_reconnect()

    @invariant()
    def checks_after_step(self) -> None:
        self.ex.after_step()

    def teardown(self) -> None:
        self.ex.finish()


def scripted(ex: Example) -> None:
    """A fixed example that touches every operation once, run before the random ones so
    every property is exercised whatever Hypothesis draws."""
    p1 = ex.op_run_pod()
    if p1 is None:
        return
    ex.after_step()
    long_ = ex.op_create(p1, "a", "long", True)
    instant = ex.op_create(p1, "b", "instant", True)
    ex.op_create(p1, "c", "short", True)
    ex.after_step()
    if long_ is not None:
        ex.op_update(long_, 512, 128, True)
        ex.op_update(long_, 1024, 32, False)
        ex.op_duplicate(long_)
        ex.op_container_status(long_)
    ex.op_pod_status(p1)
    ex.op_lists()
    ex.after_step()
    if instant is not None:
        ex.op_container_status(instant)
        ex.op_remove_container(instant)
        ex.op_remove_container(instant)
        ex.op_stop_container(instant)
        ex.op_container_status(instant)
    if long_ is not None:
        ex.op_stop_container(long_)
        ex.op_stop_container(long_)
    ex.after_step()
    ex.op_reconnect()
    p2 = ex.op_run_pod()
    if p2 is not None:
        ex.op_create(p2, "a", "long", True)
        ex.op_create(p2, "b", "long", False)
        ex.after_step()
        ex.op_stop_pod(p2)
        ex.op_stop_pod(p2)
        ex.op_remove_pod(p2)
        ex.op_remove_pod(p2)
        ex.op_pod_status(p2)
    if long_ is not None:
        ex.op_remove_container(long_)
    ex.after_step()
