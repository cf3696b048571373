"""Input to a container's own command: a shell or cat started with stdin answers what it is given.

The simulation decides (`Wrote`, `Exited`); the owner (here `Joined`, in the server the Node)
applies the decisions to the engine, whose outbox then holds the output."""
from __future__ import annotations

import pytest

from fakecri.engine.errors import FailedPrecondition
from fakecri.engine.records import ContainerState
from fakecri.sim.live import Exited, Wrote

S = 1_000_000_000


def watch(joined):
    """What containers write from now on, as (stream, text) in the order written."""
    joined.pump()
    start = len(joined.outputs)

    def seen():
        joined.pump()
        return [(o.stream, o.text) for o in joined.outputs[start:]]
    return seen


def test_a_shell_answers_each_line_and_exits_at_the_end_of_its_input(pods, joined):
    runtime = joined.runtime
    c = pods.running(pods.sandbox(), command=("/bin/sh",))
    seen = watch(joined)
    assert joined.sim.reads_input(c)
    joined.feed(c.id, b"echo hello\n")
    assert seen() == [("stdout", "hello\n")]
    joined.feed(c.id, b"nope\nexit")
    assert seen()[1:] == [("stderr", "/bin/sh: nope: not found\n")]  # busybox names itself by its argv[0]
    assert runtime.get_container(c.id).state == ContainerState.RUNNING  # `exit` without its newline is not a line yet
    joined.feed(c.id, None)  # then `exit` is the last line: the last status, 127
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.reason) == (ContainerState.EXITED, 127, "Error")


def test_the_simulation_decides_and_the_engine_is_not_touched(pods, joined, clock):
    c = pods.running(pods.sandbox(), command=("/bin/sh",))
    changes = joined.runtime.changes
    decisions = joined.sim.feed_input(c, b"echo hi\nexit 4\n", clock.now_ns())
    assert decisions == [Wrote(c.id, "stdout", "hi\n", clock.now_ns()), Exited(c.id, 4, "Error", clock.now_ns())]
    assert joined.runtime.changes == changes and joined.runtime.get_container(c.id).state == ContainerState.RUNNING
    joined.apply(decisions)
    assert joined.log.lines(c.log_path) == ["hi"] and joined.runtime.get_container(c.id).exit_code == 4


def test_cat_echoes_and_a_command_that_does_not_read_drops_input(pods, joined):
    sb = pods.sandbox()
    cat = pods.running(sb, "cat", command=("cat",))
    sleeper = pods.running(sb, "sleeper", command=("sleep", "100"))
    seen = watch(joined)
    joined.feed(cat.id, b"a")
    joined.feed(sleeper.id, b"b")
    assert seen() == [("stdout", "a")]
    assert joined.sim.reads_input(cat) and not joined.sim.reads_input(sleeper)


def test_input_given_before_the_command_reads_waits_for_it(pods, joined, clock):
    runtime = joined.runtime
    c = pods.running(pods.sandbox(), command=("sh", "-c", "sleep 5; cat; exit 3"))
    seen = watch(joined)
    joined.feed(c.id, b"early\n")
    joined.feed(c.id, None)
    assert seen() == []
    assert joined.sim.next_deadline_ns() == c.started_at + 5 * S
    clock.advance(5)
    joined.tick()
    assert seen() == [("stdout", "early\n")]
    c = runtime.get_container(c.id)
    assert (c.state, c.exit_code, c.finished_at) == (ContainerState.EXITED, 3, c.started_at + 5 * S)


def test_live_steps_take_simulated_time(pods, joined, clock):
    c = pods.running(pods.sandbox(), command=("sh",))
    seen = watch(joined)
    joined.feed(c.id, b"sleep 2; echo late\n")
    assert seen() == []
    assert joined.sim.next_deadline_ns() == clock.now_ns() + 2 * S
    clock.advance(2)
    joined.tick()
    assert seen() == [("stdout", "late\n")] and joined.outputs[-1].ts_ns == clock.now_ns()
    assert joined.sim.next_deadline_ns() is None


def test_a_stopped_container_takes_no_input(pods, joined):
    runtime = joined.runtime
    c = pods.running(pods.sandbox(), command=("cat",))
    joined.feed(c.id, b"x")
    assert joined.sim.live.get(c.id) is not None
    runtime.stop_container(c.id)
    joined.events()  # the owner tells the simulation of the stop
    with pytest.raises(FailedPrecondition):
        joined.feed(c.id, b"y")
    assert joined.sim.live.get(c.id) is None and joined.sim.next_deadline_ns() is None


def test_a_decision_for_a_container_that_ended_meanwhile_is_dropped(pods, joined, clock):
    c = pods.running(pods.sandbox(), command=("/bin/sh",))
    decisions = joined.sim.feed_input(c, b"echo late\nexit 3\n", clock.now_ns())
    joined.runtime.stop_container(c.id, 0)
    joined.apply(decisions)  # as the server does: no error, the stop stands
    c = joined.runtime.get_container(c.id)
    assert (c.exit_code, c.reason) == (137, "Error") and joined.log.lines(c.log_path) == []  # killed: timeout 0


def test_input_reaches_a_shell_that_is_the_images_default_command(clock):
    from helpers.core_pods import Joined, Pod

    from fakecri.sim.catalog import Catalog
    joined = Joined(clock, catalog=Catalog.from_dict({"images": [{"tags": ["shell:1"], "content": {"cmd": ["sh"]}}]}))
    joined.runtime.images.pull("shell:1")
    pods = Pod(joined.runtime)
    c = pods.running(pods.sandbox(), image="shell:1", command=())
    assert joined.sim.reads_input(c)  # the plan runs the image's `sh`, which waits for input
    joined.feed(c.id, b"echo hello\n")
    assert joined.log.lines(c.log_path) == ["hello"]
