"""seq, yes and expr against busybox's (no userland)."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, fake, needs_busybox

pytestmark = needs_busybox

SEQ = [["3"], ["2", "4"], ["1", "2", "7"], ["5", "-2", "1"], ["-s,", "3"], ["-w", "8", "10"], ["0.5", "0.5", "2"],
       ["1", "0.1", "1.3"], ["3", "1"], ["x"], [], ["-w", "1", "0.5", "2"], ["--", "-1", "1"], ["-s", "", "3"],
       ["1e1", "11"], ["-f", "%g", "2"], ["1", "2", "3", "4"], ["-w", "-1", "1"], ["-w", "--", "-5", "3", "5"],
       ["10", "-3", "1"], ["1.50", "3"], ["-s", ":", "-w", "9", "11"]]


@pytest.mark.parametrize("args", SEQ, ids=" ".join)
def test_seq_matches_busybox(args):
    check(["seq", *args], stderr="first")


EXPR = [["1", "+", "2"], ["5", "-", "7"], ["3", "*", "4"], ["7", "/", "2"], ["7", "%", "3"], ["-7", "/", "2"],
        ["-7", "%", "2"], ["1", "/", "0"], ["2", ">", "1"], ["a", "<", "b"], ["10", "<", "9"], ["1", "=", "1"],
        ["a", "!=", "a"], ["0"], [""], ["abc", ":", "a\\(.\\)"], ["abc", ":", "ab"], ["abc", ":", "x"],
        ["abc", ":", "x\\(.\\)"], ["length", "hello"], ["substr", "hello", "2", "3"], ["index", "hello", "l"],
        ["match", "abc", "a."], ["1", "+"], ["a", "+", "1"], ["(", "1", "+", "2", ")", "*", "3"], ["0", "|", "5"],
        ["3", "&", "0"], ["", "|", ""], ["2", "&", "3"], ["-5", "+", "1"], ["99999999999999999999", "+", "1"],
        ["10", ">", "9a"], ["1", "2"], [], ["+", "length"], ["abc", ":", ".*"], ["0", "+", "0"], ["01", "=", "1"],
        ["9223372036854775807", "+", "1"], ["5", ":", "\\(.\\)\\(.\\)"], ["substr", "abc", "0", "1"],
        ["substr", "abc", "2", "10"], ["index", "abc", "xc"], ["length"], ["3", "<", "10"], ["a", "<=", "a"],
        ["x", "=", "x", "&", "1"], ["5", "*", "2", "+", "1", "*", "3"], ["abc", ":", "a*\\(b\\)"], ["aaa", ":", "a\\+"],
        ["a(b", ":", "a(b"], ["(", "=", "("], ["x", ":", "\\("], ["v1.2", ":", "v\\([0-9]*\\)"]]


@pytest.mark.parametrize("args", EXPR, ids=" ".join)
def test_expr_matches_busybox(args):
    check(["expr", *args], stderr="first")


def test_yes_into_a_pipe_writes_a_pipeful_and_ends_as_by_sigpipe():
    from fakecri.sim.applets import APPLET_COMMANDS
    from fakecri.sim.shell import Context, record, spawn
    done = record(spawn(["yes"], Context(commands=APPLET_COMMANDS)), b"")
    assert done.outputs[0][2].startswith("y\ny\n") and done.end_ns is None  # to an exec's output: until stopped
    assert fake(["seq", "1", "0", "1"])[0].startswith(b"1\n1\n")
    check(["sh", "-c", "yes a b | head -n 2"])
