"""What a stop does to each kind of program: PID 1 gets only the signals it handles.

A shell running a loop, or `sleep`, installs no SIGTERM handler, so as PID 1 of its PID
namespace it never sees the runtime's SIGTERM: the stop waits the whole timeout and
SIGKILL ends it (137). nginx, httpd, pause and Go programs take it and exit at once.
"""
from __future__ import annotations

import pytest

from fakecri.engine.records import ContainerState
from fakecri.sim.behaviour import build_plan
from fakecri.sim.signals import on_sigterm

S = 1_000_000_000
LOOP = ["sh", "-c", "while true; do echo tick; sleep 5; done"]


@pytest.mark.parametrize("argv,delay_ns,code,program", [
    (LOOP, None, 0, "shell"),
    # (ash runs the last command of `sh -c` in its own place when it traps nothing: sleep is PID 1)
    (["sh", "-c", "echo starting; sleep 3600"], None, 0, "busybox"),
    (["sh", "-c", "echo setting up; nginx -g 'daemon off;'"], 0, 0, "web server"),
    (["sh", "-c", "echo starting; sleep 3600 &"], None, 0, "shell"),  # (a job: the shell waits for it)
    (["/bin/sh", "-c", "while :; do date; sleep 1; done"], None, 0, "shell"),
    (["sh"], None, 0, "shell"),  # reading its input
    (["sh", "/entrypoint.sh"], None, 0, "shell"),
    (["sh", "-c", "sleep 3600"], None, 0, "busybox"),  # the shell execs its one command
    (["sleep", "infinity"], None, 0, "busybox"),
    (["tail", "-f", "/dev/null"], None, 0, "busybox"),
    (["cat"], None, 0, "busybox"),
    (["/bin/sh", "-c", "top"], 0, 143, "busybox terminal program"),  # critest's default container
    (["nginx", "-g", "daemon off;"], 0, 0, "web server"),
    (["httpd-foreground"], 0, 0, "web server"),
    (["sh", "-c", "nginx -g 'daemon off;'"], 0, 0, "web server"),
    (["sh", "-c", "echo setting up; exec nginx -g 'daemon off;'"], 0, 0, "web server"),
    (["/bin/bash", "-ec", "env FOO=1 exec /usr/sbin/httpd -DFOREGROUND"], 0, 0, "web server"),
    (["/pause"], 0, 0, "pause"),
    (["agnhost", "netexec", "--http-port=8080"], 0, 2, "agnhost"),
    (["/agnhost", "pause"], 0, 2, "agnhost"),
    (["/app/server", "--port", "8080"], 0, 0, "unknown"),
    ([], 0, 0, "unknown"),
    # A trap for TERM (any action): the signal goes into the shell, which decides as it comes.
    (["sh", "-c", "trap 'echo bye; exit 3' TERM; while true; do sleep 1; done"], None, 0, "shell with a trap"),
    (["sh", "-c", "trap 'exit' SIGTERM INT\nsleep 3600 & wait"], None, 0, "shell with a trap"),
    (["sh", "-c", "trap 'exit 0' 15; while true; do sleep 1; done"], None, 0, "shell with a trap"),
    (["sh", "-c", "trap 'echo got it' TERM; while true; do sleep 1; done"], None, 0, "shell with a trap"),
    (["sh", "-c", "trap 'exit 0' TERM; sleep 3600"], None, 0, "shell with a trap"),
    # An ignored or reset TERM, a trap for another signal: no handler, nothing reaches PID 1.
    (["sh", "-c", "trap '' TERM; while true; do sleep 1; done"], None, 0, "shell"),
    (["sh", "-c", "trap 'exit 0' TERM; trap - TERM; while true; do sleep 1; done"], None, 0, "shell"),
    (["sh", "-c", "trap 'exit 0' INT; while true; do sleep 1; done"], None, 0, "shell"),
])
def test_each_kind_of_program(argv, delay_ns, code, program, short_traces):
    term = on_sigterm(argv)
    assert (term.delay_ns, term.exit_code, term.program) == (delay_ns, code, program)
    assert term.delivered == (program == "shell with a trap")


# A shell with a trap for TERM, as a container's command, stopped 5.5 s after its start with 30 s
# of grace: (its log, exit code, seconds from the stop to its end). Each as host busybox does it
# (`sh -c SCRIPT &`, `kill -TERM` 5.5 s later), but where no trap catches TERM: PID 1 never gets it.
TRAPPED = [
    # `wait` returns 143 at the signal, the trap runs, the script goes on and ends with its last status
    ("trap 'echo got' TERM; sleep 1000 & wait; echo after $?", ["got", "after 143"], 0, 0.0),
    # a bare `exit` in the trap exits with the status it began with (wait's 143), `exit N` with N
    ("trap 'echo got; exit' TERM; sleep 1000 & wait; echo after $?", ["got"], 143, 0.0),
    ("trap 'echo got; exit 7' TERM; sleep 1000 & wait $!; echo after $?", ["got"], 7, 0.0),
    ("trap 'kill $PID; exit 42' TERM; sleep 1000 & PID=$!; wait $PID", [], 42, 0.0),
    ("cleanup() { sleep 2; exit 3; }; trap cleanup TERM; sleep infinity & wait", [], 3, 2.0),
    # a foreground command holds the trap until it ends (the signal went to PID 1 only)
    ("trap 'echo got $?' TERM; sleep 10; echo after $?", ["got 0", "after 0"], 0, 4.5),
    ("trap 'echo got' TERM; sleep 100; echo after $?", [], 137, 30.0),  # past the grace period: killed
    # a loop: the trap runs once the round's sleep ends; the loop goes on unless the trap exits
    ("trap 'echo bye; sleep 3; exit 5' TERM; while true; do echo tick; sleep 2; done",
     ["tick", "tick", "tick", "bye"], 5, 3.5),
    ("trap 'echo got' TERM; while true; do sleep 1; done", ["got"], 137, 30.0),
    # the trap ends a wait; a second wait waits for the job, past the grace period
    ("trap 'echo got' TERM; sleep 100 & wait; echo after $?; wait", ["got", "after 143"], 137, 30.0),
    # the trap was set later than the stop: none then, and PID 1 ignores the signal
    ("sleep 8; trap 'exit 9' TERM; sleep 1000", [], 137, 30.0),
    # set, then reset or ignored: nothing
    ("trap 'exit 9' TERM; sleep 1; trap - TERM; sleep 1000", [], 137, 30.0),
    ("trap 'exit 9' TERM; sleep 1; trap '' TERM; sleep 1000", [], 137, 30.0),
]


@pytest.mark.parametrize("script,logged,code,after_s", TRAPPED)
def test_a_stop_delivers_sigterm_into_a_trapping_shell(joined, pods, script, logged, code, after_s):
    c = pods.running(pods.sandbox(), command=("sh", "-c", script))
    joined.advance(5.5)
    delay = joined.stop(c.id, 30)
    assert delay == pytest.approx(after_s)
    joined.advance(delay)
    c = joined.runtime.get_container(c.id)
    assert (joined.log.lines(c.log_path), c.state, c.exit_code) == (logged, ContainerState.EXITED, code)
    assert c.finished_at - c.started_at == round((5.5 + after_s) * S)


def test_a_second_stop_does_not_deliver_the_signal_again(joined, pods):
    c = pods.running(pods.sandbox(), command=("sh", "-c", "trap 'echo got; sleep 10; exit 4' TERM; sleep 100 & wait"))
    joined.advance(1)
    assert joined.stop(c.id, 30) == 10.0
    joined.advance(2)
    assert joined.stop(c.id, 30) == 8.0  # the pending stop's end stands
    joined.advance(8)
    c = joined.runtime.get_container(c.id)
    assert (joined.log.lines(c.log_path), c.exit_code) == (["got"], 4)


def test_a_shell_loop_is_killed_at_the_end_of_the_grace_period(pods, runtime, clock, events):
    """The issue's case: `crictl stop -t 30` of a logging loop waits 30 s and reports 137."""
    c = pods.running(pods.sandbox(), command=LOOP)
    events()
    assert runtime.stop_container(c.id, 30) == 30.0
    clock.advance(29.9)
    runtime.tick()
    assert runtime.get_container(c.id).state == ContainerState.RUNNING
    clock.advance(0.1)
    runtime.tick()
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.reason, c.finished_at) == (ContainerState.EXITED, 137, "Error",
                                                              clock.now_ns())
    assert [e.type.name for e in events()] == ["STOPPED"]


def test_a_timeout_of_zero_kills_at_once(pods, runtime):
    c = pods.running(pods.sandbox(), command=LOOP)
    assert runtime.stop_container(c.id, 0) == 0.0
    assert runtime.get_container(c.id).exit_code == 137


def test_the_annotations_change_the_default():
    plan = build_plan(LOOP, (), {"fakecri.io/stop-delay": "2s", "fakecri.io/stop-exit-code": "0"})
    assert plan.stop_outcome(30 * S) == (2 * S, 0, "Completed")
    plan = build_plan(LOOP, (), {"fakecri.io/stop-exit-code": "143"})  # it takes SIGTERM, at once
    assert plan.stop_outcome(30 * S) == (0, 143, "Error")
    plan = build_plan(["nginx"], (), {"fakecri.io/stop-delay": "never"})
    assert plan.stop_outcome(30 * S) == (30 * S, 137, "Error")
    plan = build_plan(["agnhost", "netexec"], (), {"fakecri.io/stop-delay": "1s"})
    assert plan.stop_outcome(30 * S) == (S, 2, "Error")  # the program's own code, later


def test_the_images_own_command_decides(joined, pods):
    """A container with no command runs its image's: nginx's takes SIGTERM."""
    joined.runtime.images.pull("docker.io/library/nginx:latest")
    sb = pods.sandbox()
    c = pods.running(sb, command=(), image="docker.io/library/nginx:latest")
    assert joined.sim.argv_of(c)[1][0] == "nginx"
    assert joined.runtime.stop_container(c.id, 30) == 0.0
    assert joined.runtime.get_container(c.id).exit_code == 0


def test_a_command_that_reads_its_files_takes_the_signal_live(joined, pods):
    """A command with files to look at goes on live from its first sleep once it traps TERM (its
    commands are not run twice): the stop delivers the signal into that live process."""
    script = ("trap 'rm -f /tmp/ready; echo bye; exit 3' TERM; touch /tmp/ready; i=0\n"
              "while true; do i=$((i+1)); echo \"round $i\" >> /tmp/rounds; sleep 2; done")
    c = pods.running(pods.sandbox(), command=("sh", "-c", script))
    joined.advance(5)
    assert joined.sim.userland_of(c.id).read("/tmp/rounds") == b"round 1\nround 2\nround 3\n"
    assert joined.stop(c.id, 30) == 1.0  # the round's sleep ends at 6 s, then the trap
    joined.advance(1)
    c = joined.runtime.get_container(c.id)
    assert (joined.log.lines(c.log_path), c.exit_code) == (["bye"], 3)
    assert not joined.sim.userland_of(c.id).exists("/tmp/ready")
    assert joined.sim.userland_of(c.id).read("/tmp/rounds") == b"round 1\nround 2\nround 3\n"
