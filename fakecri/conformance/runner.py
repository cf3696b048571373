"""Running the suite: a scripted example, then Hypothesis examples with every check
observing, then one focused (shrinking) run per failed property, then a cleanup pass.

    from fakecri.conformance import Options, run_suite
    result = run_suite(Options(endpoint="unix:///run/containerd/containerd.sock"))
    print(result.table())
"""
from __future__ import annotations

import time

try:
    from hypothesis import HealthCheck, Phase, Verbosity, settings
except ImportError as exc:  # the lean install: `pip install fakecri` has no Hypothesis
    raise ImportError(f"fakecri's conformance suite needs Hypothesis ({exc}): "
                      "pip install 'fakecri[conformance]'") from exc
from hypothesis.errors import FlakyFailure, FlakyStrategyDefinition
from hypothesis.reporting import with_reporter
from hypothesis.stateful import get_state_machine_test

from fakecri.client import CRIClient, CRIError
from fakecri.conformance import kubelet_calls
from fakecri.conformance import properties as P
from fakecri.conformance.causes import explain
from fakecri.conformance.example import Violation
from fakecri.conformance.expectations import NAMESPACE, RUN_LABEL
from fakecri.conformance.hypothesis_internals import counting_test_cases, seed_test, shrinking_limited_to
from fakecri.conformance.machine import BudgetSpent, ConformanceMachine, finish, scripted, start_example
from fakecri.conformance.options import Options
from fakecri.conformance.results import FAIL, PASS, SKIP, PropertyResult, SuiteResult, relevant_calls
from fakecri.conformance.run_state import RunState
from fakecri.conformance.scenarios import probe_events, slow_subscriber_policy

__all__ = ["FAIL", "PASS", "SKIP", "Options", "PropertyResult", "SuiteResult", "cleanup_run", "run_suite"]



def _settings(opts: Options, *, shrink: bool, examples: int | None = None) -> settings:
    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    return settings(
        max_examples=examples or opts.max_examples,
        stateful_step_count=opts.steps,
        deadline=None,
        database=None,
        derandomize=opts.seed is None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
    )


def _hypothesis_run(run: RunState, *, shrink: bool, examples: int | None = None,
                    shrink_time: float | None = None) -> tuple[BaseException | None, list[str]]:
    """One Hypothesis run of the machine (at most `examples` examples, shrinking for at
    most `shrink_time` seconds). Returns (the failure, if any; the report lines)."""
    test = get_state_machine_test(lambda: ConformanceMachine(run),  # type: ignore[arg-type]  # a factory works
                                  settings=_settings(run.options, shrink=shrink, examples=examples))
    seed_test(test, run.options.seed)
    lines: list[str] = []
    try:
        with with_reporter(lambda text: lines.append(str(text))), \
                shrinking_limited_to(shrink_time or run.options.shrink_time):
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
    counterexamples: dict[str, tuple[str, list[str], bool]] = {}
    ended: dict[str, int] | None = None
    try:
        _prepare(run)
        run.events_unavailable = probe_events(run)
        if run.events_unavailable is not None:
            _say(options, f"no events: {run.events_unavailable}")
        if options.scripted:
            _say(options, "scripted example")
            ex = start_example(run)
            try:
                scripted(ex)
            finally:
                finish(ex)
        _say(options, f"{options.max_examples} random examples of up to {options.steps} steps")
        with counting_test_cases() as counts:
            failure, _ = _hypothesis_run(run, shrink=False)
        ended = None if counts is None else dict(counts)
        if failure is not None:  # only flakiness reaches here in the observing run
            run.violations.setdefault(P.ValidCallsSucceed.name, []).append((f"Hypothesis: {failure}", run.last_calls))
        if run.enabled(P.SlowSubscriberPolicy.name):
            if run.events_unavailable is not None:
                run.note_skip(P.SlowSubscriberPolicy.name, f"no events were delivered ({run.events_unavailable})")
            elif not run.seen_counts["containers"]:
                pass  # judged as a skip: no container was created (the verdict says why)
            else:
                slow_subscriber_policy(run, options.slow_burst)
        failed = [n for n in run.selected if n in run.violations]
        causes, follower_of = explain(failed, options.profile)
        if options.shrink:
            counterexamples = _shrink(run, [n for n in failed if n not in follower_of])
    finally:
        leftovers = cleanup_run(run.client, run.run_id)
        run.close()
    results = [_verdict(run, name, counterexamples, follower_of) for name in run.selected]
    ran_scripted = options.scripted and run.examples > 0
    random_total = run.examples - (1 if ran_scripted else 0)
    cut_short = min(random_total, ended.get("gave_up", 0)) if ended is not None else 0
    return SuiteResult(options.endpoint, options.profile, run.run_id, options.seed, run.examples,
                       time.monotonic() - started, results, leftovers,
                       [c.summary() for c in causes if c.followers],
                       random_examples=random_total - cut_short, scripted=ran_scripted, cut_short=cut_short)


def _prepare(run: RunState) -> None:
    """The runtime answers, and has the image (pulled only when ImageStatus does not
    show it, as a kubelet's IfNotPresent does)."""
    opts = run.options
    try:
        run.client.wait_ready(10.0)
        run.client.version()
        # kubelet images/image_manager.go EnsureImageExists (IfNotPresent): ImageStatus, and
        # PullImage (with the pod's sandbox config, kuberuntime_image.go) only when absent;
        # the image's id (or the pull's ref) is what CreateContainer then names.
        status = run.client.image_status(opts.image)
        if status.HasField("image"):
            run.image_ref = status.image.id or opts.image
        else:
            if not opts.pull:
                raise ConnectionError(f"cannot use the runtime at {opts.endpoint}: the image {opts.image} is not "
                                      "present and pulling was turned off")
            puller = kubelet_calls.sandbox_config(name="image-pull", namespace=NAMESPACE, uid=run.run_id,
                                                  labels={RUN_LABEL: run.run_id}, annotations={}, log_root=None)
            run.image_ref = run.client.pull_image(opts.image, sandbox_config=puller) or opts.image
    except CRIError as exc:
        raise ConnectionError(f"cannot use the runtime at {opts.endpoint}: {exc}") from None


def _shrink(run: RunState, names: list[str]) -> dict[str, tuple[str, list[str], bool]]:
    """One focused run per failure kind (MUST before SHOULD), all within the shrink
    budget. A focused run replays only as many examples as it took the observing run
    to fail (derandomized, the same draws come first), shrinks for at most
    `shrink_time`, and stops when the budget runs out with the smallest failing
    sequence seen so far. A failure seen only in the scripted
    example is not shrunk: Hypothesis did not draw it. Returns, per property, the
    message, the calls and whether shrinking finished."""
    opts = run.options
    deadline = time.monotonic() + opts.shrink_budget
    found: dict[str, tuple[str, list[str], bool]] = {}
    for name in sorted(names, key=lambda n: P.BY_NAME[n].level != P.MUST):
        if name == P.SlowSubscriberPolicy.name:
            continue
        left = deadline - time.monotonic()
        index = run.first_failure.get(name)
        if left < 1.0:
            _say(opts, f"not shrinking {name}: the shrink budget ({opts.shrink_budget:g}s) is spent")
            continue
        if index is None:
            continue
        limit = min(opts.shrink_time, left)
        _say(opts, f"shrinking {name} (at most {limit:.0f}s)")
        # Hypothesis ends shrinking by itself after `limit`; the deadline stops a run that
        # the whole budget cannot afford (a replay is a whole example).
        run.focus, run.focus_calls, run.focus_deadline = name, None, deadline
        try:
            failure, _ = _hypothesis_run(run, shrink=True, examples=min(opts.max_examples, index + 2),
                                         shrink_time=limit)
            finished = isinstance(failure, Violation)
        except BudgetSpent:
            finished = False
        finally:
            run.focus, run.focus_deadline = None, None
        if run.focus_calls is not None:
            found[name] = (run.focus_message, run.focus_calls, finished)
    return found


def _verdict(run: RunState, name: str, counterexamples: dict[str, tuple[str, list[str], bool]],
             follower_of: dict[str, str]) -> PropertyResult:
    cls = P.BY_NAME[name]
    r = PropertyResult(name, cls.level, cls.item, " ".join((cls.__doc__ or "").split("Source:")[-1].split()),
                       cls.proof, exercises=run.exercises[name], follows_from=follower_of.get(name, ""),
                       basis=cls.basis)
    found = run.violations.get(name, [])
    if found:
        r.status, r.violations = FAIL, len(found)
        r.reason, calls = found[0]
        if name in counterexamples:  # the (partly) shrunk example's own message and calls
            r.reason, calls, r.shrunk = counterexamples[name]
            r.partly_shrunk = not r.shrunk
        r.counterexample = relevant_calls(calls, r.reason)
    elif "containers" in cls.needs and not run.seen_counts["containers"]:  # nothing it is about exists
        r.status, r.reason = SKIP, _unmet_need(run, ("containers",)) or ""
    elif not r.exercises:  # never checked: not passed
        r.status = SKIP
        r.reason = run.skip_notes.get(name) or _no_exercise(run, name)
    elif (unmet := _unmet_need(run, cls.needs)) is not None:  # checked, but only around an empty world
        r.status, r.reason = SKIP, unmet
    else:
        r.reason = run.pass_notes.get(name) or f"held over {run.examples} examples ({_seen_text(run, r.exercises)})"
    for text in run.notes.get(name, []):
        r.reason += f"; {text}"
    left_out = run.left_out.get(name)
    if left_out and name == P.RelistConvergence.name:
        shown = ", ".join(list(left_out.values())[:4]) + (", ..." if len(left_out) > 4 else "")
        r.reason += (f"; left out {len(left_out)} objects no legacy relist saw, gone from the runtime but still in"
                     f" the cache the events wrote ({shown}): a legacy relist never corrects those, in a real"
                     " kubelet too; a lost DELETED is judged by events-complete")
    return r


def _seen_text(run: RunState, checks: int) -> str:
    """How much a passing property saw: its checks, and the objects and events of the run."""
    seen = run.seen_counts
    return (f"{checks} checks; {seen['pods']} pods, {seen['containers']} containers, "
            f"{seen['events']} events about them")


def _unmet_need(run: RunState, needs: tuple[str, ...]) -> str | None:
    """Why a property that was exercised still saw nothing it judges, or None."""
    seen = run.seen_counts
    for need in needs:
        if seen[need]:
            continue
        if need == "containers" or not seen["containers"]:
            if run.create_refusals:
                return (f"no container was created: every CreateContainer failed (first: {run.create_refusals[0]});"
                        " nothing it judges was seen")
            return "no container was created, so nothing it judges was seen"
        if need == "container_events":
            why = f" ({run.events_unavailable})" if run.events_unavailable else ""
            return f"no event about a container was delivered{why}"
        if need == "events":
            why = run.events_unavailable or "the stream stayed open but carried nothing"
            return f"no events were delivered ({why})"
        if need == "exits":
            return "no container exit was observed"
        return f"nothing of what it judges was seen ({need})"
    return None


def _no_exercise(run: RunState, name: str) -> str:
    if name in P.EVENT_PROPERTIES and not run.events_delivered:
        why = run.events_unavailable or "the stream stayed open but carried nothing"
        return f"no events were delivered ({why})"
    return _default_skip(name)


def _default_skip(name: str) -> str:
    return {
        P.StreamEndIsFailure.name: "no event stream ended during the run",
        P.NoLostExits.name: "no container exit was observed",
        P.RelistConvergence.name: "the PLEG was not run",
        P.ResourcesStickAllOrNothing.name: "no resource update was made",
        P.StreamListsEqualUnary.name: "no list was compared",
        P.IdempotentStopRemove.name: "no repeated stop or remove was made",
        P.SandboxStopRemoveCascades.name: "no pod was stopped or removed",
        P.StatusTimestampWithStatuses.name: "PodSandboxStatus never set timestamp or containers_statuses: both are"
                                            " optional, and a runtime may send events without them (containerd"
                                            " 2.0.3 and later leave them unset on purpose, containerd#11323)",
        P.NoMissedEvents.name: "the relist found nothing to compare with events",
        P.RelistTable.name: "the relist sent no lifecycle events",
        P.CacheMonotonic.name: "the PLEG cache held no entry",
        P.SlowSubscriberPolicy.name: "the burst did not run",
    }.get(name, "not exercised")
