"""The interpreter against busybox's ash: each recorded script gives the same stdout, stderr and
exit code; and what only a simulation shows (time, jobs, input, plans, refusals)."""
from __future__ import annotations

import pytest
from helpers.shell_cases import CASES

from fakecri.sim.behaviour import build_plan
from fakecri.sim.shell import READ, Context, Sleep, Write, record, spawn, trace
from fakecri.sim.shell.parser import parse

S = 1_000_000_000


def streams(done):
    out = "".join(t for _, s, t in done.outputs if s == "stdout")
    err = "".join(t for _, s, t in done.outputs if s == "stderr")
    return out, err, done.exit_code


@pytest.mark.parametrize("script,out,err,code", CASES, ids=[c[0][:40] for c in CASES])
def test_as_busybox_does(script, out, err, code):
    assert streams(trace(["sh", "-c", script])) == (out, err, code)


def test_one_parse_per_script():
    assert parse("echo a; for i in 1 2; do echo $i; done") is parse("echo a; for i in 1 2; do echo $i; done")


def test_background_jobs_run_beside_the_shell_on_one_clock():
    done = trace(["sh", "-c", "(sleep 1; echo job) & echo now; sleep 2; echo later"])
    assert done.outputs == ((0, "stdout", "now\n"), (S, "stdout", "job\n"), (2 * S, "stdout", "later\n"))
    killed = trace(["sh", "-c", "sleep 100 & p=$!; sleep 1; kill $p; wait $p; echo $?"])
    assert streams(killed) == ("143\n", "Terminated\n", 0) and killed.end_ns == S


def test_a_pipeline_streams_and_a_reader_that_ends_stops_the_writer():
    done = trace(["sh", "-c", "while :; do echo tick; sleep 1; done | { read a; read b; echo \"$a $b\"; }"])
    assert done.outputs == ((S, "stdout", "tick tick\n"),)
    assert (done.end_ns, done.exit_code) == (2 * S, 0)  # the writer dies at its next write (SIGPIPE)


def test_an_interactive_shell_asks_for_the_rest_of_a_command():
    proc = spawn(["sh"], Context(tty=True))
    assert next(proc) == Write("stdout", "/ # ")
    assert next(proc) is READ
    assert proc.send(b"for i in 1 2\n") == Write("stdout", "> ")
    assert next(proc) is READ
    assert proc.send(b"do echo $i; done\n") == Write("stdout", "1\n")
    assert next(proc) == Write("stdout", "2\n")
    assert next(proc) == Write("stdout", "/ # ")
    assert next(proc) is READ
    assert proc.send(b"fi\n") == Write("stderr", 'sh: syntax error: unexpected "fi"\n')
    assert next(proc) == Write("stdout", "/ # ")


def test_read_takes_its_lines_from_the_input_as_they_come():
    proc = spawn(["sh", "-c", "read a; echo got $a; sleep 1"])
    assert next(proc) is READ
    assert proc.send(b"x y\n") == Write("stdout", "got x y\n")
    assert next(proc) == Sleep(S)


def test_a_script_reaching_an_unmodelled_applet_fails_even_as_a_containers_command():
    refused = []
    done = record(spawn(["sh", "-c", "echo start; acpid; echo $?"], Context(main=True, refused=refused.append)), None)
    assert streams(done) == ("start\n127\n", "sh: acpid: not modelled by fakecri\n", 0)
    assert refused == ["acpid"]
    assert trace(["sh", "-c", "echo start; exec my-server --port 80"], main=True).end_ns is None  # not busybox's


def test_runaway_recursion_is_bounded_with_a_message():
    done = trace(["sh", "-c", "f() { f; }; f"])
    assert done.exit_code == 2 and "more than 50 deep" in done.outputs[-1][2]


@pytest.mark.parametrize("script,delay_s,code", [
    ("trap 'kill $PID; exit 42' TERM; sleep 1000 & PID=$!; wait $PID", 0, 42),
    ("trap 'echo stopping; exit 0' TERM; while true; do sleep 1; done", 0, 0),
    ("cleanup() { sleep 2; exit 3; }; trap cleanup TERM; sleep infinity & wait", 2, 3),
    ("trap exit TERM; sleep 100 & wait", 0, 143),  # a bare exit keeps the status `wait` got
])
def test_a_term_trap_decides_how_a_stop_ends(script, delay_s, code, short_traces):
    plan = build_plan(["sh", "-c", script], [], {})
    assert plan.stop_outcome(30 * S)[:2] == (delay_s * S, code)
    assert plan.term_handler[:2] == ("sh", "-c")
    assert "PID=" in plan.term_handler[2] or "PID" not in script  # the handler sees the shell's variables


def test_a_loop_goes_on_live_once_time_has_passed():
    proc = spawn(["sh", "-c", "while true; do echo x; sleep 1; done"], Context(main=True))
    done = record(proc, None, hand_over=True)
    assert done.live_at_ns == S and done.outputs == ((0, "stdout", "x\n"),)


def test_aliases_and_the_prompt_after_cd():
    # (as ash reads a line it expands the aliases there are: those of that line from its next one on)
    done = trace(["sh", "-c", "alias ll='echo aliased'\nll x; unalias ll; ll\nll"])
    assert streams(done) == ("aliased x\naliased\n", "sh: ll: not found\n", 127)
    proc = spawn(["sh"], Context(tty=True))
    assert next(proc) == Write("stdout", "/ # ")
    assert next(proc) is READ
    assert proc.send(b"cd /tmp\n") == Write("stdout", "/tmp # ")


@pytest.mark.parametrize("script,out", [
    ("false; x=$(exit 3) y=$?; echo $y $?", "1 3\n"),  # $(...) sets $? once its command is done
    ("true; echo $(exit 3) $?", "0\n"),
    ('b=; echo "[${b:+x}]" "${b:+x}" end', "[]  end\n"),  # between quotes, nothing is still a word
])
def test_status_and_empty_words_as_busybox(script, out):
    assert streams(trace(["sh", "-c", script]))[0] == out
