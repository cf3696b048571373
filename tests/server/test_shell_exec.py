"""The shell through a real server: ExecSync runs scripts as busybox's ash would (variables,
control flow, functions, here-documents, the container's files), and what fakecri does not
model is refused loudly and counted in the node's metrics and `ctl info`."""
from __future__ import annotations

import grpc
import pytest
from helpers.operations import TIMEOUT, run_pod, sample, scrape

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.control_client import ControlClient
from fakecri.server.process.app import FakeCRIServer


@pytest.fixture(scope="module")
def served():
    with FakeCRIServer(seed=5, metrics_addr="127.0.0.1:0") as srv:
        srv.node.log_rpcs = False
        ch = grpc.insecure_channel("unix:" + srv.config.socket)
        rt = api_pb2_grpc.RuntimeServiceStub(ch)
        img = api_pb2_grpc.ImageServiceStub(ch)
        _, cid = run_pod(rt, img, "shell", "uid-shell")
        yield srv, rt, cid
        ch.close()


def run(rt, cid, script: str) -> tuple[int, str, str]:
    r = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["sh", "-c", script], timeout=10), timeout=TIMEOUT)
    return r.exit_code, r.stdout.decode(), r.stderr.decode()


@pytest.mark.parametrize("script,expected", [
    ('X=1; echo "[$X]"', (0, "[1]\n", "")),
    ("for i in 1 2 3; do echo $i; done | while read n; do echo $((n * n)); done", (0, "1\n4\n9\n", "")),
    ('f() { local v=$1; echo "${v%.*}"; return 3; }; f name.tar.gz; echo $?', (0, "name.tar\n3\n", "")),
    ("case $HOSTNAME in '') echo none;; *) echo named;; esac", (0, "named\n", "")),
    ("cat <<EOF\nhome is $HOME\nEOF", (0, "home is /root\n", "")),
    ('echo hi > /tmp/f; read line < /tmp/f; echo "got $line"; [ -s /tmp/f ] && echo sized', (0, "got hi\nsized\n", "")),
    ("cd /etc && pwd && [ -f hostname ] && echo here", (0, "/etc\nhere\n", "")),
    ("trap 'echo bye' EXIT; exit 4", (4, "bye\n", "")),
    ("if then", (2, "", 'sh: syntax error: unexpected "then"\n')),
])
def test_scripts_run_as_ash_runs_them(served, script, expected):
    _, rt, cid = served
    assert run(rt, cid, script) == expected


def test_what_is_not_modelled_is_refused_and_counted(served):
    srv, rt, cid = served
    assert run(rt, cid, "acpid -f; echo $?") == (0, "127\n", "sh: acpid: not modelled by fakecri\n")
    assert run(rt, cid, "nosuchprogram") == (127, "", "sh: nosuchprogram: not found\n")
    with ControlClient(srv.endpoint) as ctl:
        assert ctl.server_info()["counters"].get("refused:acpid", 0) >= 1
    assert sample(scrape(srv.addresses()["metrics"]), "fakecri_shell_refused_total", command="acpid") >= 1


@pytest.mark.parametrize("script,code,logged", [
    ("trap 'echo stopping; exit 42' TERM; echo up; while true; do sleep 1; done", 42, "stopping"),
    ("trap 'kill $PID; echo killed; exit 0' TERM; sleep 1000 & PID=$!; wait $PID", 0, "killed"),
])
def test_a_term_trap_runs_when_the_stop_begins(rt, img, tmp_path, script, code, logged, short_traces):
    from helpers.cri import run_pod as run_one

    _, cid = run_one(rt, img, "trapped", command=["sh", "-c", script], log_directory=str(tmp_path))
    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=10), timeout=TIMEOUT)
    status = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert status.exit_code == code
    assert logged in open(status.log_path).read()


def test_globs_match_the_containers_files(served):
    _, rt, cid = served
    script = ("mkdir -p /tmp/g/d && cd /tmp/g && touch b.log a.log .hidden c.txt d/x.log; "
              "echo *.log; echo ./*.log; echo */*.log; echo /tmp/g/?.txt; echo *; echo .*; echo */; echo no*match")
    assert run(rt, cid, script) == (0, "a.log b.log\n./a.log ./b.log\nd/x.log\n/tmp/g/c.txt\na.log b.log c.txt d\n"
                                       ". .. .hidden\nd/\nno*match\n", "")
