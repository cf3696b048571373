"""Named fault recipes: a name that stands for a few ordinary faults, with the upstream
bug it reproduces.

A quirk changes what the runtime does; a recipe is made of the faults anyone could write
by hand (an error on one method, a restart at one call), named after the real runtime
behaviour or kubelet bug they replay, so a kubelet developer asks for the bug by name.

Where a recipe can be used: `fakecri serve --recipe NAME[,NAME]` (and the config file's
`recipe` key, FAKECRI_RECIPE, the pytest marker's flag strings), a faults file entry
`{type: recipe, attributes: {name: NAME}}`, and the control API's AddFault with that same
fault. Each expands, when it is added to a plan, into its faults, named `NAME` (one fault)
or `NAME.1`, `NAME.2`, ... (several), so ListFaults shows them and RemoveFault takes them
away one by one. docs/bug-lab.md shows what a real kubelet does with each.
"""
from __future__ import annotations

from dataclasses import dataclass

from fakecri.faults.ftype import FaultType
from fakecri.faults.kinds.cut_stream import CUT_STREAM
from fakecri.faults.kinds.error import ERROR
from fakecri.faults.kinds.latency import LATENCY
from fakecri.faults.kinds.quirk import quirk_fault
from fakecri.faults.kinds.restart import RESTART
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.quirks import Quirk
from fakecri.faults.values import suggest


@dataclass(frozen=True)
class Recipe:
    name: str
    description: str
    reference: tuple[str, ...]
    faults: tuple[Fault, ...]

    @property
    def references(self) -> str:
        return ", ".join(self.reference)

    def expand(self, prefix: str = "") -> list[Fault]:
        """Fresh copies of the recipe's faults, named after it (or after `prefix`)."""
        base = prefix or self.name
        out = []
        for i, f in enumerate(self.faults, start=1):
            name = base if len(self.faults) == 1 else f"{base}.{i}"
            out.append(Fault(name=name, type=f.type, target=f.target, stage=f.stage, toxicity=f.toxicity,
                             count=f.count, attributes=dict(f.attributes)))
        return out


def _f(ftype: FaultType, target: str = "", **attributes: str) -> Fault:
    return Fault(type=ftype.name, target=target, attributes=attributes)


RECIPES: dict[str, Recipe] = {r.name: r for r in (
    Recipe("events-disabled",
           "GetContainerEvents ends at once with OK and no event, as CRI-O does with enable_pod_events=false; "
           "a kubelet with EventedPLEG must fall back to relisting.",
           ("cri-o/cri-o#7164", "cri-o/cri-o#7257"),
           (_f(CUT_STREAM, after="0", code="OK"),)),
    Recipe("events-unimplemented",
           "GetContainerEvents answers UNIMPLEMENTED, as CRI-O would have with cri-o#7257 and as runtimes "
           "without events do; a kubelet with EventedPLEG must fall back to relisting.",
           ("cri-o/cri-o#7257", "kubernetes/kubernetes#129827"),
           (_f(ERROR, "GetContainerEvents", code="UNIMPLEMENTED"),)),
    Recipe("no-runtime-config",
           "RuntimeConfig answers UNIMPLEMENTED, as runtimes before it existed did; kubelet 1.36 falls back to "
           "its own cgroup driver setting, a kubelet without that fallback (planned for 1.38) will not start.",
           ("kubernetes/enhancements#6087", "kubernetes/kubernetes#136731"),
           (_f(ERROR, "RuntimeConfig", code="UNIMPLEMENTED"),)),
    Recipe("no-list-streaming",
           "The Stream* list calls answer UNIMPLEMENTED, as runtimes older than KEP-5825 do; a kubelet with "
           "CRIListStreaming falls back to the unary List* calls.",
           ("kubernetes/enhancements#5825",),
           (_f(ERROR, "Stream*", code="UNIMPLEMENTED"),)),
    Recipe("restart-between-create-and-start",
           "The runtime restarts (state kept, 2 s down) when the first StartContainer arrives: the container "
           "was created, its start answers UNAVAILABLE and it stays CREATED (a CRI invariant with no test).",
           ("kubernetes/kubernetes#110429",),
           (_f(RESTART, "StartContainer", at="1", downtime="2s"),)),
    Recipe("restart-between-stop-and-remove-sandbox",
           "The runtime restarts (state kept, 2 s down) when the first RemovePodSandbox arrives: the sandbox "
           "was stopped, its removal answers UNAVAILABLE.",
           ("kubernetes/kubernetes#110429",),
           (_f(RESTART, "RemovePodSandbox", at="1", downtime="2s"),)),
    Recipe("slow-container-start",
           "CreateContainer takes 1 s and StartContainer 3 s, so a new container is seen CREATED for seconds: the "
           "window in which kubelets with EventedPLEG created duplicate containers.",
           ("kubernetes/kubernetes#121003", "kubernetes/kubernetes#121349", "kubernetes/kubernetes#123087",
            "kubernetes/kubernetes#122721"),
           (_f(LATENCY, "CreateContainer", delay="1s"), _f(LATENCY, "StartContainer", delay="3s"))),
    Recipe("lose-every-container",
           "The runtime restarts at once and comes back with no sandbox or container (a wipe): every pod's "
           "containers vanish in one relist period, a burst of lifecycle events for the generic PLEG.",
           ("kubernetes/kubernetes#136408", "kubernetes/kubernetes#106390"),
           (_f(RESTART, downtime="1s", wipe="true"),)),
    Recipe("update-sandbox-resources-fails",
           "UpdatePodSandboxResources answers INTERNAL; since kubernetes/kubernetes#137555 an error other than "
           "UNIMPLEMENTED blocks the pod's resize.",
           ("kubernetes/kubernetes#137555",),
           (_f(ERROR, "UpdatePodSandboxResources", code="INTERNAL"),)),
    Recipe("crio-1.36-events",
           "The event stream of CRI-O 1.36.3 as fakecri's conformance suite measured it: no sandbox CREATED, "
           "no sandbox DELETED, no container DELETED for the containers RemovePodSandbox removes, and an "
           "instant container's STOPPED before its STARTED.",
           ("cri-o/cri-o#6404", "cri-o/cri-o#9738"),
           tuple(quirk_fault(q) for q in (Quirk.NO_SANDBOX_CREATED_EVENT, Quirk.NO_SANDBOX_DELETED_EVENT,
                                          Quirk.NO_CONTAINER_DELETED_ON_SANDBOX_REMOVE,
                                          Quirk.STOPPED_BEFORE_STARTED))),
)}

RECIPE_NAMES: tuple[str, ...] = tuple(RECIPES)


def recipe(name: str) -> Recipe:
    """The recipe called `name`; FaultSpecError (with a suggestion) for an unknown one."""
    found = RECIPES.get(name)
    if found is None:
        raise FaultSpecError(f"unknown recipe {name!r}{suggest(name, RECIPE_NAMES)}; "
                             f"expected one of {', '.join(RECIPE_NAMES)}")
    return found
