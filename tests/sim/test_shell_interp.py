"""The interpreter against busybox's ash: each recorded script gives the same stdout, stderr and
exit code; and what only a simulation shows (time, jobs, input, plans, refusals)."""
from __future__ import annotations

import pytest
from helpers.shell_cases import CASES

from fakecri.sim.recording import after_signal
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


@pytest.mark.parametrize("script,at_s,outputs,end_s,code", [
    # as host busybox (`sh -c SCRIPT &`, then `kill -TERM` at `at_s`): what it writes from then, and its end
    ("trap 'echo got' TERM; sleep 1000 & wait; echo after $?", 1, ["got\n", "after 143\n"], 0, 0),
    ("trap 'echo got $?; exit' TERM; sleep 3; echo after", 1, ["got 0\n"], 2, 0),  # after the foreground sleep
    ("trap exit TERM; sleep 100 & wait", 1, [], 0, 143),  # a bare exit keeps the status `wait` got
    ("trap 'false; exit' TERM; sleep 5", 1, [], 4, 0),  # the status the trap began with, not false's
    ("sleep 1000 & wait; echo after $?", 1, [], 0, 143),  # no trap, not PID 1: it dies of it
    ("trap '' TERM; sleep 2; echo after $?", 1, ["after 0\n"], 1, 0),
])
def test_a_signal_delivered_into_the_interpreter(script, at_s, outputs, end_s, code):
    # (as a container's command, whose jobs end with it; PID 1 unless no trap would catch the signal)
    ctx = Context(main="trap" in script)
    after = after_signal(spawn(["sh", "-c", script], ctx), at_s * S, "TERM", 15, limit_ns=60 * S)
    assert after is not None
    assert ([text for _, _, text in after.outputs], after.end_ns, after.exit_code) == (outputs, end_s * S, code)


def test_pid_1_never_gets_a_signal_it_has_no_trap_for():
    main = Context(main=True)
    after = after_signal(spawn(["sh", "-c", "sleep 1000 & wait; echo after $?"], main), S, "TERM", 15, limit_ns=60 * S)
    assert after is not None and after.end_ns is None  # still waiting when the grace period is over
    after = after_signal(spawn(["sh", "-c", "echo up"], main), S, "TERM", 15)
    assert after is None  # it had ended before the signal came


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
