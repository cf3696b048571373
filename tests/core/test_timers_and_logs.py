"""Timers driven by clock.advance + tick, and container output in CRI log format."""
from __future__ import annotations

import os

from fakecri.core.clock import FakeClock
from fakecri.core.ids import SequentialIds
from fakecri.core.logsink import FileLogSink, MemoryLogSink, format_entry, rfc3339_nano, split_lines
from fakecri.core.records import ContainerState
from fakecri.core.runtime import Runtime

C = ContainerState
S = 1_000_000_000


def test_echo_output_reaches_the_log_at_its_time(pods, runtime, clock, sink):
    c = pods.running(pods.sandbox(), command=["sh", "-c", "echo one; sleep 2; echo two >&2; sleep 1"])
    assert sink.entries[c.log_path] == [("stdout", "one", c.started_at)]
    clock.advance(2)
    runtime.tick()
    assert sink.entries[c.log_path][-1] == ("stderr", "two", c.started_at + 2 * S)
    assert c.state == C.RUNNING
    clock.advance(1)
    runtime.tick()
    assert c.state == C.EXITED and c.exit_code == 0


def test_start_line_when_nothing_else_is_written(pods, sink):
    c = pods.running(pods.sandbox(), command=["nginx"])
    assert sink.lines(c.log_path) == ["fakecri: started container app: nginx"]
    quiet = pods.running(pods.sandbox(), "q", annotations={"fakecri.io/quiet": "true"})
    assert sink.lines(quiet.log_path) == []


def test_log_once_and_periodically_with_one_pending_timer(pods, runtime, clock, sink):
    c = pods.running(pods.sandbox(), annotations={
        "fakecri.io/log": "ready", "fakecri.io/log-every": "1s", "fakecri.io/log-every-line": "beat {n}",
        "fakecri.io/log-stream": "stderr",
    })
    assert len(runtime._timers) == 1
    for _ in range(3):
        clock.advance(1)
        runtime.tick()
        assert len(runtime._timers) == 1
    assert sink.entries[c.log_path] == [("stderr", "ready", c.started_at)] + [
        ("stderr", f"beat {n}", c.started_at + n * S) for n in (1, 2, 3)
    ]


def test_a_long_jump_writes_bounded_catch_up_lines(pods, runtime, clock, sink):
    c = pods.running(pods.sandbox(), annotations={"fakecri.io/log-every": "1ms", "fakecri.io/quiet": "1"})
    clock.advance(3600)
    runtime.tick()
    lines = sink.lines(c.log_path)
    assert 1000 <= len(lines) <= 1002 and lines[-1] == "fakecri: tick 3600000"
    assert runtime.next_deadline_ns() == clock.now_ns() + 1_000_000


def test_periodic_lines_stop_at_exit(pods, runtime, clock, sink):
    c = pods.running(pods.sandbox(), command=["sleep", "2.5"],
                     annotations={"fakecri.io/log-every": "1s", "fakecri.io/quiet": "yes"})
    clock.advance(10)
    runtime.tick()
    assert sink.lines(c.log_path) == ["fakecri: tick 1", "fakecri: tick 2"]
    assert c.finished_at == c.started_at + int(2.5 * S) and runtime.next_deadline_ns() is None


def test_timers_fire_in_due_order_across_containers(pods, runtime, clock):
    sb = pods.sandbox()
    slow = pods.running(sb, "slow", command=["sleep", "3"])
    fast = pods.running(sb, "fast", command=["sleep", "1"])
    mid = pods.running(sb, "mid", command=["sleep", "2"])
    runtime.drain_events()
    assert runtime.next_deadline_ns() == fast.started_at + S
    clock.advance(5)
    runtime.tick()
    assert [e.container_id for e in runtime.drain_events()] == [fast.id, mid.id, slow.id]
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
    assert len(runtime._timers) < 1100


def test_real_clock_tolerates_an_early_loop_timer(pods):
    class AlmostClock:
        is_fake = False
        now = FakeClock.DEFAULT_START_NS

        def now_ns(self):
            return self.now

    clock = AlmostClock()
    rt = Runtime(clock, SequentialIds())
    sb = rt.run_pod_sandbox(name="p", namespace="n", uid="u")
    from helpers.core_pods import IMAGE
    c = rt.create_container(sb.id, name="x", image=IMAGE, command=("sleep", "1"))
    rt.start_container(c.id)
    clock.now += S - 500_000  # the loop woke 0.5 ms early
    rt.tick()
    assert c.state == C.EXITED and c.finished_at == c.started_at + S


def test_output_listeners_see_each_write(pods, runtime):
    seen = []
    runtime.output_listeners.append(lambda cid, stream, text, ts: seen.append((cid, stream, text)))
    c = pods.running(pods.sandbox(), command=["echo", "hello"])
    assert seen == [(c.id, "stdout", "hello\n")]


def test_rfc3339_nano_like_go():
    assert rfc3339_nano(FakeClock.DEFAULT_START_NS) == "2026-01-01T00:00:00Z"
    assert rfc3339_nano(FakeClock.DEFAULT_START_NS + 123_400_000) == "2026-01-01T00:00:00.1234Z"
    assert rfc3339_nano(FakeClock.DEFAULT_START_NS + 1) == "2026-01-01T00:00:00.000000001Z"
    assert format_entry("stdout", "x", FakeClock.DEFAULT_START_NS) == "2026-01-01T00:00:00Z stdout F x\n"
    assert split_lines("a\nb\n") == ["a", "b"] and split_lines("") == [""]


def test_file_sink_writes_cri_format_and_creates_directories(tmp_path):
    root = str(tmp_path)
    sink = FileLogSink()
    heard = []
    sink.add_listener(lambda path, stream, line, ts: heard.append((path, line)))
    rt = Runtime(FakeClock(), SequentialIds(), log_sink=sink)
    sb = rt.run_pod_sandbox(name="p", namespace="n", uid="u", log_directory=os.path.join(root, "pods", "p"))
    from helpers.core_pods import IMAGE
    c = rt.create_container(sb.id, name="x", image=IMAGE, command=("sh", "-c", "echo a; echo b >&2; sleep infinity"),
                            log_path="x/0.log")
    rt.start_container(c.id)
    with open(c.log_path, encoding="utf-8") as f:
        assert f.read() == "2026-01-01T00:00:00Z stdout F a\n2026-01-01T00:00:00Z stderr F b\n"
    assert heard == [(c.log_path, "a"), (c.log_path, "b")]
    os.rename(c.log_path, c.log_path + ".1")  # the kubelet rotates, then asks to reopen
    rt.reopen_container_log(c.id)
    assert os.path.getsize(c.log_path) == 0
    assert sink.errors == 0


def test_file_sink_swallows_and_counts_errors(tmp_path):
    root = str(tmp_path)
    blocker = os.path.join(root, "file")
    open(blocker, "w").close()
    sink = FileLogSink()
    sink.write(os.path.join(blocker, "sub", "0.log"), "stdout", "x\n", 0)  # parent is a file
    sink.reopen(os.path.join(blocker, "0.log"))
    assert sink.errors == 2 and sink.last_error


def test_memory_sink_listener_removal():
    sink = MemoryLogSink()
    heard = []

    def listener(path, stream, line, ts):
        heard.append(line)

    sink.add_listener(listener)
    sink.write("p", "stdout", "one\ntwo\n", 1)
    sink.remove_listener(listener)
    sink.write("p", "stdout", "three", 2)
    assert heard == ["one", "two"] and sink.lines("p") == ["one", "two", "three"]


def test_a_long_line_is_written_as_partial_entries_then_a_full_one(tmp_path):
    from fakecri.core.logsink import MAX_LOG_LINE, FileLogSink

    sink, path = FileLogSink(), str(tmp_path / "c.log")
    line = "x" * (2 * MAX_LOG_LINE + 10)
    sink.write(path, "stdout", line + "\nshort\n", 1_000_000_000)
    entries = [e.split(" ", 3) for e in open(path).read().splitlines()]
    assert [tag for _, _, tag, _ in entries] == ["P", "P", "F", "F"]
    assert "".join(text for _, _, _, text in entries[:3]) == line and entries[3][3] == "short"
    assert {len(text) for _, _, _, text in entries[:2]} == {MAX_LOG_LINE}
