"""The operations an example performs: each makes its CRI calls through `Example.call`
(so they show in a failure's call sequence), keeps the model up to date, and hands
what the runtime answered to the property that judges it."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, TypeVarTuple

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIError, NotFoundError
from fakecri.client.errors import UnimplementedError
from fakecri.conformance import properties as P
from fakecri.conformance.example import MIB, Example
from fakecri.conformance.expectations import RUN_LABEL, ContainerModel, PodModel, Subscriber
from fakecri.conformance.settling import sample_cache, wait_exit_in_cache

Args = TypeVarTuple("Args")
T = TypeVar("T")

STREAM_OF = {"ListPodSandbox": "StreamPodSandboxes", "ListContainers": "StreamContainers",
             "ListContainerStats": "StreamContainerStats"}


def state_words(c: ContainerModel) -> str:
    if c.removed:
        return "already removed"
    if c.stop_called:
        return "already stopped"
    return "running" if c.started else "created"


def container_status(ex: Example, c: ContainerModel) -> pb.ContainerStatus | None:
    """ContainerStatus, None if NOT_FOUND; records what it shows."""
    try:
        st_ = ex.call(f"ContainerStatus({c})", ex.client.container_status, c.cid).status
    except NotFoundError:
        return None
    except CRIError as exc:
        ex.violate(P.ValidCallsSucceed, f"ContainerStatus({c}) failed: {exc}")
        return None
    ex.observe_container(c, st_.state, st_.exit_code)
    return st_


def valid_call(ex: Example, text: str, fn: Callable[[*Args], T], *args: *Args, what: str = "") -> T | None:
    """A call the runtime must answer, logged as `text`: what it returns, or None after
    judging its failure ("`what` (default: `text`) failed: ...") a broken ValidCallsSucceed."""
    try:
        return ex.call(text, fn, *args)
    except CRIError as exc:
        ex.violate(P.ValidCallsSucceed, f"{what or text} failed: {exc}")
        return None


def run_pod(ex: Example) -> PodModel | None:
    ex.pod_counter += 1
    pod = ex.make_pod(f"pod-{ex.pod_counter}")
    sid = valid_call(ex, f"RunPodSandbox({pod})", ex.client.run_pod_sandbox, pod.config,
                     ex.opts.runtime_handler)
    if sid is None:
        return None
    pod.sid, pod.created = sid, True
    ex.run.saw("pods")
    ex.pods.append(pod)
    ex.by_id[pod.sid] = pod
    return pod


def create(ex: Example, pod: PodModel, name: str, kind: str, start: bool) -> ContainerModel | None:
    attempt = 1 + max((c.attempt for c in pod.containers if c.name == name), default=-1)
    c = ContainerModel(pod=pod, name=name, attempt=attempt, kind=kind)
    try:
        cid = ex.call(f"CreateContainer({pod}, {name} attempt {attempt}, `{c.command_text}`) -> {c}",
                      ex.client.create_container, pod.sid, ex.container_config(c), pod.config)
    except CRIError as exc:
        ex.violate(P.ValidCallsSucceed, f"CreateContainer {c} in a ready sandbox failed: {exc}")
        ex.run.refused_create(str(exc))
        return None
    c.cid, c.created = cid, True
    ex.run.saw("containers")
    pod.containers.append(c)
    ex.by_id[c.cid] = c
    if start:
        start_container(ex, c)
    return c


def repeatable_call(ex: Example, text: str, what: str, fn: Callable[[*Args], object], *args: *Args, again: bool,
                    refusal_again: bool | None = None) -> bool:
    """A stop or remove, logged as `text`, that may repeat one answered before (`again`).
    A refusal ("`what` failed: ...") is judged as a refused repeat when `refusal_again`
    (default: `again`), else as a valid call that failed; a repeat answered OK exercises
    IdempotentStopRemove. True when the call answered OK."""
    try:
        ex.call(text, fn, *args)
    except CRIError as exc:
        P.IdempotentStopRemove.judge_refusal(ex, again if refusal_again is None else refusal_again,
                                             f"{what} failed: {exc}")
        return False
    if again:
        P.IdempotentStopRemove.judge_repeat_ok(ex)
    return True


def start_container(ex: Example, c: ContainerModel) -> None:
    try:
        ex.call(f"StartContainer({c})", ex.client.start_container, c.cid)
    except CRIError as exc:
        ex.violate(P.ValidCallsSucceed, f"StartContainer({c}) of a created container failed: {exc}")
        return
    c.started = True


def stop_container(ex: Example, c: ContainerModel) -> None:
    again = c.removed or c.stop_called or c.pod.stopped
    if not repeatable_call(ex, f"StopContainer({c}, timeout=0)", f"StopContainer({c}) ({state_words(c)})",
                           ex.client.stop_container, c.cid, 0, again=again, refusal_again=again or not c.started):
        return
    if c.removed:
        return
    if c.started:
        c.stop_called = True
        st_ = container_status(ex, c)
        if st_ is not None and st_.state != pb.CONTAINER_EXITED:
            ex.violate(P.ValidCallsSucceed, f"StopContainer({c}) returned but the container is "
                                            f"{pb.ContainerState.Name(st_.state)}")


def settle_exit(ex: Example, c: ContainerModel) -> None:
    """Before a removal, let the cache see an exited container's code (no-lost-exits)."""
    if c.started and not c.removed:
        st_ = container_status(ex, c)
        if st_ is not None and st_.state == pb.CONTAINER_EXITED:
            wait_exit_in_cache(ex, c, st_.exit_code)


def remove_container(ex: Example, c: ContainerModel) -> None:
    again = c.removed
    settle_exit(ex, c)
    if not repeatable_call(ex, f"RemoveContainer({c})", f"RemoveContainer({c}) ({state_words(c)})",
                           ex.client.remove_container, c.cid, again=again):
        return
    c.removed = True
    expect_container_not_found(ex, c)


def expect_container_not_found(ex: Example, c: ContainerModel) -> None:
    try:
        got = ex.call(f"ContainerStatus({c})", ex.client.container_status, c.cid)
    except CRIError as exc:
        P.IdempotentStopRemove.judge_status_of_removed(ex, f"ContainerStatus of removed {c}", exc)
        return
    P.IdempotentStopRemove.judge_status_of_removed(ex, f"ContainerStatus of removed {c}", None,
                                                   f" ({pb.ContainerState.Name(got.status.state)})")


def expect_pod_not_found(ex: Example, pod: PodModel) -> None:
    try:
        ex.call(f"PodSandboxStatus({pod})", ex.client.pod_sandbox_status, pod.sid)
    except CRIError as exc:
        P.IdempotentStopRemove.judge_status_of_removed(ex, f"PodSandboxStatus of removed {pod}", exc)
        return
    P.IdempotentStopRemove.judge_status_of_removed(ex, f"PodSandboxStatus of removed {pod}", None)


def inspect_container(ex: Example, c: ContainerModel) -> None:
    """ContainerStatus, judged against what the suite did to the container."""
    if c.removed:
        expect_container_not_found(ex, c)
        return
    st_ = container_status(ex, c)
    if st_ is None:
        ex.violate(P.ValidCallsSucceed, f"ContainerStatus({c}) is NOT_FOUND but it was never removed")
        return
    state = st_.state
    if c.started and (c.stop_called or c.pod.stopped) and state != pb.CONTAINER_EXITED:
        prop = P.SandboxStopRemoveCascades if c.pod.stopped and not c.stop_called else P.ValidCallsSucceed
        ex.violate(prop, f"{c} is {pb.ContainerState.Name(state)} after it was stopped")
    elif c.started and state == pb.CONTAINER_CREATED:
        ex.violate(P.ValidCallsSucceed, f"{c} is still CREATED after StartContainer answered OK")
    elif not c.started and state == pb.CONTAINER_RUNNING:
        ex.violate(P.ValidCallsSucceed, f"{c} is RUNNING but was never started")


def stop_pod(ex: Example, pod: PodModel) -> None:
    again = pod.stopped or pod.removed
    if not repeatable_call(ex, f"StopPodSandbox({pod})", f"StopPodSandbox({pod}) ({'again' if again else 'ready'})",
                           ex.client.stop_pod_sandbox, pod.sid, again=again):
        return
    if pod.removed:
        return
    pod.stopped = True
    P.SandboxStopRemoveCascades.judge_after_stop(ex, pod, list_pod_containers(ex, pod))
    for c in pod.containers:
        if c.started and not c.removed:
            container_status(ex, c)


def remove_pod(ex: Example, pod: PodModel) -> None:
    again = pod.removed
    if not again:
        for c in pod.containers:
            settle_exit(ex, c)
    if not repeatable_call(ex, f"RemovePodSandbox({pod})", f"RemovePodSandbox({pod})",
                           ex.client.remove_pod_sandbox, pod.sid, again=again):
        return
    if again:
        return
    killed = not pod.stopped  # a stopped sandbox's containers were stopped with it
    pod.removed = pod.stopped = True
    P.SandboxStopRemoveCascades.judge_after_remove(ex, pod, list_pod_containers(ex, pod))
    for c in pod.containers:
        if not c.removed:
            c.removed = c.removed_with_sandbox = True
            c.killed_by_removal = killed and c.started and not c.stop_called and not c.seen_exited
            try:
                ex.call(f"ContainerStatus({c})", ex.client.container_status, c.cid)
            except CRIError:
                continue
            P.SandboxStopRemoveCascades.judge_container_gone(ex, pod, c, answered=True)
    expect_pod_not_found(ex, pod)


def list_pod_containers(ex: Example, pod: PodModel) -> list[pb.Container]:
    listed = valid_call(ex, f"ListContainers(sandbox={pod})", ex.client.list_containers, {"pod_sandbox_id": pod.sid})
    return [] if listed is None else listed


def inspect_pod(ex: Example, pod: PodModel) -> None:
    """PodSandboxStatus, judged against what the suite did to the pod."""
    if pod.removed:
        expect_pod_not_found(ex, pod)
        return
    resp = valid_call(ex, f"PodSandboxStatus({pod})", ex.client.pod_sandbox_status, pod.sid)
    if resp is None:
        return
    want = pb.SANDBOX_NOTREADY if pod.stopped else pb.SANDBOX_READY
    if resp.status.state != want:
        ex.violate(P.ValidCallsSucceed, f"PodSandboxStatus({pod}) shows "
                                        f"{pb.PodSandboxState.Name(resp.status.state)}, expected "
                                        f"{pb.PodSandboxState.Name(want)}")
    P.StatusTimestampWithStatuses.judge(ex, pod, resp)


def update_resources(ex: Example, c: ContainerModel, shares: int, memory_mib: int, valid: bool) -> None:
    before = container_status(ex, c)
    if before is None:
        return
    if not before.HasField("resources") or not before.resources.HasField("linux"):
        ex.run.note_skip(P.ResourcesStickAllOrNothing.name, "the runtime reports no ContainerStatus.resources")
        return
    old = before.resources.linux
    memory = memory_mib * MIB if valid else MIB  # below 4 MiB: runc refuses it
    req = pb.LinuxContainerResources(cpu_shares=shares, memory_limit_in_bytes=memory,
                                     cpu_period=old.cpu_period, cpu_quota=old.cpu_quota)
    text = f"UpdateContainerResources({c}, cpu_shares={shares}, memory={memory // MIB if valid else 1}Mi)"
    try:
        ex.call(text, ex.client.update_container_resources, c.cid, linux=req)
        failed: CRIError | None = None
    except UnimplementedError:
        ex.run.note_skip(P.ResourcesStickAllOrNothing.name, "UpdateContainerResources is UNIMPLEMENTED")
        return
    except CRIError as exc:
        failed = exc
    after = container_status(ex, c)
    if after is None:
        return
    P.ResourcesStickAllOrNothing.judge(ex, text, failed, old, after.resources.linux, (shares, memory))
    if failed is not None and valid and after.state == pb.CONTAINER_RUNNING:
        ex.violate(P.ValidCallsSucceed, f"{text} of a running container failed: {failed}")


def create_duplicate(ex: Example, c: ContainerModel) -> None:
    dup = ContainerModel(pod=c.pod, name=c.name, attempt=c.attempt, kind="long")
    try:
        cid = ex.call(f"CreateContainer({c.pod}, {c.name} attempt {c.attempt}, `{dup.command_text}`)"
                      "  # duplicate", ex.client.create_container, c.pod.sid, ex.container_config(dup), c.pod.config)
    except CRIError:
        P.NoDuplicateLiveContainers.judge_duplicate_create(ex, c, accepted=False)
        return
    if cid == c.cid:
        # The same id again: an idempotent retry if the runtime still lists one container
        # of that name (the CRI allows it; the model keeps the original, not the repeat).
        same = [x for x in list_pod_containers(ex, c.pod) if x.metadata.name == c.name
                and x.metadata.attempt == c.attempt]
        P.NoDuplicateLiveContainers.judge_same_id_again(ex, c, listed=same)
        return
    dup.cid, dup.created = cid, True
    c.pod.containers.append(dup)
    ex.by_id[cid] = dup
    P.NoDuplicateLiveContainers.judge_duplicate_create(ex, c, accepted=True)


def lists(ex: Example) -> None:
    """Unary and Stream* lists (filtered to this run), compared with each other and
    with the model; the status of every live pod."""
    sel = {"label_selector": {RUN_LABEL: ex.run.run_id}}
    sandboxes = list_pair(ex, "ListPodSandbox", ex.client.list_pod_sandbox, sel, lambda s: (s.id, s.state))
    containers = list_pair(ex, "ListContainers", ex.client.list_containers, sel, lambda c: (c.id, c.state))
    list_pair(ex, "ListContainerStats", ex.client.list_container_stats, sel, lambda s: (s.attributes.id,))
    if sandboxes is not None:
        listed = {s.id for s in sandboxes}
        for pod in ex.pods:
            if pod.removed and pod.sid in listed:
                ex.violate(P.ValidCallsSucceed, f"ListPodSandbox still lists removed {pod}")
            elif not pod.removed and pod.sid not in listed:
                ex.violate(P.ValidCallsSucceed, f"ListPodSandbox does not list {pod}")
    if containers is not None:
        listed_c = {c.id for c in containers}
        for pod in ex.pods:
            for c in pod.containers:
                if c.removed and c.cid in listed_c:
                    prop = P.SandboxStopRemoveCascades if pod.removed else P.ValidCallsSucceed
                    ex.violate(prop, f"ListContainers still lists removed {c}")
                elif c.live and c.cid not in listed_c:
                    ex.violate(P.ValidCallsSucceed, f"ListContainers does not list {c}")
    for pod in ex.pods:
        if not pod.removed:
            inspect_pod(ex, pod)


def list_pair(ex: Example, what: str, fn: Callable[..., list[Any]], sel: dict[str, Any],
              key: Callable[[Any], tuple[Any, ...]]) -> list[Any] | None:
    """The unary list `what` and its Stream* twin, compared (three tries: a container
    may exit between the two calls)."""
    stream_name = STREAM_OF[what]
    unary: list[Any] = []
    for attempt in range(3):
        try:
            unary = ex.call(f"{what}(run label)", fn, sel)
            if stream_name in ex.client.unimplemented_streams:
                ex.run.note_skip(P.StreamListsEqualUnary.name, f"{stream_name} is UNIMPLEMENTED")
                return unary
            streamed = ex.call(f"{stream_name}(run label)", fn, sel, streaming=True)
        except CRIError as exc:
            ex.violate(P.ValidCallsSucceed, f"{what}/{stream_name} failed: {exc}")
            return None
        if stream_name in ex.client.unimplemented_streams:
            ex.run.note_skip(P.StreamListsEqualUnary.name, f"{stream_name} is UNIMPLEMENTED")
            return unary
        why = P.StreamListsEqualUnary.difference([key(x) for x in unary], [key(x) for x in streamed])
        if why is None:
            ex.exercised(P.StreamListsEqualUnary)
            return unary
        if attempt == 2:
            ex.violate(P.StreamListsEqualUnary, f"{stream_name} {why}")
    return unary


def reconnect(ex: Example) -> None:
    """Open one more subscriber (closing the previous late one): it is checked for
    order and stale replay, not for completeness."""
    for sub in ex.late:
        if sub.watcher is not None:
            sub.watcher.stop()
            sub.watcher = None
    ex.process_events()
    name = f"late-{len(ex.calls)}"
    sub = Subscriber(name, ex.run.baseline(extra=ex.subs + ex.late))
    ex.calls.append(f"GetContainerEvents()  # subscriber {name}")
    ex.late.append(ex.subscribe(sub))


def after_step(ex: Example) -> None:
    """The checks after every step: events so far, the fan-out, the cache, duplicates."""
    ex.process_events()
    P.SubscribersSeeSameSequence().check(ex, final=False)
    sample_cache(ex)
    sel = {"label_selector": {RUN_LABEL: ex.run.run_id}}
    try:
        containers = ex.client.list_containers(sel)
    except CRIError:
        return
    P.NoDuplicateLiveContainers.judge_listing(ex, containers)


def cleanup(ex: Example) -> None:
    """Remove every pod of the example (RemovePodSandbox cascades), sentinels too."""
    for pod in ex.pods:
        if not pod.removed:
            remove_pod(ex, pod)
    for pod in ex.sentinels:
        if not pod.removed:
            try:
                ex.call(f"RemovePodSandbox({pod})  # sync", ex.client.remove_pod_sandbox, pod.sid)
                pod.removed = pod.stopped = True
            except CRIError as exc:
                ex.violate(P.ValidCallsSucceed, f"RemovePodSandbox({pod}) failed: {exc}")
