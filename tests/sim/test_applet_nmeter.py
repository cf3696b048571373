"""nmeter (not in Debian's busybox-static, so modelled from busybox's procps/nmeter.c): the time
of day with N decimals, at -d MSEC intervals, ended by its reader; the system monitors refused.
And a container's own command reads the node's clock from its start, as its execs do."""
from __future__ import annotations

from helpers.core_pods import Joined, Pod

from fakecri.engine.clock import FakeClock
from fakecri.sim.applets.nmeter import line_at, parse_format

T0 = 1767225600 * 10**9  # 2026-01-01T00:00:00Z, the fake clock's start


def test_time_with_n_decimals_rounds_as_busybox():
    assert line_at(parse_format("%3t"), T0 + 1_234_567_890) == "00:00:01.235\n"
    assert line_at(parse_format("%t"), T0 + 1_600_000_000) == "00:00:02\n"  # rounded up, as busybox
    assert line_at(parse_format("%[t2]|%9t%r"), T0 + 999_999_999) == "00:00:01.00|00:00:00.999999\r"
    assert line_at(parse_format("a%%b %1t"), T0) == "a%b 00:00:00.0\n"


def _run(script: str, seconds: float = 0):
    clock = FakeClock()
    joined = Joined(clock)
    pods = Pod(joined.runtime)
    c = pods.running(pods.sandbox())
    clock.advance(seconds)
    return joined.exec_sync(c.id, ["sh", "-c", script], 5)


def test_its_reader_ends_it():
    r = _run("nmeter -d0 '%3t' | head -n1; echo \"$(nmeter -d 500 '%[t1]' | head -n 3 | tr '\\n' ' ')\"", 61)
    assert (r.stdout, r.exit_code) == (b"00:01:01.000\n00:01:01.5 00:01:02.0 00:01:02.5 \n", 0)
    r = _run("date -u +%FT$(nmeter -d0 '%3t' | head -n1)Z", 3.25)
    assert r.stdout == b"2026-01-01T00:00:03.250Z\n"


def test_what_is_not_modelled_is_refused_and_bad_formats_get_the_usage():
    r = _run("nmeter '%c %t'")
    assert (r.stderr, r.exit_code) == (b"nmeter: %c: not modelled by fakecri\n", 1)
    for bad in ("nmeter", "nmeter '%q'", "nmeter '%3'", "nmeter '%[t3'"):
        r = _run(bad)
        assert r.exit_code == 1 and b"Usage: nmeter [-d MSEC] FORMAT" in r.stderr, bad


def test_a_containers_own_command_counts_from_its_start():
    clock = FakeClock()
    joined = Joined(clock)
    pods = Pod(joined.runtime)
    clock.advance(100)
    script = "echo $(date -u +%T) $(nmeter -d0 '%3t' | head -n1); sleep 2; date -u +%T"
    c = pods.running(pods.sandbox(), command=("sh", "-c", script))
    joined.advance(3)
    assert joined.log.lines(c.log_path) == ["00:01:40 00:01:40.000", "00:01:42"]


def test_a_term_trap_reads_the_clock_when_the_signal_comes():
    clock = FakeClock()
    joined = Joined(clock)
    pods = Pod(joined.runtime)
    script = ("_term() { echo $(date -u +%T) $(nmeter -d0 '%1t' | head -n1) term; exit 0; }; "
              "trap _term TERM; sleep 100 & wait $!")
    c = pods.running(pods.sandbox(), command=("sh", "-c", script))
    joined.advance(30)
    joined.stop(c.id, 30)
    assert joined.log.lines(c.log_path) == ["00:00:30 00:00:30.0 term"]
