"""Running the suite: a scripted example, then Hypothesis examples with every check
observing, then one focused (shrinking) run per failed property, then a cleanup pass.

    from fakecri.conformance import Options, run_suite
    result = run_suite(Options(endpoint="unix:///run/containerd/containerd.sock"))
    print(result.table())
"""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.errors import FlakyFailure, FlakyStrategyDefinition
from hypothesis.internal.conjecture import engine as _engine
from hypothesis.reporting import with_reporter
from hypothesis.stateful import get_state_machine_test

from fakecri.client import CRIClient, CRIError
from fakecri.conformance import properties as P
from fakecri.conformance.machine import PROFILES, RUN_LABEL, ConformanceMachine, Example, Violation, scripted
from fakecri.conformance.scenarios import slow_subscriber_policy

PASS, FAIL, SKIP = "pass", "fail", "skip"
# Properties that need the kubelet-like PLEG running.
PLEG_PROPERTIES = {P.RelistConvergence.name, P.NoLostExits.name, P.RelistTable.name, P.NoMissedEvents.name,
                   P.CacheMonotonic.name, P.StreamEndIsFailure.name}


@dataclass
class Options:
    endpoint: str
    image: str = "busybox"
    profile: str = "current"
    max_examples: int = 20
    steps: int = 10
    seed: int | None = None
    properties: list[str] | None = None  # None: all
    shrink: bool = True
    shrink_time: float = 30.0  # seconds of shrinking per failed property
    call_timeout: float = 30.0
    sync_timeout: float = 3.0
    settle_timeout: float = 10.0
    settle_quiet: float = 1.5  # ...or until no event arrived for this long
    margin: float = 5.0  # added to a relist period before a convergence check fails
    scripted: bool = True
    slow_burst: int = 300  # containers in the slow-subscriber burst (4 events each)
    progress: Callable[[str], None] | None = None

    def validate(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"profile {self.profile!r} is not one of {', '.join(PROFILES)}")
        for name in self.properties or []:
            if name not in P.BY_NAME:
                raise ValueError(f"no property named {name!r}; known: {', '.join(P.NAMES)}")
        if self.max_examples < 1 or self.steps < 1:
            raise ValueError("max_examples and steps must be at least 1")


@dataclass
class PropertyResult:
    name: str
    level: str
    item: str
    source: str
    proof: str
    status: str = PASS
    reason: str = ""
    violations: int = 0
    counterexample: list[str] = field(default_factory=list)
    shrunk: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("name", "level", "item", "status", "reason", "violations",
                                               "counterexample", "shrunk", "source", "proof")}


@dataclass
class SuiteResult:
    endpoint: str
    profile: str
    run_id: str
    seed: int | None
    examples: int
    seconds: float
    results: list[PropertyResult]
    leftovers: list[str] = field(default_factory=list)

    @property
    def must_failures(self) -> list[PropertyResult]:
        return [r for r in self.results if r.status == FAIL and r.level == P.MUST]

    def failed(self, strict: bool = False) -> bool:
        return any(r.status == FAIL and (strict or r.level == P.MUST) for r in self.results)

    def by_name(self, name: str) -> PropertyResult:
        return next(r for r in self.results if r.name == name)

    def table(self) -> str:
        from fakecri.conformance.report import table

        return table(self)

    def as_dict(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "profile": self.profile, "run_id": self.run_id, "seed": self.seed,
                "examples": self.examples, "seconds": round(self.seconds, 2), "leftovers": self.leftovers,
                "properties": [r.as_dict() for r in self.results]}


class RunState:
    """What lives across examples: the run label, the record of violations, which
    properties were exercised, and what every subscriber has received so far."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.run_id = uuid.uuid4().hex[:12]
        self.client = CRIClient(options.endpoint, timeout=options.call_timeout)
        self.selected = list(options.properties or P.NAMES)
        self.focus: str | None = None
        self.violations: dict[str, list[tuple[str, list[str]]]] = {}
        self.applicable_props: set[str] = set()
        self.skip_notes: dict[str, str] = {}
        self.pass_notes: dict[str, str] = {}
        self.seen: set[tuple[int, str]] = set()
        self.examples = 0
        self.current: Example | None = None
        self.last_calls: list[str] = []
        self.focus_calls: list[str] | None = None
        self.focus_message = ""

    def enabled(self, name: str) -> bool:
        return name in self.selected

    def wants_pleg(self) -> bool:
        return any(n in PLEG_PROPERTIES for n in self.selected)

    def baseline(self, extra: list[Any] = ()) -> frozenset[tuple[int, str]]:
        pairs = set(self.seen)
        for sub in extra:
            pairs |= sub.pairs()
        return frozenset(pairs)

    def record(self, name: str, message: str, calls: list[str]) -> None:
        if self.focus is not None:
            if name == self.focus:
                self.focus_calls, self.focus_message = calls, message
            return
        self.violations.setdefault(name, []).append((message, calls))

    def mark_applicable(self, name: str, note: str = "") -> None:
        self.applicable_props.add(name)

    def note_skip(self, name: str, reason: str) -> None:
        self.skip_notes.setdefault(name, reason)

    def example_done(self, ex: Example) -> None:
        self.examples += 1
        for sub in [*ex.subs, *ex.late]:
            self.seen |= sub.pairs()
        self.last_calls = list(ex.calls)

    def close(self) -> None:
        self.client.close()


# Properties judged on every example whatever happens (their checks always run).
ALWAYS_APPLICABLE = {
    P.EventOrderPerContainer.name, P.SandboxBracketing.name, P.SandboxStatusOnEveryEvent.name,
    P.SnapshotAgreesWithType.name, P.CreatedAtNanosecondsMonotonic.name, P.SubscribersSeeSameSequence.name,
    P.EventsComplete.name, P.EventStreamStaysOpen.name, P.NoStaleReplay.name, P.NoPartialPodView.name,
    P.ValidCallsSucceed.name, P.NoDuplicateLiveContainers.name,
}


def _settings(opts: Options, *, shrink: bool) -> settings:
    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    return settings(
        max_examples=opts.max_examples,
        stateful_step_count=opts.steps,
        deadline=None,
        database=None,
        derandomize=opts.seed is None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
    )


def _hypothesis_run(run: RunState, *, shrink: bool) -> tuple[BaseException | None, list[str]]:
    """One Hypothesis run of the machine. Returns (the failure, if any; the report lines)."""
    test = get_state_machine_test(lambda: ConformanceMachine(run), settings=_settings(run.options, shrink=shrink))
    if run.options.seed is not None:
        test._hypothesis_internal_use_seed = run.options.seed  # what @hypothesis.seed sets
    lines: list[str] = []
    saved = getattr(_engine, "MAX_SHRINKING_SECONDS", None)
    if saved is not None:  # Hypothesis's own cap on shrinking time (5 minutes) is too long here
        _engine.MAX_SHRINKING_SECONDS = int(run.options.shrink_time)
    try:
        with with_reporter(lines.append):
            test()
    except (Violation, FlakyFailure, FlakyStrategyDefinition) as exc:
        return exc, lines
    finally:
        if saved is not None:
            _engine.MAX_SHRINKING_SECONDS = saved
    return None, lines


def cleanup_run(client: CRIClient, run_id: str) -> list[str]:
    """Remove every sandbox and container carrying the run label. Returns what could
    not be removed."""
    sel = {"label_selector": {RUN_LABEL: run_id}}
    left: list[str] = []
    for _ in range(3):
        left = []
        try:
            for c in client.list_containers(sel):
                try:
                    client.remove_container(c.id)
                except CRIError as exc:
                    left.append(f"container {c.id[:12]}: {exc}")
            for sb in client.list_pod_sandbox(sel):
                try:
                    client.stop_pod_sandbox(sb.id)
                    client.remove_pod_sandbox(sb.id)
                except CRIError as exc:
                    left.append(f"sandbox {sb.id[:12]}: {exc}")
            if not left and not client.list_pod_sandbox(sel) and not client.list_containers(sel):
                return []
        except CRIError as exc:
            left.append(f"listing: {exc}")
        time.sleep(0.5)
    return left


def _say(opts: Options, text: str) -> None:
    if opts.progress is not None:
        opts.progress(text)


def run_suite(options: Options) -> SuiteResult:
    """Run the whole suite against `options.endpoint` and return one result per property."""
    options.validate()
    started = time.monotonic()
    run = RunState(options)
    leftovers: list[str] = []
    counterexamples: dict[str, tuple[str, list[str]]] = {}
    try:
        try:
            run.client.wait_ready(10.0)
            run.client.version()
            run.client.pull_image(options.image)
        except CRIError as exc:
            raise ConnectionError(f"cannot use the runtime at {options.endpoint}: {exc}") from None
        if options.scripted:
            _say(options, "scripted example")
            ex = Example(run)
            try:
                scripted(ex)
            finally:
                ex.finish()
        _say(options, f"{options.max_examples} random examples of up to {options.steps} steps")
        failure, _ = _hypothesis_run(run, shrink=False)
        if failure is not None:  # only flakiness reaches here in the observing run
            run.violations.setdefault(P.ValidCallsSucceed.name, []).append((f"Hypothesis: {failure}", run.last_calls))
        if run.enabled(P.SlowSubscriberPolicy.name):
            _say(options, f"slow subscriber during a burst of {options.slow_burst} containers")
            slow_subscriber_policy(run, options.slow_burst)
        for name in run.selected:
            if name not in run.violations or not options.shrink or name == P.SlowSubscriberPolicy.name:
                continue
            _say(options, f"shrinking {name}")
            run.focus, run.focus_calls = name, None
            failure, _ = _hypothesis_run(run, shrink=True)
            if isinstance(failure, Violation) and run.focus_calls is not None:
                counterexamples[name] = (run.focus_message, run.focus_calls)
            run.focus = None
    finally:
        leftovers = cleanup_run(run.client, run.run_id)
        run.close()
    results = []
    for name in run.selected:
        cls = P.BY_NAME[name]
        r = PropertyResult(name, cls.level, cls.item, " ".join((cls.__doc__ or "").split("Source:")[-1].split()),
                           cls.proof)
        found = run.violations.get(name, [])
        if found:
            r.status, r.violations = FAIL, len(found)
            r.reason, r.counterexample = found[0]
            if name in counterexamples:  # the shrunk example's own message and calls
                (r.reason, r.counterexample), r.shrunk = counterexamples[name], True
        elif name not in run.applicable_props and name not in ALWAYS_APPLICABLE:
            r.status = SKIP
            r.reason = run.skip_notes.get(name) or _default_skip(name)
        else:
            r.reason = run.pass_notes.get(name) or f"held over {run.examples} examples"
        results.append(r)
    return SuiteResult(options.endpoint, options.profile, run.run_id, options.seed, run.examples,
                       time.monotonic() - started, results, leftovers)


def _default_skip(name: str) -> str:
    return {
        P.StreamEndIsFailure.name: "no event stream ended during the run",
        P.NoLostExits.name: "no container exit was observed",
        P.RelistConvergence.name: "the PLEG was not run",
        P.ResourcesStickAllOrNothing.name: "no resource update was made",
        P.StreamListsEqualUnary.name: "no list was compared",
        P.IdempotentStopRemove.name: "no repeated stop or remove was made",
        P.SandboxStopRemoveCascades.name: "no pod was stopped or removed",
        P.StatusTimestampWithStatuses.name: "no PodSandboxStatus was checked",
        P.SlowSubscriberPolicy.name: "the burst did not run",
    }.get(name, "not exercised")
