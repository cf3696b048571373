"""A redirection's descriptor number (`2>&1`, `2>/dev/null`, `2> file`, `1>&2`) is a redirection, not
an argument: over a real socket, in an ExecSync as critest and e2e pods write them."""
from __future__ import annotations

import pytest
from helpers.cri import run_pod

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.sim.shell import trace


@pytest.mark.parametrize("script,out,err", [
    ("echo hi 2>/dev/null", "hi\n", ""),
    ("echo 1>&2 hi", "", "hi\n"),
    ("echo 2 > /dev/stderr", "", "2\n"),  # a word `2` before a space is an argument
    ("echo 'a 2>b'", "a 2>b\n", ""),
    ("{ echo o; echo e >&2; } 2>&1 >/dev/null", "e\n", ""),  # left to right: fd 2 goes where fd 1 went then
    ("{ echo o; echo e >&2; } >/dev/null 2>&1", "", ""),
])
def test_descriptor_numbers_are_read_as_the_shell_reads_them(script, out, err):
    done = trace(["sh", "-c", script])
    assert "".join(t for _, s, t in done.outputs if s == "stdout") == out
    assert "".join(t for _, s, t in done.outputs if s == "stderr") == err


def test_errors_follow_their_redirections(rt, img, tmp_path):
    _, cid = run_pod(rt, img, "descriptors", command=["sleep", "infinity"])

    def run(script):
        r = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["sh", "-c", script], timeout=10))
        return r.exit_code, r.stdout.decode(), r.stderr.decode()

    missing = "ls: /nope: No such file or directory\n"
    assert run('ls /nope 2>&1 | grep -q "No such"') == (0, "", "")  # critest's read-only mount check
    assert run("ls /nope 2>&1 | cat") == (0, missing, "")
    assert run("echo hi 2>/dev/null; ls /nope 2>/dev/null") == (1, "hi\n", "")
    assert run("ls /nope 2>/tmp/err; cat /tmp/err") == (0, missing, "")
    assert run("ls /nope >/tmp/both 2>&1; cat /tmp/both") == (0, missing, "")
    assert run("echo x >&2 2>/dev/null") == (0, "", "x\n")
    assert run("echo $(ls /nope 2>&1)") == (0, missing, "")
