"""Timers driven by clock.advance + tick, and container output in CRI log format."""
from __future__ import annotations

import os

from helpers.core_pods import Joined

from fakecri.engine.clock import FakeClock
from fakecri.engine.records import ContainerState, Event, EventType, Output
from fakecri.server.host.log_files import MAX_LOG_LINE, LogFiles, format_entry, rfc3339_nano, split_lines

C = ContainerState
S = 1_000_000_000


def test_echo_output_reaches_the_log_at_its_time(pods, runtime, clock, sink):
    c = pods.running(pods.sandbox(), command=["sh", "-c", "echo one; sleep 2; echo two >&2; sleep 1"])
    assert sink.of(c.log_path) == [("stdout", "one", c.started_at)]
    clock.advance(2)
    runtime.tick()
    assert sink.of(c.log_path)[-1] == ("stderr", "two", c.started_at + 2 * S)
    assert runtime.get_container(c.id).state == C.RUNNING
    clock.advance(1)
    runtime.tick()
    c = runtime.get_container(c.id)
    assert c.state == C.EXITED and c.exit_code == 0


def test_the_log_holds_only_what_the_program_wrote(pods, runtime, sink):
    # No "fakecri: started container" line: a real runtime's log holds only the process's output.
    sb = pods.sandbox()
    nginx = pods.running(sb, "web", command=["nginx"])
    sleeper = pods.running(sb, "sleeper")
    quiet = pods.running(sb, "q", annotations={"fakecri.io/quiet": "true"})  # no such setting now: ignored
    said = runtime.drain_events()
    assert [s.type for s in said if not s.is_sandbox].count(EventType.STARTED) == 3
    assert not [s for s in said if isinstance(s, Output)]
    for c in (nginx, sleeper, quiet):
        assert sink.lines(c.log_path) == [] and runtime.get_container(c.id).state == C.RUNNING


def test_log_once_and_periodically_with_one_pending_timer(pods, runtime, clock, sink):
    c = pods.running(pods.sandbox(), annotations={
        "fakecri.io/log": "ready", "fakecri.io/log-every": "1s", "fakecri.io/log-every-line": "beat {n}",
        "fakecri.io/log-stream": "stderr",
    })
    assert runtime.counts()["timers"] == 1
    for _ in range(3):
        clock.advance(1)
        runtime.tick()
        assert runtime.counts()["timers"] == 1
    assert sink.of(c.log_path) == [("stderr", "ready", c.started_at)] + [
        ("stderr", f"beat {n}", c.started_at + n * S) for n in (1, 2, 3)
    ]


def test_a_long_jump_writes_bounded_catch_up_lines(pods, runtime, clock, sink):
    c = pods.running(pods.sandbox(), annotations={"fakecri.io/log-every": "1ms"})
    clock.advance(3600)
    runtime.tick()
    lines = sink.lines(c.log_path)
    assert 1000 <= len(lines) <= 1002 and lines[-1] == "fakecri: tick 3600000"
    assert runtime.next_deadline_ns() == clock.now_ns() + 1_000_000


def test_periodic_lines_stop_at_exit(pods, runtime, clock, sink):
    c = pods.running(pods.sandbox(), command=["sleep", "2.5"],
                     annotations={"fakecri.io/log-every": "1s"})
    clock.advance(10)
    runtime.tick()
    assert sink.lines(c.log_path) == ["fakecri: tick 1", "fakecri: tick 2"]
    c = runtime.get_container(c.id)
    assert c.finished_at == c.started_at + int(2.5 * S) and runtime.next_deadline_ns() is None


def test_timers_fire_in_due_order_across_containers(pods, runtime, clock, events):
    sb = pods.sandbox()
    slow = pods.running(sb, "slow", command=["sleep", "3"])
    fast = pods.running(sb, "fast", command=["sleep", "1"])
    mid = pods.running(sb, "mid", command=["sleep", "2"])
    events()
    assert runtime.next_deadline_ns() == fast.started_at + S
    clock.advance(5)
    runtime.tick()
    assert [e.container_id for e in events()] == [fast.id, mid.id, slow.id]
    assert runtime.next_deadline_ns() is None


def test_stale_timers_are_dropped(pods, runtime, clock):
    sb = pods.sandbox()
    cs = [pods.running(sb, f"c{i}", command=["sleep", "100"]) for i in range(2000)]
    for c in cs:
        runtime.remove_container(c.id)
    assert runtime.next_deadline_ns() is None
    pods.running(sb, "x", command=["sleep", "1"])
    clock.advance(1)
    runtime.tick()
    assert runtime.counts()["timers"] < 1100


def test_real_clock_tolerates_an_early_loop_timer(pods):
    class AlmostClock:
        is_fake = False
        now = FakeClock.DEFAULT_START_NS

        def now_ns(self):
            return self.now

    clock = AlmostClock()
    rt = Joined(clock).runtime
    sb = rt.run_pod_sandbox(name="p", namespace="n", uid="u")
    c = rt.create_container(sb.id, name="x", image="busybox", command=("sleep", "1"))
    rt.start_container(c.id)
    clock.now += S - 500_000  # the loop woke 0.5 ms early
    rt.tick()
    c = rt.get_container(c.id)
    assert c.state == C.EXITED and c.finished_at == c.started_at + S


def test_output_comes_through_the_outbox_in_order_with_the_events(pods, runtime, clock):
    sb = pods.sandbox()
    runtime.drain_events()
    c = pods.running(sb, command=["sh", "-c", "echo hello; echo oops >&2; sleep 1; echo bye"])
    said = runtime.drain_events()
    t0 = clock.now_ns()
    assert [(type(s).__name__, getattr(s, "type", None)) for s in said] == [
        ("Event", EventType.CREATED), ("Event", EventType.STARTED), ("Output", None), ("Output", None)]
    assert said[2:] == [Output(c.id, c.log_path, "stdout", "hello\n", t0),
                        Output(c.id, c.log_path, "stderr", "oops\n", t0)]
    clock.advance(1)
    runtime.tick()
    said = runtime.drain_events()
    assert said[0] == Output(c.id, c.log_path, "stdout", "bye\n", t0 + S)
    assert isinstance(said[1], Event) and said[1].type == EventType.STOPPED and len(said) == 2
    assert runtime.drain_events() == []


def test_rfc3339_nano_like_go():
    assert rfc3339_nano(FakeClock.DEFAULT_START_NS) == "2026-01-01T00:00:00Z"
    assert rfc3339_nano(FakeClock.DEFAULT_START_NS + 123_400_000) == "2026-01-01T00:00:00.1234Z"
    assert rfc3339_nano(FakeClock.DEFAULT_START_NS + 1) == "2026-01-01T00:00:00.000000001Z"
    assert format_entry("stdout", "x", FakeClock.DEFAULT_START_NS) == "2026-01-01T00:00:00Z stdout F x\n"
    assert split_lines("a\nb\n") == ["a", "b"] and split_lines("") == [""]


def test_log_files_write_the_outbox_in_cri_format_and_create_directories(tmp_path):
    files = LogFiles()
    joined = Joined(FakeClock())
    rt = joined.runtime
    sb = rt.run_pod_sandbox(name="p", namespace="n", uid="u", log_directory=str(tmp_path / "pods" / "p"))
    c = rt.create_container(sb.id, name="x", image="busybox",
                            command=("sh", "-c", "echo a; echo b >&2; sleep infinity"), log_path="x/0.log")
    files.create(c.log_path)  # as the server does at create
    rt.start_container(c.id)
    for said in rt.drain_events():  # what the server's commit does with output
        if isinstance(said, Output):
            files.write(said.log_path, said.stream, said.text, said.ts_ns)
    assert c.log_path == str(tmp_path / "pods" / "p" / "x" / "0.log")
    with open(c.log_path, encoding="utf-8") as f:
        assert f.read() == "2026-01-01T00:00:00Z stdout F a\n2026-01-01T00:00:00Z stderr F b\n"
    os.rename(c.log_path, c.log_path + ".1")  # the kubelet rotates, then asks to reopen
    files.reopen(rt.check_reopen_log(c.id).log_path)
    assert os.path.getsize(c.log_path) == 0
    assert files.errors == 0


def test_log_files_swallow_and_count_errors(tmp_path):
    blocker = str(tmp_path / "file")
    open(blocker, "w").close()
    files = LogFiles()
    files.write(os.path.join(blocker, "sub", "0.log"), "stdout", "x\n", 0)  # parent is a file
    files.reopen(os.path.join(blocker, "0.log"))
    files.write("", "stdout", "nowhere\n", 0)  # a container without a log path: nothing, no error
    assert files.errors == 2 and files.last_error


def test_memory_log_keeps_entries_by_path_and_lines_split(joined):
    # The test helper standing in for the log files: one entry per line, the final newline ends the last.
    joined.log.add(Output("c", "p", "stdout", "one\ntwo\n", 1))
    joined.log.add(Output("c", "p", "stderr", "three", 2))
    assert joined.log.of("p") == [("stdout", "one", 1), ("stdout", "two", 1), ("stderr", "three", 2)]
    assert joined.log.lines("p") == ["one", "two", "three"] and joined.log.lines("q") == []


def test_a_long_line_is_written_as_partial_entries_then_a_full_one(tmp_path):
    files, path = LogFiles(), str(tmp_path / "c.log")
    line = "x" * (2 * MAX_LOG_LINE + 10)
    files.write(path, "stdout", line + "\nshort\n", 1_000_000_000)
    entries = [e.split(" ", 3) for e in open(path).read().splitlines()]
    assert [tag for _, _, tag, _ in entries] == ["P", "P", "F", "F"]
    assert "".join(text for _, _, _, text in entries[:3]) == line and entries[3][3] == "short"
    assert {len(text) for _, _, _, text in entries[:2]} == {MAX_LOG_LINE}


def test_output_without_a_line_end_waits_for_the_rest_of_its_line(tmp_path):
    # `cat FILE; echo` with a file that does not end its line: one log line, as containerd reads it
    files, path = LogFiles(), str(tmp_path / "c.log")
    files.write(path, "stdout", "value-1", 1_000_000_000)
    assert not os.path.exists(path)
    files.write(path, "stderr", "err\n", 2_000_000_000)
    files.write(path, "stdout", "\nnext", 3_000_000_000)
    files.flush(path)  # the container stopped: what is left is a partial entry, as containerd writes it
    assert [e.split(" ", 3)[1:] for e in open(path).read().splitlines()] == [
        ["stderr", "F", "err"], ["stdout", "F", "value-1"], ["stdout", "P", "next"]]


def test_a_line_without_its_newline_waits_and_ends_as_a_partial_entry(tmp_path):
    """containerd reads a container's stream line by line: `echo -n a; echo b` is one line `ab`,
    and text the stream ends with, without a newline, is one last P entry (the kubelet's
    FallbackToLogsOnError then reads `DONE`, not `DONE\\n`)."""
    files = LogFiles(tmp_path)
    t = FakeClock.DEFAULT_START_NS
    files.write("c.log", "stdout", "a", t)
    files.write("c.log", "stdout", "b\nDO", t + S)
    files.write("c.log", "stdout", "NE", t + 2 * S)
    assert (tmp_path / "c.log").read_text() == "2026-01-01T00:00:01Z stdout F ab\n"
    files.flush("c.log")
    assert (tmp_path / "c.log").read_text().splitlines()[1] == "2026-01-01T00:00:02Z stdout P DONE"
    files.flush("c.log")  # nothing left: nothing more
    assert len((tmp_path / "c.log").read_text().splitlines()) == 2
