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
    (["sh", "-c", "echo starting; sleep 3600"], None, 0, "shell"),
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
    # A trap for TERM that exits: taken between the loop's commands.
    (["sh", "-c", "trap 'echo bye; exit 3' TERM; while true; do sleep 1; done"], 0, 3, "shell with a trap"),
    # `wait` returns at the signal, 143, which a bare `exit` keeps.
    (["sh", "-c", "trap 'exit' SIGTERM INT\nsleep 3600 & wait"], 0, 143, "shell with a trap"),
    (["sh", "-c", "trap 'exit 0' 15; while true; do sleep 1; done"], 0, 0, "shell with a trap"),
    # A trap that does not exit, an ignored or reset TERM, a trap for another signal: no change.
    (["sh", "-c", "trap 'echo got it' TERM; while true; do sleep 1; done"], None, 0, "shell"),
    (["sh", "-c", "trap '' TERM; while true; do sleep 1; done"], None, 0, "shell"),
    (["sh", "-c", "trap 'exit 0' INT; while true; do sleep 1; done"], None, 0, "shell"),
    # The foreground command holds the trap until the kill.
    (["sh", "-c", "trap 'exit 0' TERM; sleep 3600"], None, 0, "shell"),
])
def test_each_kind_of_program(argv, delay_ns, code, program, short_traces):
    term = on_sigterm(argv)
    assert (term.delay_ns, term.exit_code, term.program) == (delay_ns, code, program)


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
