"""The command interpreter: a table of commands and what they do over time."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakecri.sim.shell import COMMANDS, READ, Context, Sleep, Write, record, spawn, trace


def simulate(argv, stdin=None, in_exec=False):
    """A container's own command (no input ever comes), or an exec command with `stdin`."""
    return trace(argv, stdin if in_exec else None, main=not in_exec)

S = 1_000_000_000


@pytest.mark.parametrize("argv,end_s,code", [
    (["sleep", "2"], 2, 0),
    (["/bin/sleep", "0.5"], 0.5, 0),
    (["sleep", "1m"], 60, 0),
    (["sleep", "1", "2"], 3, 0),
    (["sleep", "infinity"], None, 0),
    (["true"], 0, 0),
    (["false"], 0, 1),
    (["sh", "-c", "exit 3"], 0, 3),
    (["/bin/sh", "-c", "exit 300"], 0, 44),
    (["bash", "-c", "sleep 1; exit 7"], 1, 7),
    (["sh", "-ec", "sleep 1 && false"], 1, 1),
    (["sh", "-c", "false && sleep 5; echo after"], 0, 0),
    (["sh", "-c", "false || exit 9"], 0, 9),
    (["sh", "-c", "true || exit 9"], 0, 0),
    (["sh", "-c", "sleep 1\nsleep 2"], 3, 0),
    (["sh", "-c", "exec sleep 4"], 4, 0),
    (["env", "A=1", "sleep", "1"], 1, 0),
    (["busybox", "sleep", "2"], 2, 0),
    (["sh", "-c", "sleep x"], 0, 1),
    (["sh", "-c", "exit nope"], 0, 2),
    (["sh", "-c", "false; exit"], 0, 1),
    (["nginx", "-g", "daemon off;"], None, 0),
    (["/pause"], None, 0),
    ([], None, 0),
    (["sh"], None, 0),
    (["sh", "-c", "while true; do sleep 1; done"], None, 0),
    (["sh", "-c", "echo 'unbalanced"], 0, 2),  # busybox: syntax error: unterminated quoted string
    (["sh", "-c", "sleep 1 | cat"], 1, 0),  # the stages of a pipeline run one after the other
    (["sh", "-c", "&& true"], 0, 2),  # busybox: syntax error: unexpected "&&"
    (["sh", "-c", "sleep 2; myserver --port 80"], None, 0),
    (["cat"], None, 0),  # waits for input that never comes
    (["tail", "-f", "/dev/null"], None, 0),  # a busybox program not modelled runs on as a container
])
def test_container_commands(argv, end_s, code, short_traces):
    trace = simulate(argv)
    assert trace.end_ns == (None if end_s is None else round(end_s * S))
    assert trace.exit_code == code


def test_pipes_feed_each_command_the_output_of_the_one_before():
    trace = simulate(["sh", "-c", "echo hi | cat; echo a | false || echo failed; false && echo no | cat; "
                                  "echo '$HOME stays' | cat; exit 3 | cat"])
    assert [text for _, _, text in trace.outputs] == ["hi\n", "failed\n", "$HOME stays\n"]
    assert trace.exit_code == 0  # `exit` in a pipeline ends its own part only
    negated = simulate(["sh", "-c", "! echo x | false && echo negated; ! true && echo wrong"])
    assert [text for _, _, text in negated.outputs] == ["negated\n"] and negated.exit_code == 1


def test_background_jobs_and_wait():
    """`&` runs a job (a pipeline too) at once and goes on; `wait` waits for the jobs; a line
    that ends in `&&` or `|` goes on on the next one, and blank lines are nothing."""
    trace = simulate(["sh", "-c", "sleep 2 | cat &\necho now &&\n\n echo then; wait; echo after"])
    assert trace.outputs == ((0, "stdout", "now\n"), (0, "stdout", "then\n"), (2 * S, "stdout", "after\n"))
    assert trace.end_ns == 2 * S
    cut = simulate(["sh", "-c", "echo a |"])  # a pipe with nothing after it: busybox's syntax error
    assert (cut.exit_code, cut.outputs) == (2, ((0, "stderr", "sh: syntax error: unexpected end of file\n"),))
    assert simulate(["sh", "-c", "echo x | cat &"]).outputs == ((0, "stdout", "x\n"),)


def test_echo_output_offsets_and_redirects():
    trace = simulate(["sh", "-c", "echo hello world; sleep 1.5; echo -n bye; echo x > /tmp/f; exit 0"])
    assert trace.outputs == ((0, "stdout", "hello world\n"), (int(1.5 * S), "stdout", "bye"))
    assert trace.end_ns == int(1.5 * S)


def test_stderr_for_bad_sleep():
    assert simulate(["sleep", "soon"]).outputs[0][1] == "stderr"


def test_exec_of_an_unknown_program_is_not_found_as_in_busybox():
    done = trace(["pg_isready", "-h", "db"])
    assert (done.exit_code, done.end_ns) == (127, 0)
    assert done.outputs == ((0, "stderr", "sh: pg_isready: not found\n"),)
    done = trace(["sh", "-c", "echo before; /usr/bin/nope || echo fallback"])
    assert [text for _, _, text in done.outputs] == ["before\n", "sh: /usr/bin/nope: not found\n", "fallback\n"]


def test_a_busybox_program_not_modelled_is_refused_and_counted():
    """No silent success: outside a container (no userland), `touch` is nothing fakecri models."""
    refused = []
    done = record(spawn(["sh", "-c", "touch /tmp/healthy; echo $?"], Context(refused=refused.append)))
    assert done.outputs == ((0, "stderr", "sh: touch: not modelled by fakecri\n"), (0, "stdout", "127\n"))
    assert refused == ["touch"]
    assert trace(["ls", "-l", "/"]).exit_code == 127


def test_cat_echoes_stdin_and_has_no_files_outside_a_container():
    assert trace(["cat"], b"in\n").outputs == ((0, "stdout", "in\n"),)
    done = trace(["cat", "/tmp/healthy"])
    missing = "cat: can't open '/tmp/healthy': No such file or directory\n"
    assert (done.exit_code, done.outputs) == (1, ((0, "stderr", missing),))


@pytest.mark.parametrize("junk", [["\x00"], ["sh", "-c", ""], ["sh", "-c", ";;;"], ["sh", "-c", "((("],
                                   ["sleep", "-1"], ["sleep", "nan"], ["exit", "9999999999999999999999"],
                                   ["sh", "-c", "echo $((1+1))"], ["sh", "-c", "2>&1 echo hi"], ["sleep", "1e400"],
                                   ["sleep", "1e300d"], ["sh", "-c", "sleep 5 &"], [b"bytes", 3]])
def test_odd_input_never_raises(junk):
    trace = simulate(junk)
    assert trace.end_ns is None or trace.end_ns >= 0


def test_redirections():
    trace = simulate(["sh", "-c",
                      "echo a > /tmp/x; echo b >&2; echo c > /proc/1/fd/1; echo d >> /dev/stderr; cat < /f"])
    assert trace.outputs == ((0, "stderr", "b\n"), (0, "stdout", "c\n"), (0, "stderr", "d\n"),
                             (0, "stderr", "sh: can't open /f: no such file\n"))  # no files outside a container
    assert trace.exit_code == 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("sleep exit echo true false cat 0123456789.;&|<>()'\"\\\n-$mhd"))),
       st.booleans())
def test_random_scripts_never_raise(script, in_exec):
    trace = simulate(["sh", "-c", script], b"x", in_exec=in_exec)
    assert 0 <= trace.exit_code <= 255
    assert trace.end_ns is None or trace.end_ns >= 0
    assert all(stream in ("stdout", "stderr") for _, stream, _ in trace.outputs)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=5))
def test_random_argv_never_raises(argv):
    trace = simulate(argv)
    assert trace.end_ns is None or trace.end_ns >= 0


def test_interactive_shell_answers_line_by_line():
    proc = spawn(["sh"], Context(tty=True, size=lambda: (120, 40)))
    assert next(proc) == Write("stdout", "/ # ")
    assert next(proc) is READ
    assert proc.send(b"echo hi\n") == Write("stdout", "hi\n")
    assert next(proc) == Write("stdout", "/ # ")
    assert next(proc) is READ
    assert proc.send(b"stty size; sleep 2\n") == Write("stdout", "40 120\n")
    assert next(proc) == Sleep(2 * S)
    assert next(proc) == Write("stdout", "/ # ")
    assert next(proc) is READ
    with pytest.raises(StopIteration) as done:
        proc.send(b"exit 4\n")
    assert done.value.value == 4


def test_interactive_shell_without_a_terminal_has_no_prompt_and_ends_at_eof():
    done = trace(["sh"], b"echo one\nnope\necho two")
    assert [text for _, _, text in done.outputs] == ["one\n", "sh: nope: not found\n", "two\n"]
    assert done.exit_code == 0
    assert trace(["sh", "-s"], b"false\n").exit_code == 1


def test_a_command_that_does_not_read_never_asks_for_input():
    proc = spawn(["echo", "hi"])
    assert next(proc) == Write("stdout", "hi\n")
    with pytest.raises(StopIteration):
        next(proc)


def test_stty_needs_a_terminal():
    done = trace(["stty", "size"])
    assert done.exit_code == 1 and "Not a tty" in done.outputs[0][2]


def test_every_command_in_the_table_survives_odd_arguments():
    for name in COMMANDS:
        for args in ([], ["-x"], ["\x00", "9" * 30]):
            done = trace([name, *args], b"x\n")
            assert 0 <= done.exit_code <= 255


def test_while_and_until_loops(short_traces):
    from fakecri.sim.shell import trace

    assert trace(["sh", "-c", "while false; do echo never; done && echo after"]).outputs == ((0, "stdout", "after\n"),)
    assert trace(["sh", "-c", "until true; do sleep 1; done; echo ok"]).outputs == ((0, "stdout", "ok\n"),)
    assert trace(["sh", "-c", "while true; do sleep 1; done"], main=True).end_ns is None  # runs until stopped
    assert trace(["sh", "-c", "while true; do echo spin; done"]).end_ns is None  # bounded, then taken as endless
    broken = trace(["sh", "-c", "while true; do echo x"])
    assert broken.exit_code == 2 and "expecting \"done\"" in broken.outputs[0][2]


def test_functions_and_a_sigterm_trap(joined, pods):
    """A script that defines a function and traps SIGTERM with it (as the e2e probe specs'
    pods do), then waits: the stop delivers the signal into the shell, whose `wait` ends and
    whose trap runs the function (30 s, exit 0). A shell runs its trap only between commands,
    so a foreground `sleep infinity` holds it until the kill."""
    from fakecri.sim.behaviour import build_plan

    define = "_term() {\n\techo stopping\n\tsleep 30\n\texit 0\n}\ntrap _term SIGTERM\n\necho up\n"
    plan = build_plan(["/bin/bash", "-c", define + "sleep infinity &\nwait\n"], [], {})
    assert plan.outputs == ((0, "stdout", "up\n"),) and plan.end_ns is None and plan.term_delivered
    for timeout, delay, code, lines in ((60, 30, 0, ["up", "stopping"]), (10, 10, 137, ["up", "stopping"])):
        c = pods.running(pods.sandbox(), command=("/bin/bash", "-c", define + "sleep infinity &\nwait\n"))
        joined.advance(1)
        assert joined.stop(c.id, timeout) == delay  # (10 s: the grace period ends first, killed)
        joined.advance(delay)
        c = joined.runtime.get_container(c.id)
        assert (c.exit_code, joined.log.lines(c.log_path)) == (code, lines)
    held = pods.running(pods.sandbox(), command=("/bin/bash", "-c", define + "sleep infinity\n"))
    assert joined.stop(held.id, 60) == 60.0  # the foreground sleep never ends: killed at the end
    ignoring = pods.running(pods.sandbox(), command=(
        "sh", "-c", "greet() { echo hi; }; trap 'echo bye' TERM; greet; sleep 100 & wait; sleep infinity"))
    assert joined.stop(ignoring.id, 5) == 5.0  # an action that does not exit: the script goes on, killed at the end
    joined.advance(5)
    assert joined.log.lines(ignoring.log_path) == ["hi", "bye"]


