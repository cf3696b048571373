"""Properties of the answers to CRI calls: idempotent stops and removals, cascades,
resources, duplicates, list/stream agreement, and valid calls succeeding."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIError, NotFoundError
from fakecri.conformance.expectations import ContainerModel, PodModel
from fakecri.conformance.properties.base import MUST, ExampleView, Property


class NoDuplicateLiveContainers(Property):
    """At most one CREATED or RUNNING container per sandbox and name is ever listed,
    and CreateContainer with the (name, attempt) of an existing container in the same
    sandbox is refused.

    Source: duplicate containers in one pod with Evented PLEG (k/k#121003 =
    containerd#9070, #120941/#120140 fixed by #120942, #121349, #123087, #122778,
    #125018). The cri-api fake accepts the duplicate; containerd reserves names."""

    name, level, item = "no-duplicate-live-containers", MUST, "P14"
    basis = "api.proto ContainerMetadata: (name, attempt) is unique within a sandbox for the sandbox's whole life"
    needs = ('containers',)
    proof = "synthetic container lists (tests/conformance/test_checks.py)"

    @classmethod
    def judge_duplicate_create(cls, ex: ExampleView, original: ContainerModel, accepted: bool) -> None:
        """CreateContainer with the (name, attempt) of `original` answered: refused is right."""
        ex.exercised(cls)
        if accepted:
            ex.violate(cls, f"CreateContainer accepted a second {original.name} attempt "
                            f"{original.attempt} in {original.pod} while {original} exists")

    @classmethod
    def judge_same_id_again(cls, ex: ExampleView, original: ContainerModel, listed: list[pb.Container]) -> None:
        """The repeated CreateContainer was answered with `original`'s own id, and `listed` are
        the containers of that name and attempt now listed. One, still in the state the original
        had reached, is an idempotent retry; more is a duplicate under one id; one that is CREATED
        again after the original was started is the original replaced, its run lost."""
        ex.exercised(cls)
        if len(listed) != 1:
            ex.violate(cls, f"a repeated CreateContainer of {original} answered with its id, but {len(listed)}"
                            f" containers named {original.name} attempt {original.attempt} are listed in"
                            f" {original.pod}")
        elif original.started and listed[0].state == pb.CONTAINER_CREATED:
            ex.violate(cls, f"CreateContainer accepted a second {original.name} attempt {original.attempt} in"
                            f" {original.pod} and replaced {original}: started before, CREATED again under its id")
        else:
            ex.note(cls, "a repeated CreateContainer answered with the original's id, one container listed in the"
                         " original's state, is taken as an idempotent retry")

    @classmethod
    def judge_listing(cls, ex: ExampleView, containers: Iterable[pb.Container]) -> None:
        """A listing of the run's containers: no two live ones share a sandbox and name."""
        ex.exercised(cls)
        for sid, name in duplicate_live(containers):
            ex.violate(cls, f"two live containers named {name} in {ex.by_id.get(sid)!r}")


def duplicate_live(containers: Iterable[pb.Container]) -> list[tuple[str, str]]:
    """(sandbox id, name) pairs with more than one CREATED or RUNNING container."""
    seen: dict[tuple[str, str], int] = {}
    for c in containers:
        if c.state in (pb.CONTAINER_CREATED, pb.CONTAINER_RUNNING):
            key = (c.pod_sandbox_id, c.metadata.name)
            seen[key] = seen.get(key, 0) + 1
    return sorted(k for k, n in seen.items() if n > 1)


class IdempotentStopRemove(Property):
    """StopContainer, RemoveContainer, StopPodSandbox and RemovePodSandbox of a missing
    or already stopped object answer OK (so do RemoveImage of a missing image);
    ContainerStatus and PodSandboxStatus of a missing object answer NOT_FOUND.

    Source: critest's idempotence specs; the proto comments ("If there are any
    running containers ... must be forcibly terminated"; "this call is idempotent")."""

    name, level, item = "idempotent-stop-remove", MUST, "P21"
    basis = ('api.proto StopContainer, RemoveContainer, StopPodSandbox, RemovePodSandbox: each is idempotent and '
             'answers no error when already done; PodSandboxStatus and ContainerStatus answer an error for a '
             'missing object (NOT_FOUND, as critest expects)')
    proof = "error fault NOT_FOUND on StopContainer"

    @classmethod
    def judge_refusal(cls, ex: ExampleView, again: bool, message: str) -> None:
        """A stop or remove failed: on an object already stopped or removed (`again`) this
        property is broken; otherwise a valid call failed."""
        ex.violate(cls if again else ValidCallsSucceed, message)

    @classmethod
    def judge_repeat_ok(cls, ex: ExampleView) -> None:
        """A repeated stop or remove answered OK."""
        ex.exercised(cls)

    @classmethod
    def judge_status_of_removed(cls, ex: ExampleView, what: str, error: CRIError | None, shown: str = "") -> None:
        """The status call `what` ("ContainerStatus of removed pod-1/a#0") answered with
        `error` (None: OK, showing `shown`); only NOT_FOUND is right."""
        if isinstance(error, NotFoundError):
            ex.exercised(cls)
        elif error is not None:
            ex.violate(cls, f"{what} failed with {error.code.name}, not NOT_FOUND")
        else:
            ex.violate(cls, f"{what} answered OK{shown}, not NOT_FOUND")


class SandboxStopRemoveCascades(Property):
    """After StopPodSandbox no container of the sandbox is RUNNING; after
    RemovePodSandbox none is listed and their status is NOT_FOUND.

    Source: proto comments on StopPodSandbox/RemovePodSandbox; broken in the cri-api
    fake and, until 2025-06, in the kubelet's fake remote runtime; still in criproxy."""

    name, level, item = "sandbox-stop-remove-cascades", MUST, "P22"
    basis = ("api.proto StopPodSandbox: the sandbox's running containers are terminated by force; "
             'RemovePodSandbox: they are terminated and removed')
    needs = ('containers',)
    proof = "synthetic (no fakecri fault breaks it): checked on every stop/remove of a pod"

    @classmethod
    def judge_after_stop(cls, ex: ExampleView, pod: PodModel, listed: Iterable[pb.Container]) -> None:
        ex.exercised(cls)
        for c in listed:
            if c.state == pb.CONTAINER_RUNNING:
                ex.violate(cls, f"after StopPodSandbox({pod}) container {ex.describe(c.id)} is still RUNNING")

    @classmethod
    def judge_after_remove(cls, ex: ExampleView, pod: PodModel, left: list[pb.Container]) -> None:
        ex.exercised(cls)
        if left:
            ex.violate(cls, f"after RemovePodSandbox({pod}) its containers are still "
                            f"listed: {', '.join(ex.describe(c.id) for c in left)}")

    @classmethod
    def judge_container_gone(cls, ex: ExampleView, pod: PodModel, c: ContainerModel, answered: bool) -> None:
        """ContainerStatus of a container of a removed sandbox: it must not answer."""
        if answered:
            ex.violate(cls, f"after RemovePodSandbox({pod}) ContainerStatus({c}) still answers")


class ResourcesStickAllOrNothing(Property):
    """An UpdateContainerResources that answers OK shows in ContainerStatus.resources;
    one that fails (a memory limit below 4 MiB next to a valid CPU change) changes
    nothing.

    Source: proto "UpdateContainerResources ... synchronous; error if not
    transactional"; resizes stuck or half applied (k/k#123441, #125559)."""

    name, level, item = "resources-stick-all-or-nothing", MUST, "P23"
    basis = ('api.proto UpdateContainerResources: applied synchronously, and an update the runtime cannot make as '
             'a whole is answered with an error')
    needs = ('containers',)
    proof = "quirk resize-not-applied"

    @classmethod
    def judge(cls, ex: ExampleView, text: str, failed: CRIError | None, old: pb.LinuxContainerResources,
              new: pb.LinuxContainerResources, asked: tuple[int, int]) -> None:
        """`text` (an UpdateContainerResources asking cpu_shares, memory = `asked`) answered
        OK or `failed`; ContainerStatus showed `old` before and `new` after."""
        ex.exercised(cls)
        if failed is None:
            if (new.cpu_shares, new.memory_limit_in_bytes) != asked:
                ex.violate(cls, f"{text} answered OK but ContainerStatus shows cpu_shares={new.cpu_shares}, "
                                f"memory_limit_in_bytes={new.memory_limit_in_bytes}")
        elif (new.cpu_shares, new.memory_limit_in_bytes) != (old.cpu_shares, old.memory_limit_in_bytes):
            ex.violate(cls, f"{text} failed ({failed.code.name}) but changed the resources: cpu_shares "
                            f"{old.cpu_shares}->{new.cpu_shares}, memory {old.memory_limit_in_bytes}->"
                            f"{new.memory_limit_in_bytes}")


class StreamListsEqualUnary(Property):
    """StreamPodSandboxes, StreamContainers and StreamContainerStats (KEP-5825) give
    the same items as the unary lists with the same filter, each exactly once;
    skipped if the runtime answers UNIMPLEMENTED.

    Source: KEP-5825 proto comments (each item exactly once, EOF terminates, kubelet
    falls back to unary on UNIMPLEMENTED)."""

    name, level, item = "stream-lists-equal-unary", MUST, "P24"
    basis = 'api.proto (KEP-5825) Stream* lists: each item of the unary list exactly once'
    proof = "synthetic list pairs (tests/conformance/test_checks.py)"

    @staticmethod
    def difference(unary: list[tuple[Any, ...]], streamed: list[tuple[Any, ...]]) -> str | None:
        """How a streamed list (item keys, id first) differs from the unary one, or None."""
        a, b = sorted(unary), sorted(streamed)
        dups = len(streamed) != len({k[0] for k in streamed})
        if a == b and not dups:
            return None
        if dups:
            return "repeats an item"
        return f"gives {len(b)} items where the unary list gives {len(a)}" if len(a) != len(b) \
            else "disagrees with the unary list"


class ValidCallsSucceed(Property):
    """Every well-formed call the suite makes on an object in a state that allows it
    succeeds (UNAVAILABLE is retried for up to 15 s, as a kubelet would).

    Source: critest's basic specs; the CRI proto. Any other error is reported here with
    the call that got it."""

    name, level, item = "valid-calls-succeed", MUST, "-"
    basis = ("api.proto, each call's comment (RunPodSandbox: the sandbox is ready when it answers; "
             'RemoveContainer: a running container is removed by force)')
    proof = "error faults (e.g. INTERNAL on CreateContainer)"
