"""An example from start to finish, and the Hypothesis machine that picks its steps.

`start_example` opens two event subscribers (synced on sentinel pods) and the
kubelet-like PLEG; the ConformanceMachine's rules are the operations; `finish`
waits for convergence, removes the pods, settles the streams and runs the end checks.
`scripted` is a fixed example that touches every operation once.
"""
from __future__ import annotations

import time

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from fakecri.conformance import operations as op
from fakecri.conformance import properties as P
from fakecri.conformance.example import Example
from fakecri.conformance.expectations import ContainerModel, PodModel, Subscriber
from fakecri.conformance.run_state import RunState
from fakecri.conformance.settling import settle, sync, wait_converged

__all__ = ["BudgetSpent", "ConformanceMachine", "finish", "scripted", "start_example"]

CONTAINER_NAMES = ("a", "b", "c")
KINDS = ("long", "instant", "short")


class BudgetSpent(BaseException):
    """A focused run reached its deadline. A BaseException, so that Hypothesis does not
    take it for a failure to shrink but lets it end the run."""


def start_example(run: RunState) -> Example:
    """A new example with its subscribers synced and its PLEG running."""
    ex = Example(run)
    try:
        baseline = run.baseline()
        for name in ("A", "B"):
            ex.late.append(ex.subscribe(Subscriber(name, baseline)))  # promoted to ex.subs once synced
        if run.wants_pleg():
            ex.start_pleg()
        sync(ex)
    except BaseException:
        ex.close()
        raise
    return ex


def finish(ex: Example) -> None:
    """End of example: convergence with pods present, cleanup, settle, end checks."""
    if ex.finished:
        return
    ex.finished = True
    try:
        ex.process_events()
        wait_converged(ex, "with the pods running")
        if ex.pleg is not None:
            # A relist while the pods run, as a periodic one would come: a pod whose whole
            # life fits between two relists leaves the relist nothing to report, and the
            # relist table would go unjudged (legacy's period outlasts a short example).
            ex.pleg.generic.relist()
        ex.cleaning = True
        op.cleanup(ex)
        settle(ex)
        wait_converged(ex, "after the pods were removed")
        P.StreamEndIsFailure.judge(ex, [s for s in [*ex.subs, *ex.late] if s.ended is not None], ex.pleg)
        if ex.pleg is not None:
            # One more relist, like the next periodic one, so the relist table is
            # judged on a relist that saw the pods gone (legacy: events emptied the
            # cache before its slow relist came round).
            ex.pleg.generic.relist()
        for prop in ex.props:
            prop.at_end(ex)
    finally:
        ex.run.example_done([*ex.subs, *ex.late], ex.calls)
        ex.close()
    if ex.focus_violation is not None:
        raise ex.focus_violation


def _ready(m: ConformanceMachine) -> list[PodModel]:
    return [p for p in m.ex.pods if p.ready and any(not any(c.live and c.name == n for c in p.containers)
                                                      for n in CONTAINER_NAMES)]


def _containers(m: ConformanceMachine) -> list[ContainerModel]:
    return [c for p in m.ex.pods for c in p.containers]


class ConformanceMachine(RuleBasedStateMachine):
    """Random CRI call sequences against one runtime; see operations for the checks."""

    def __init__(self, run: RunState) -> None:
        super().__init__()
        if run.focus_deadline is not None and time.monotonic() > run.focus_deadline:
            raise BudgetSpent(run.focus)
        self.ex = start_example(run)

    @initialize(kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3))
    def first_pod(self, kinds: list[str]) -> None:
        """Every example starts with a pod running one to three containers."""
        pod = op.run_pod(self.ex)
        if pod is not None:
            for name, kind in zip(CONTAINER_NAMES, kinds, strict=False):
                op.create(self.ex, pod, name, kind, True)

    @rule()
    def run_pod(self) -> None:
        op.run_pod(self.ex)

    @precondition(lambda self: bool(_ready(self)))
    @rule(data=st.data(), kind=st.sampled_from(KINDS), start=st.booleans())
    def create_container(self, data: st.DataObject, kind: str, start: bool) -> None:
        pod = data.draw(st.sampled_from(_ready(self)), label="pod")
        free = [n for n in CONTAINER_NAMES if not any(c.live and c.name == n for c in pod.containers)]
        name = data.draw(st.sampled_from(free), label="name")
        op.create(self.ex, pod, name, kind, start)

    @precondition(lambda self: any(c.created and not c.started and not c.removed and c.pod.ready
                                   for c in _containers(self)))
    @rule(data=st.data())
    def start_container(self, data: st.DataObject) -> None:
        c = data.draw(st.sampled_from([c for c in _containers(self)
                                       if c.created and not c.started and not c.removed and c.pod.ready]),
                      label="container")
        op.start_container(self.ex, c)

    @precondition(lambda self: bool(_containers(self)))
    @rule(data=st.data())
    def stop_container(self, data: st.DataObject) -> None:
        op.stop_container(self.ex, data.draw(st.sampled_from(_containers(self)), label="container"))

    @precondition(lambda self: bool(_containers(self)))
    @rule(data=st.data())
    def remove_container(self, data: st.DataObject) -> None:
        op.remove_container(self.ex, data.draw(st.sampled_from(_containers(self)), label="container"))

    @precondition(lambda self: bool(_containers(self)))
    @rule(data=st.data())
    def container_status(self, data: st.DataObject) -> None:
        op.inspect_container(self.ex, data.draw(st.sampled_from(_containers(self)), label="container"))

    @precondition(lambda self: any(c.live and c.pod.ready for c in _containers(self)))
    @rule(data=st.data(), shares=st.sampled_from([128, 512, 1024]), memory_mib=st.sampled_from([32, 128]),
          valid=st.booleans())
    def update_resources(self, data: st.DataObject, shares: int, memory_mib: int, valid: bool) -> None:
        c = data.draw(st.sampled_from([c for c in _containers(self) if c.live and c.pod.ready]), label="container")
        op.update_resources(self.ex, c, shares, memory_mib, valid)

    @precondition(lambda self: any(c.live and c.pod.ready for c in _containers(self)))
    @rule(data=st.data())
    def create_duplicate(self, data: st.DataObject) -> None:
        c = data.draw(st.sampled_from([c for c in _containers(self) if c.live and c.pod.ready]), label="container")
        op.create_duplicate(self.ex, c)

    @precondition(lambda self: bool(self.ex.pods))
    @rule(data=st.data())
    def stop_pod(self, data: st.DataObject) -> None:
        op.stop_pod(self.ex, data.draw(st.sampled_from(self.ex.pods), label="pod"))

    @precondition(lambda self: bool(self.ex.pods))
    @rule(data=st.data())
    def remove_pod(self, data: st.DataObject) -> None:
        op.remove_pod(self.ex, data.draw(st.sampled_from(self.ex.pods), label="pod"))

    @precondition(lambda self: bool(self.ex.pods))
    @rule(data=st.data())
    def pod_status(self, data: st.DataObject) -> None:
        op.inspect_pod(self.ex, data.draw(st.sampled_from(self.ex.pods), label="pod"))

    @rule()
    def list_everything(self) -> None:
        op.lists(self.ex)

    @rule()
    def open_late_subscriber(self) -> None:
        op.reconnect(self.ex)

    @invariant()
    def checks_after_step(self) -> None:
        op.after_step(self.ex)

    def teardown(self) -> None:
        finish(self.ex)


def scripted(ex: Example) -> None:
    """A fixed example that touches every operation once, run before the random ones so
    every property is exercised whatever Hypothesis draws."""
    p1 = op.run_pod(ex)
    if p1 is None:
        return
    op.after_step(ex)
    long_ = op.create(ex, p1, "a", "long", True)
    instant = op.create(ex, p1, "b", "instant", True)
    op.create(ex, p1, "c", "short", True)
    op.after_step(ex)
    if long_ is not None:
        op.update_resources(ex, long_, 512, 128, True)
        op.update_resources(ex, long_, 1024, 32, False)
        op.create_duplicate(ex, long_)
        op.inspect_container(ex, long_)
    op.inspect_pod(ex, p1)
    op.lists(ex)
    op.after_step(ex)
    if instant is not None:
        op.inspect_container(ex, instant)
        op.remove_container(ex, instant)
        op.remove_container(ex, instant)
        op.stop_container(ex, instant)
        op.inspect_container(ex, instant)
    if long_ is not None:
        op.stop_container(ex, long_)
        op.stop_container(ex, long_)
    op.after_step(ex)
    op.reconnect(ex)
    p2 = op.run_pod(ex)
    if p2 is not None:
        op.create(ex, p2, "a", "long", True)
        op.create(ex, p2, "b", "long", False)
        op.after_step(ex)
        op.stop_pod(ex, p2)
        op.stop_pod(ex, p2)
        op.remove_pod(ex, p2)
        op.remove_pod(ex, p2)
        op.inspect_pod(ex, p2)
    if long_ is not None:
        op.remove_container(ex, long_)
    op.after_step(ex)
