"""Input to a container's own command: a shell or cat started with stdin answers what it is given."""
from __future__ import annotations

import pytest

from fakecri.engine.errors import FailedPrecondition
from fakecri.engine.records import ContainerState

S = 1_000_000_000


def watch(runtime):
    seen = []
    runtime.output_listeners.append(lambda cid, stream, text, ts: seen.append((stream, text)))
    return seen


def test_a_shell_answers_each_line_and_exits_at_the_end_of_its_input(pods, runtime):
    c = pods.running(pods.sandbox(), command=("/bin/sh",))
    seen = watch(runtime)
    assert runtime.reads_input(c.id)
    runtime.feed_input(c.id, b"echo hello\n")
    assert seen == [("stdout", "hello\n")]
    runtime.feed_input(c.id, b"nope\nexit")
    assert seen[1:] == [("stderr", "sh: nope: not found\n")]
    assert c.state == ContainerState.RUNNING  # `exit` without its newline is not a line yet
    runtime.feed_input(c.id, None)  # then `exit` is the last line: the last status, 127
    assert (c.state, c.exit_code, c.reason) == (ContainerState.EXITED, 127, "Error")


def test_cat_echoes_and_a_command_that_does_not_read_drops_input(pods, runtime):
    sb = pods.sandbox()
    cat = pods.running(sb, "cat", command=("cat",))
    sleeper = pods.running(sb, "sleeper", command=("sleep", "100"))
    seen = watch(runtime)
    runtime.feed_input(cat.id, b"a")
    runtime.feed_input(sleeper.id, b"b")
    assert seen == [("stdout", "a")]
    assert not runtime.reads_input(sleeper.id)


def test_input_given_before_the_command_reads_waits_for_it(pods, runtime, clock):
    c = pods.running(pods.sandbox(), command=("sh", "-c", "sleep 5; cat; exit 3"))
    seen = watch(runtime)
    runtime.feed_input(c.id, b"early\n")
    runtime.feed_input(c.id, None)
    assert seen == []
    clock.advance(5)
    runtime.tick()
    assert seen == [("stdout", "early\n")]
    assert (c.state, c.exit_code) == (ContainerState.EXITED, 3)


def test_live_steps_take_simulated_time(pods, runtime, clock):
    c = pods.running(pods.sandbox(), command=("sh",))
    seen = watch(runtime)
    runtime.feed_input(c.id, b"sleep 2; echo late\n")
    assert seen == []
    clock.advance(2)
    runtime.tick()
    assert seen == [("stdout", "late\n")]


def test_a_stopped_container_takes_no_input(pods, runtime):
    c = pods.running(pods.sandbox(), command=("cat",))
    runtime.feed_input(c.id, b"x")
    runtime.stop_container(c.id)
    with pytest.raises(FailedPrecondition):
        runtime.feed_input(c.id, b"y")
    assert runtime.store.live == {}
