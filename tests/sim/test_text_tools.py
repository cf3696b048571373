"""awk, wc and head in a container's pipes (no gRPC); awk's language itself: tests/sim/test_awk*.py."""
from __future__ import annotations

import pytest
from helpers.core_pods import Joined


@pytest.fixture
def run(pods, joined: Joined):
    c = pods.running(pods.sandbox(hostname="web-0"))

    def sh(script: str):
        r = joined.exec_sync(c.id, ["sh", "-c", script], 5)
        return r.stdout.decode(), r.stderr.decode(), r.exit_code
    return sh


def test_awk_prints_fields_of_matching_lines(run):
    assert run("echo 'a b  c' | awk '{print $NF, $1, NF, \"x\"}'") == ("c a 3 x\n", "", 0)
    assert run("awk -F: '/^root/ {print $7}' /etc/passwd") == ("/bin/sh\n", "", 0)
    assert run("awk -F: 'NR==2' /etc/passwd")[0] == "daemon:x:1:1:daemon:/usr/sbin:/bin/false\n"
    assert run("echo x | awk 'BEGIN { n = 1; print n + 1 }'") == ("2\n", "", 0)
    assert run("awk '{print}' /nope") == ("", "awk: /nope: No such file or directory\n", 1)
    assert run("awk -F: '$3 >= 1000 {n++} END {print n+0}' /etc/passwd")[0] != ""
    assert run("echo 'a b' | awk '{print $2 > \"/tmp/o\"}'; cat /tmp/o") == ("b\n", "", 0)
    assert run("awk 'BEGIN { \"echo hi\" | getline v; print v; print system(\"exit 3\") }'") == ("hi\n3\n", "", 0)


def test_wc_and_head(run):
    assert run("cat /etc/hosts | wc -l") == ("7\n", "", 0)
    assert run("echo a > /tmp/f; echo b >> /tmp/f; wc /tmp/f")[0] == "        2         2         4 /tmp/f\n"
    assert run("head -n 2 /etc/passwd | awk -F: '{print $1}'") == ("root\ndaemon\n", "", 0)
    assert run("head -1 /etc/group") == ("root:x:0:\n", "", 0)
