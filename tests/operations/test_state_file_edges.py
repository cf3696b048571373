"""--state-file edges: a fake clock goes on from where it was, a symlinked file stays a
symlink and its lock keeps a second server out whatever name it comes by, and a file with
one bad value anywhere is refused whole at start, with one line (no traceback)."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import grpc
import pytest
from helpers.operations import TIMEOUT, run_pod

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.control_client import ControlClient
from fakecri.server.exceptions import StateFileError
from fakecri.server.process.app import FakeCRIServer, short_socket_path

S = 1_000_000_000


def stubs(srv: FakeCRIServer):
    ch = grpc.insecure_channel(srv.endpoint)
    return ch, api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)


def test_a_fake_clock_goes_on_from_where_it_was_after_a_restart(tmp_path):
    """`sleep 10` that had run 5 s needs 5 s more after a restart, not 115; a new pod is
    younger than an old one."""
    path = str(tmp_path / "state.json")
    with FakeCRIServer(fake_clock=True, state_file=path) as srv:
        ch, rt, img = stubs(srv)
        old_sid, cid = run_pod(rt, img, "old", "u-old", command=("sleep", "10"))
        with ControlClient(srv.control_endpoint) as ctl:
            ctl.advance_clock(5)
        before = srv.call(srv.node.now_ns)
        ch.close()
    with FakeCRIServer(fake_clock=True, state_file=path) as srv:  # a fresh fake clock, at its start
        ch, rt, img = stubs(srv)
        assert srv.call(srv.node.now_ns) >= before
        new_sid, _ = run_pod(rt, img, "new", "u-new")
        created = {s.id: s.created_at for s in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=TIMEOUT).items}
        assert created[new_sid] > created[old_sid]

        def state():
            return rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid), timeout=TIMEOUT).status.state

        with ControlClient(srv.control_endpoint) as ctl:
            ctl.advance_clock(4.9)
            assert state() == pb.CONTAINER_RUNNING
            ctl.advance_clock(0.2)
            assert state() == pb.CONTAINER_EXITED
        ch.close()


def test_a_symlinked_state_file_stays_a_symlink_and_is_locked_through_any_name(tmp_path):
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = real_dir / "state.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    other_link = tmp_path / "other.json"
    other_link.symlink_to(link)
    with FakeCRIServer(state_file=str(link)) as srv:
        ch, rt, img = stubs(srv)
        run_pod(rt, img, "linked", "u-linked")
        assert link.is_symlink() and os.readlink(link) == str(target)
        assert "linked" in target.read_text()
        for name in (target, other_link):  # the same file by another name: refused
            with pytest.raises(StateFileError, match="in use by another fakecri"):
                FakeCRIServer(state_file=str(name)).start()
        ch.close()
    assert link.is_symlink() and not any(p.name.startswith(".state.json.tmp") for p in real_dir.iterdir())
    with FakeCRIServer(state_file=str(other_link)) as srv:  # and it is read through the link again
        ch, rt, _ = stubs(srv)
        assert [p.metadata.name for p in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=TIMEOUT).items] \
            == ["linked"]
        ch.close()


@pytest.fixture(scope="module")
def good_state(tmp_path_factory):
    """A real state file: one pod with a running `sleep 10` (so it has a timer) and an exited container."""
    path = str(tmp_path_factory.mktemp("good") / "state.json")
    with FakeCRIServer(fake_clock=True, state_file=path) as srv:
        ch, rt, img = stubs(srv)
        sid, _ = run_pod(rt, img, "p", "u-p", command=("sleep", "10"))
        ch.close()
    with open(path) as f:
        return json.load(f)


def _first_container(doc):
    return doc["runtime"]["containers"][0]


CASES = {
    "a container in an unknown sandbox": (
        lambda d: _first_container(d).update(sandbox_id="f" * 64), "in no sandbox that lists it"),
    "a timer for a missing container": (
        lambda d: d["runtime"]["timers"].append(["e" * 64, "wake", 0, 5]), "timers[1]"),
    "a NaN timer": (lambda d: d["runtime"]["timers"][0].__setitem__(3, float("nan")), "got nan"),
    "a timer at infinity": (lambda d: d["runtime"]["timers"][0].__setitem__(3, float("inf")), "got inf"),
    "a spec that is not an object (the old base64 form)": (
        lambda d: _first_container(d).update(spec="bm90IGEgc3BlYw=="), "containers[0].spec"),
    "started_at yesterday": (lambda d: _first_container(d).update(started_at="yesterday"), "started_at"),
    "a time before the epoch": (lambda d: _first_container(d).update(created_at=-1), "created_at"),
    "a saved_at the clock cannot take": (lambda d: d["runtime"].update(saved_at_ns=2**70), "saved_at_ns"),
    "a NaN saved_at": (lambda d: d["runtime"].update(saved_at_ns=float("nan")), "saved_at_ns"),
    "an exit code past int32": (lambda d: _first_container(d).update(exit_code=2**40), "Value out of range"),
    "a negative attempt": (lambda d: _first_container(d).update(attempt=-1), "Value out of range"),
    "an id sequence that is not one": (lambda d: d.update(ids=[3, [2**40] * 625, None]), "id sequence"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_file_with_one_bad_value_is_refused_whole(tmp_path, good_state, case):
    corrupt, named = CASES[case]
    bad = copy.deepcopy(good_state)
    corrupt(bad)
    path = tmp_path / "state.json"
    text = json.dumps(bad)
    path.write_text(text)
    with pytest.raises(StateFileError) as err:
        FakeCRIServer(fake_clock=True, state_file=str(path)).start()
    assert named in str(err.value) and "left untouched" in str(err.value)
    assert path.read_text() == text


@pytest.mark.parametrize("content", [
    "[" * 100_000 + "]" * 100_000,
    '{"format": "fakecri-state", "version": 2, "runtime": ' + '{"a": ' * 70 + "1" + "}" * 70 + "}",
])
def test_deeply_nested_json_is_one_line_not_a_traceback(tmp_path, content):
    path = tmp_path / "state.json"
    path.write_text(content)
    sock = short_socket_path()
    done = subprocess.run([sys.executable, "-m", "fakecri.cli", "serve", "--socket", sock, "--state-file", str(path),
                           "--root", str(tmp_path / "root")], capture_output=True, text=True, timeout=60)
    os.rmdir(os.path.dirname(sock))
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr and str(path) in lines[0], done.stderr
    assert path.read_text() == content
