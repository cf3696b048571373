"""Verdicts that hold up: a property never exercised is not passed, a runtime without
events gets skips with the reason (and a stream closed at once is named as its own
defect), the image is pulled only when absent, reports are whole and say which
failure explains the others."""
from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from fakecri.cli import main
from fakecri.client import CRIClient
from fakecri.conformance import Options, run_suite
from fakecri.conformance import properties as P
from fakecri.conformance.causes import explain
from fakecri.conformance.properties import EVENT_PROPERTIES, NAMES
from fakecri.conformance.results import PropertyResult, SuiteResult, relevant_calls, table
from fakecri.faults.model import Fault
from fakecri.server.process.app import FakeCRIServer

pytestmark = pytest.mark.usefixtures("quiet_logs")


# A stream that works is found open after any wait, so the runs whose events work probe it
# briefly; the runs about a stream that fails keep the whole probe.
PROBE_QUICK = 0.2


def judge(faults, **extra):
    server = FakeCRIServer(seed=11, faults=list(faults)).start()
    started = time.monotonic()
    # The current profile's relist at a quarter of its period: the cache converges as it
    # does at 1 s, sooner.
    extra.setdefault("relist_scale", 0.25)
    try:
        result = run_suite(Options(endpoint=server.endpoint, max_examples=1, steps=4, seed=1, **extra))
    finally:
        server.stop()
    return result, time.monotonic() - started


def test_unimplemented_events_skip_the_event_properties_with_the_reason():
    result, seconds = judge([Fault(type="error", target="GetContainerEvents", attributes={"code": "UNIMPLEMENTED"})])
    got = {r.name: r for r in result.results}
    for name in EVENT_PROPERTIES:
        assert got[name].status == "skip", (name, got[name].reason)
        assert got[name].reason == "no events were delivered (GetContainerEvents answered UNIMPLEMENTED)", name
        assert got[name].exercises == 0
    # Everything else is still judged, and passes on fakecri.
    others = [r for r in result.results
              if r.name not in EVENT_PROPERTIES and r.name != "resources-stick-all-or-nothing"]
    assert all(r.status == "pass" and r.exercises > 0 for r in others), result.table()
    assert seconds < 45, f"{seconds:.0f}s: the slow-subscriber burst and its waits must not run"


def test_a_stream_closed_with_ok_at_once_is_named_as_its_own_defect():
    result, _ = judge([Fault(type="cut_stream", attributes={"after": "0", "code": "OK"})], shrink=False)
    stays = result.by_name("event-stream-stays-open")
    assert stays.status == "fail"
    assert "closed subscriber" in stays.reason and "with OK at once, before any event" in stays.reason
    assert "should answer UNIMPLEMENTED" in stays.reason
    for name in EVENT_PROPERTIES - {"event-stream-stays-open"}:
        r = result.by_name(name)
        assert r.status == "skip" and r.reason.startswith("no events were delivered (the runtime closed"), (name, r)


def test_the_image_is_pulled_only_when_absent_and_no_pull_is_honoured():
    with FakeCRIServer(seed=3) as server:
        res = CliRunner().invoke(main, ["conformance", "--endpoint", server.endpoint, "--no-pull", "-q",
                                        "--max-examples", "1", "--steps", "2"])
        assert res.exit_code == 2 and "busybox is not present and pulling was turned off" in res.output
        with CRIClient(server.endpoint, timeout=10) as cri:
            cri.pull_image("busybox")
        # From now on a pull would fail: the suite must see the image and not pull it.
        server.node.plan.add(Fault(type="error", target="PullImage", attributes={"code": "INTERNAL"}))
        result = run_suite(Options(endpoint=server.endpoint, max_examples=1, steps=2, seed=1, scripted=False,
                                   properties=["valid-calls-succeed"], probe_wait=PROBE_QUICK))
    assert result.by_name("valid-calls-succeed").status == "pass", result.table()


def test_a_property_never_exercised_is_skipped_not_passed():
    # Only the slow-subscriber property, with its burst skipped: nothing exercises it.
    with FakeCRIServer(seed=4) as server:
        result = run_suite(Options(endpoint=server.endpoint, max_examples=1, steps=1, scripted=False,
                                   properties=["no-lost-exits", "resources-stick-all-or-nothing"],
                                   probe_wait=PROBE_QUICK, relist_scale=0.25))
    for r in result.results:
        assert r.status == "pass" and r.exercises > 0 or r.status == "skip" and r.exercises == 0, r


def test_the_table_keeps_whole_reasons_and_names_the_cause():
    long_reason = "subscriber A never received DELETED of pod-1/a#0 " * 5
    rows = [PropertyResult(n, "MUST", "-", "", "") for n in NAMES]
    for r in rows:
        if r.name in ("events-complete", "subscribers-see-same-sequence", "no-missed-events"):
            r.status, r.reason, r.violations = "fail", long_reason, 1
    causes, follower_of = explain([r.name for r in rows if r.status == "fail"])
    result = SuiteResult("unix:///x", "current", "r", None, 1, 1.0, rows,
                         causes=[c.summary() for c in causes if c.followers])
    text = table(result)
    assert long_reason in text and "..." not in text
    assert ("events are missing (events-complete); these follow from it: subscribers-see-same-sequence, "
            "no-missed-events") in text
    assert follower_of == {"subscribers-see-same-sequence": "events-complete", "no-missed-events": "events-complete"}


def test_explain_keeps_independent_failures_apart():
    causes, follower_of = explain(["no-duplicate-live-containers", "idempotent-stop-remove",
                                   "sandbox-stop-remove-cascades", "relist-table"])
    assert follower_of == {"relist-table": "sandbox-stop-remove-cascades"}
    assert [c.cause.root for c in causes if c.followers] == ["sandbox-stop-remove-cascades"]
    _, follower_of = explain(["no-duplicate-live-containers", "valid-calls-succeed"])
    assert follower_of == {"valid-calls-succeed": "no-duplicate-live-containers"}


def test_a_timestamp_without_statuses_explains_the_legacy_relist_failures():
    failed = ["status-timestamp-with-statuses", "cache-monotonic", "relist-convergence", "relist-table",
              "no-lost-exits"]
    causes, follower_of = explain(failed, "legacy-evented")
    assert follower_of == {n: "status-timestamp-with-statuses" for n in failed[1:]}
    assert causes[0].summary().startswith("PodSandboxStatus sets a timestamp without containers_statuses")
    # The current kubelet uses the statuses only when both are set (k/k#129990): nothing follows there.
    assert explain(failed, "current")[1] == {}


def test_relevant_calls_drop_what_the_failure_does_not_name():
    calls = [
        "RunPodSandbox(sentinel-0-ab)  # sync",
        "RunPodSandbox(pod-1)",
        "CreateContainer(pod-1, a attempt 0, `sh -c 'exit 3'`) -> pod-1/a#0",
        "StartContainer(pod-1/a#0)",
        "ListPodSandbox(run label)",
        "StreamPodSandboxes(run label)",
        "ContainerStatus(pod-1/a#0)",
        "RunPodSandbox(pod-2)",
        "RemovePodSandbox(pod-1)  # cleanup",
        "RemovePodSandbox(pod-2)  # cleanup",
        "RemovePodSandbox(sentinel-0-ab)  # sync  # cleanup",
    ]
    kept = relevant_calls(calls, "subscriber A never received DELETED of pod-1")
    assert kept == ["RunPodSandbox(pod-1)", calls[2], "StartContainer(pod-1/a#0)", "RunPodSandbox(pod-2)",
                    "RemovePodSandbox(pod-1)  # cleanup"]
    named = relevant_calls(calls, "ContainerStatus of removed pod-1/a#0 failed with UNKNOWN, not NOT_FOUND")
    assert "ContainerStatus(pod-1/a#0)" in named and "ListPodSandbox(run label)" not in named


def test_a_runtime_that_refuses_every_create_earns_no_pass_about_containers():
    """Every CreateContainer answered FAILED_PRECONDITION (as CRI-O with a signature policy
    answers a caller that leaves out user_specified_image): the properties about containers
    or their events saw nothing and are skipped, saying why; the refusal itself fails
    valid-calls-succeed; what still passes (sandbox-only judgements) says it saw 0 containers."""
    refuse = Fault(type="error", target="CreateContainer", attributes={"code": "FAILED_PRECONDITION"})
    result, seconds = judge([refuse], shrink=False, probe_wait=PROBE_QUICK)
    assert result.by_name("valid-calls-succeed").status == "fail"
    for r in result.results:
        needs = P.BY_NAME[r.name].needs
        if "containers" in needs:
            assert r.status == "skip", (r.name, r.status, r.reason)
            assert r.reason.startswith("no container was created: every CreateContainer failed (first: "
                                       "CreateContainer: FAILED_PRECONDITION"), (r.name, r.reason)
        elif r.status == "pass":
            assert "0 containers" in r.reason, (r.name, r.reason)
    passed = {r.name for r in result.results if r.status == "pass"}
    assert passed <= {"event-stream-stays-open", "no-stale-replay", "idempotent-stop-remove",
                      "stream-lists-equal-unary"}, passed
    assert seconds < 20, f"{seconds:.0f}s"
