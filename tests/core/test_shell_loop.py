"""The interpreter models the logging loop conformance suites run: a line every N seconds."""
from __future__ import annotations

from fakecri.core.behaviour import build_plan
from fakecri.core.shell import simulate

S = 1_000_000_000


def test_echo_then_sleep_loop_logs_at_once_and_every_period():
    trace = simulate(["sh", "-c", "while true; do echo hello; sleep 1; done"])
    assert trace.modelled and trace.end_ns is None
    assert trace.outputs == ((0, "stdout", "hello\n"),)
    assert trace.repeat == (S, "stdout", "hello\n")
    plan = build_plan(["sh", "-c", "while true; do echo hello; sleep 1; done"], [], {})
    assert plan.log_every_ns == S and plan.log_every_line == "hello" and plan.log_stream == "stdout"


def test_sleep_first_loop_and_stderr():
    trace = simulate(["sh", "-c", "while :; do sleep 0.5; echo tick >&2; done"])
    assert trace.outputs == () and trace.repeat == (S // 2, "stderr", "tick\n")


def test_other_loops_are_not_modelled():
    for script in ("while true; do echo a; echo b; sleep 1; done", "while true; do echo a; done",
                   "while false; do echo a; sleep 1; done"):
        trace = simulate(["sh", "-c", script])
        assert trace.repeat is None and not trace.modelled, script
