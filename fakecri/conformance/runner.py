"""Running the suite: a scripted example, then Hypothesis examples with every check
observing, then one focused (shrinking) run per failed property, then a cleanup pass.

    from fakecri.conformance import Options, run_suite
    result = run_suite(Options(endpoint="unix:///run/containerd/containerd.sock"))
    print(result.table())
"""
from __future__ import annotations

import time

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.errors import FlakyFailure, FlakyStrategyDefinition
from hypothesis.reporting import with_reporter
from hypothesis.stateful import get_state_machine_test

from fakecri.client import CRIClient, CRIError
from fakecri.conformance import properties as P
from fakecri.conformance.example import Violation
from fakecri.conformance.expectations import RUN_LABEL
from fakecri.conformance.hypothesis_internals import seed_test, shrinking_limited_to
from fakecri.conformance.machine import ConformanceMachine, finish, scripted, start_example
from fakecri.conformance.options import Options
from fakecri.conformance.results import FAIL, PASS, SKIP, PropertyResult, SuiteResult
from fakecri.conformance.run_state import RunState
from fakecri.conformance.scenarios import slow_subscriber_policy

__all__ = ["FAIL", "PASS", "SKIP", "Options", "PropertyResult", "SuiteResult", "cleanup_run", "run_suite"]

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
    seed_test(test, run.options.seed)
    lines: list[str] = []
    try:
        with with_reporter(lines.append), shrinking_limited_to(run.options.shrink_time):
            test()
    except (Violation, FlakyFailure, FlakyStrategyDefinition) as exc:
        return exc, lines
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
            ex = start_example(run)
            try:
                scripted(ex)
            finally:
                finish(ex)
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
