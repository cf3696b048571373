"""Properties of what an event carries: its order per object, its sandbox status, the
status snapshot, its timestamp; and the PodSandboxStatus timestamp rule that goes with it."""
from __future__ import annotations

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.conformance.expectations import (
    CREATED,
    DELETED,
    STARTED,
    STOPPED,
    ContainerModel,
    PodModel,
    Subscriber,
    type_name,
)
from fakecri.conformance.properties.base import MIN_NS, MUST, NS_SLACK, RANK, SHOULD, ExampleView, Property, own_status


class EventOrderPerContainer(Property):
    """Per container (and sandbox) id, events come in the order CREATED, STARTED,
    STOPPED, DELETED, each at most once; never STOPPED before STARTED.

    Source: CRI-O sends STOPPED before STARTED for containers that exit at once
    (cri-o#9738, fix PR #9822; the same window exists in containerd by code reading);
    spurious DELETED on stop (cri-o#6625). A duplicate event is a second transition
    that never happened."""

    name, level, item = "event-order-per-container", MUST, "P1"
    basis = ('api.proto ContainerEventType: each event is the transition it names, and a container is created, '
             'started, stopped and deleted in that order, once each')
    needs = ('containers', 'container_events')
    proof = "quirk stopped-before-started; duplicate_events; reorder_events"

    def on_event(self, ex: ExampleView, sub: Subscriber, ev: pb.ContainerEventResponse,
                 owner: PodModel | ContainerModel) -> None:
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

    name, level, item = "sandbox-bracketing", SHOULD, "P2"
    basis = ("kubelet pkg/kubelet/pleg/evented.go updates a pod from its sandbox's events; the order is "
             "containerd's TestContainerEvents")
    needs = ('containers', 'container_events')
    proof = "quirk no-sandbox-deleted-event; reorder_events"

    def on_event(self, ex: ExampleView, sub: Subscriber, ev: pb.ContainerEventResponse,
                 owner: PodModel | ContainerModel) -> None:
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
                    if t == DELETED and c.removed_with_sandbox:
                        continue  # its DELETED is not owed (expectations.unneeded_events); one after this fails below
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

    def at_end(self, ex: ExampleView) -> None:
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

    name, level, item = "sandbox-status-on-every-event", SHOULD, "P3"
    basis = ('kubelet pkg/kubelet/pleg/evented.go reads event.PodSandboxStatus.Metadata of every event (it '
             'panicked without: k/k#114351)')
    needs = ('containers', 'container_events')
    proof = "quirk nil-sandbox-status-on-delete"

    def on_event(self, ex: ExampleView, sub: Subscriber, ev: pb.ContainerEventResponse,
                 owner: PodModel | ContainerModel) -> None:
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

    name, level, item = "snapshot-agrees-with-type", SHOULD, "P4"
    basis = "kubelet pkg/kubelet/pleg/evented.go writes an event's statuses into its cache as the pod's state"
    needs = ('containers', 'container_events')
    proof = "synthetic event streams (tests/conformance/test_checks.py)"

    def on_event(self, ex: ExampleView, sub: Subscriber, ev: pb.ContainerEventResponse,
                 owner: PodModel | ContainerModel) -> None:
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
    basis = ('api.proto ContainerEventResponse.created_at, a CRI timestamp (CRI timestamps are nanoseconds); '
             'kubelet container/cache.go rejects an older one')
    needs = ('containers', 'container_events')
    proof = "quirk created-at-seconds; reorder_events"

    def on_event(self, ex: ExampleView, sub: Subscriber, ev: pb.ContainerEventResponse,
                 owner: PodModel | ContainerModel) -> None:
        ts = ev.created_at
        if ts < MIN_NS or abs(ts - ex.now()) > NS_SLACK:
            ex.violate(self, f"{sub}: {type_name(ev.container_event_type)} of {owner!r} has created_at={ts}, "
                             f"not nanoseconds near the current time (the suite's clock: {ex.now()})")
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

    name, level, item = "status-timestamp-with-statuses", SHOULD, "P6"
    basis = ('kubelet pkg/kubelet/kuberuntime/kuberuntime_manager.go GetPodStatus takes timestamp and '
             "containers_statuses as the pod's status (both only, since k/k#129990); api.proto makes both optional")
    needs = ('containers',)
    proof = "quirk timestamp-without-statuses"

    @classmethod
    def judge(cls, ex: ExampleView, pod: PodModel, resp: pb.PodSandboxStatusResponse) -> None:
        """One PodSandboxStatus answer for `pod` (its timestamp unit is judged by
        created-at-nanoseconds-monotonic, which names the same clock)."""
        live = [c for c in pod.containers if c.live]
        listed = {s.id for s in resp.containers_statuses}
        if resp.timestamp or listed:  # both optional: a runtime that sets neither is not judged
            ex.exercised(cls)
        if resp.timestamp:
            if resp.timestamp < MIN_NS or abs(resp.timestamp - ex.now()) > NS_SLACK:
                ex.violate(CreatedAtNanosecondsMonotonic, f"PodSandboxStatus({pod}).timestamp={resp.timestamp} "
                                                          "is not nanoseconds near the current time")
            if live and not listed:
                ex.violate(cls, f"PodSandboxStatus({pod}) sets timestamp but no "
                                f"containers_statuses while {live[0]} exists")
        elif listed:
            ex.violate(cls, f"PodSandboxStatus({pod}) sets containers_statuses without a timestamp")


class NoPartialPodView(Property):
    """An event never shows its pod without a container the same stream announced as
    CREATED and not yet DELETED: a sandbox-only view in the cache makes the kubelet
    recreate containers.

    Source: sandbox CREATED events updating the cache with a sandbox-only view before
    containers exist (discussion in k/k#129355); a CREATED event triggering a restart
    (#122778)."""

    name, level, item = "no-partial-pod-view", SHOULD, "P17"
    basis = "kubelet pkg/kubelet/pleg/evented.go takes an event's statuses as the whole pod (k/k#129355)"
    needs = ('containers', 'container_events')
    proof = "synthetic event streams (tests/conformance/test_checks.py)"

    def on_event(self, ex: ExampleView, sub: Subscriber, ev: pb.ContainerEventResponse,
                 owner: PodModel | ContainerModel) -> None:
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
