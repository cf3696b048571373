"""Every way of running fakecri removes what it made: the socket, the lock beside it, and
the directory it made when nobody named a socket. And a server started from a script is
quiet unless asked to log."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile

import structlog

from fakecri.client import CRIClient
from fakecri.logs import configure_logging
from fakecri.server.process.app import FakeCRIServer
from fakecri.testing import FakeCRI

FAKECRI = [sys.executable, "-m", "fakecri.cli"]


def made_dir(endpoint: str) -> str:
    return os.path.dirname(endpoint.removeprefix("unix://"))


def test_a_library_server_removes_its_directory_socket_and_lock():
    server = FakeCRIServer().start()
    where = made_dir(server.endpoint)
    assert sorted(os.listdir(where)) == ["cri.sock", "cri.sock.lock"]
    server.stop()
    assert not os.path.exists(where)


def test_fakecri_start_leaves_nothing():
    with FakeCRI.start(seed=1) as node:
        where = made_dir(node.endpoint)
        assert os.path.isdir(where)
    assert not os.path.exists(where)


def test_a_named_socket_keeps_its_directory_but_loses_socket_and_lock(tmp_path):
    with FakeCRIServer(socket=str(tmp_path / "c.sock")):
        assert (tmp_path / "c.sock.lock").exists()
    assert os.listdir(tmp_path) == []


def test_serve_removes_socket_and_lock_on_sigterm():
    where = tempfile.mkdtemp(prefix="fc-serve-", dir="/tmp")
    sock = os.path.join(where, "s.sock")
    proc = subprocess.Popen([*FAKECRI, "serve", "--socket", sock, "--log-level", "warning"],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert "serving on unix://" in proc.stderr.readline()
        assert sorted(os.listdir(where)) == ["s.sock", "s.sock.lock"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        assert os.listdir(where) == []
    finally:
        if proc.poll() is None:
            proc.kill()
        os.rmdir(where)


def test_an_in_process_conformance_run_leaves_nothing():
    done = subprocess.run([*FAKECRI, "conformance", "--max-examples", "1", "--steps", "1", "--no-shrink",
                           "--property", "valid-calls-succeed"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    endpoint = re.search(r"unix://\S+", done.stdout).group(0)
    assert not os.path.exists(made_dir(endpoint))


def test_an_in_process_conformance_run_ended_by_sigterm_leaves_nothing():
    proc = subprocess.Popen([*FAKECRI, "conformance", "--max-examples", "50", "--no-shrink"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        endpoint = re.search(r"unix://\S+", line).group(0)
        assert os.path.exists(made_dir(endpoint))
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not os.path.exists(made_dir(endpoint))


def test_make_fakecri_leaves_nothing(pytester):
    pytester.makepyfile(
        """
        def test_two(make_fakecri):
            for node in (make_fakecri(), make_fakecri(seed=3)):
                print("ENDPOINT", node.endpoint)
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=1)
    endpoints = re.findall(r"ENDPOINT (\S+)", result.stdout.str())
    assert len(endpoints) == 2
    assert [e for e in endpoints if os.path.exists(made_dir(e))] == []


def test_a_script_server_is_quiet_unless_asked(capfd):
    with FakeCRIServer() as server, CRIClient(server.endpoint) as cri:
        cri.version()
        cri.list_pod_sandbox()
    captured = capfd.readouterr()
    assert (captured.out, captured.err) == ("", "")


def test_log_true_logs_every_call(capfd):
    configure_logging("console", "info")
    try:
        with FakeCRIServer(log=True) as server, CRIClient(server.endpoint) as cri:
            cri.version()
    finally:
        structlog.reset_defaults()
    assert "Version" in capfd.readouterr().err
