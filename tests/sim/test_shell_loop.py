"""Containers whose command is the logging loop conformance suites run log a line every N seconds."""
from __future__ import annotations

from fakecri.sim.behaviour import build_plan, logging_loop

S = 1_000_000_000


def test_echo_then_sleep_loop_logs_at_once_and_every_period():
    argv = ["sh", "-c", "while true; do echo hello; sleep 1; done"]
    assert logging_loop(argv) == (S, "stdout", "hello\n", True)
    plan = build_plan(argv, [], {})
    assert plan.end_ns is None and (0, "stdout", "hello\n") in plan.outputs
    assert plan.log_every_ns == S and plan.log_every_line == "hello" and plan.log_stream == "stdout"


def test_sleep_first_loop_and_stderr():
    argv = ["sh", "-c", "while :; do sleep 0.5; echo tick >&2; done"]
    assert logging_loop(argv) == (S // 2, "stderr", "tick\n", False)
    plan = build_plan(argv, [], {})
    assert plan.outputs == () and plan.log_every_ns == S // 2 and plan.log_stream == "stderr"


def test_other_loops_are_not_logging_loops():
    for script in ("while true; do echo a; echo b; sleep 1; done", "while true; do echo a; done",
                   "while false; do echo a; sleep 1; done", "echo hi; sleep 1"):
        assert logging_loop(["sh", "-c", script]) is None, script
    assert build_plan(["sh", "-c", "echo hi; sleep 1"], [], {}).log_every_ns is None


def test_a_for_loop_runs():
    from fakecri.sim.shell import trace

    done = trace(["sh", "-c", "for i in 1 2; do echo $i; done"], b"")
    assert done.outputs == ((0, "stdout", "1\n"), (0, "stdout", "2\n")) and done.exit_code == 0
