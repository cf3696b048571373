"""The applets over a real socket: ExecSync in a busybox container, as probes, hooks and e2e
pods run them (each against what the host's busybox says, tests/sim/test_applet_*.py)."""
from __future__ import annotations

from helpers.cri import run_pod

from fakecri.api.runtime.v1 import api_pb2 as pb


def test_applets_answer_an_exec_sync(rt, img):
    _, cid = run_pod(rt, img, "applets", command=["sleep", "infinity"])

    def run(*cmd, timeout=10):
        r = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=list(cmd), timeout=timeout))
        return r.exit_code, r.stdout.decode(), r.stderr.decode()

    assert run("printf", "%s=%d\n", "a", "1", "b", "x") == (1, "a=1\nb=0\n", "printf: invalid number 'x'\n")
    assert run("sh", "-c", "printf 'b 2\\na 1\\n' > /tmp/f; sort -k2n /tmp/f | cut -d' ' -f1 | tr a-z A-Z") == (
        0, "A\nB\n", "")
    assert run("sh", "-c", "sed -i 's/1/one/' /tmp/f; grep -c one /tmp/f; md5sum /tmp/f | cut -c1-8") == (
        0, "1\nc54c3af1\n", "")  # (the host: printf "b 2\\na one\\n" | md5sum)
    assert run("sh", "-c", "seq 3 | xargs -n1 expr 10 +") == (0, "11\n12\n13\n", "")
    assert run("timeout", "1", "sleep", "5", timeout=10) == (143, "", "")
    code, out, _ = run("date", "+%Y")
    assert code == 0 and len(out) == 5
    assert run("sed", "-Q") == (1, "", run("sed", "-Q")[2]) and run("sed", "-Q")[2].startswith(
        "sed: invalid option -- 'Q'\n")
