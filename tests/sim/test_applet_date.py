"""date against busybox's, at fixed times (-d), and in a container at the node's clock.
(The host's busybox is never asked to set the clock: it would, as root.)"""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, needs_busybox

from fakecri.engine.clock import FakeClock

pytestmark = needs_busybox
FIELDS = ("+%Y-%m-%d %H:%M:%S %a %b %j %u %w %s %Z %z %e %y %p %I %l %k %N %C %D %F %T %R %n %t %% "
          "%G %V %U %W %h %c %x %X %P")


@pytest.mark.parametrize("args", [
    ["-d", "@1767225600"], ["-u", "-d", "@1767225600", FIELDS], ["-I", "-d", "@0"], ["-Iseconds", "-d", "@0"],
    ["-Ins", "-d", "@0"], ["-Iminutes", "-d", "@86399"], ["-R", "-d", "@0"], ["-d", "2024-03-01 12:34:56", "+%s"],
    ["-d", "2024-03-01", "+%s"], ["-d", "yesterday"], ["-d", "bad"], ["-D", "%s", "-d", "100", "+%F"], ["-d", "@1.5"],
    ["-d", "2024-03-01T10:00", "+%T"], ["--utc", "-d", "@0"], ["-d", "2024.03.01-10:00:01", "+%s"],
    ["-d", "202403011000", "+%s"], ["-d", "@-1"], ["-d", "@0", "+%A %B %d"], ["-Ix", "-d", "@0"],
], ids=" ".join)
def test_date_matches_busybox(args):
    check(["date", *args], stderr="first")


def test_date_in_a_container_is_the_node_clock_plus_what_the_process_slept():
    from helpers.core_pods import Joined, Pod
    clock = FakeClock()
    joined = Joined(clock)
    pods = Pod(joined.runtime)
    c = pods.running(pods.sandbox())
    clock.advance(90)
    r = joined.exec_sync(c.id, ["date", "+%T"], 5)
    assert r.stdout == b"00:01:30\n"
    r = joined.exec_sync(c.id, ["sh", "-c", "date +%s; sleep 2; date -u +%s"], 5)
    assert r.stdout == b"1767225690\n1767225692\n"
    r = joined.exec_sync(c.id, ["date", "0101000026"], 5)
    assert (r.stderr, r.exit_code) == (b"date: can't set date: Operation not permitted\n", 1)


def test_date_r_is_a_files_modification_time():
    from helpers.core_pods import Joined, Pod
    joined = Joined(FakeClock())
    pods = Pod(joined.runtime)
    c = pods.running(pods.sandbox())
    r = joined.exec_sync(c.id, ["sh", "-c", "touch /tmp/f; date -r /tmp/f +%Y | grep -cE '^[0-9]{4}$'"], 5)
    assert (r.stdout, r.exit_code) == (b"1\n", 0)
    r = joined.exec_sync(c.id, ["date", "-r", "/nope"], 5)
    assert (r.stderr, r.exit_code) == (b"date: can't stat '/nope': No such file or directory\n", 1)
