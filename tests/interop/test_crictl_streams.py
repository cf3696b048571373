"""Live exec and attach through the real crictl (and critest's attach spec) on a real socket.

A shell answers line by line, with a prompt and echo under a TTY; the end of input ends
it; a resize reaches `stty size`; attach feeds a container started with stdin; and a
command that does not read its input does not wait for that input to end.
"""
from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest

IMAGE = "busybox"


@pytest.fixture
def pod(crictl, tmp_path):
    """A running sandbox and a way to start containers in it: `start(name, command, **config)` -> id."""
    crictl("pull", IMAGE)
    pod_config = tmp_path / "pod.json"
    pod_config.write_text(json.dumps({
        "metadata": {"name": "streams", "namespace": "default", "uid": "streams-uid"},
        "log_directory": str(tmp_path / "logs"),
    }))
    pod_id = crictl("runp", str(pod_config)).stdout.strip()

    def start(name: str, command: list[str], **config) -> str:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"metadata": {"name": name}, "image": {"image": IMAGE},
                                    "command": command, "log_path": f"{name}.log", **config}))
        cid = crictl("create", pod_id, str(path), str(pod_config)).stdout.strip()
        crictl("start", cid)
        return cid

    start.logs = tmp_path / "logs"
    return start


def crictl_cmd(crictl, *args: str) -> list[str]:
    return [str(crictl.binary), "--config", str(crictl.config), *args]


def state_of(crictl, cid: str) -> dict:
    return json.loads(crictl("inspect", cid).stdout)["status"]


def test_exec_answers_and_an_unknown_program_is_not_found(crictl, pod):
    cid = pod("app", ["sleep", "infinity"])
    assert crictl("exec", cid, "echo", "hi").stdout == "hi\n"
    missing = crictl("exec", cid, "no-such-program", check=False)
    assert missing.returncode != 0
    assert "sh: no-such-program: not found" in missing.stderr
    assert "exit code 127" in missing.stderr


def test_a_command_that_does_not_read_stdin_returns_while_stdin_stays_open(crictl, pod):
    cid = pod("app", ["sleep", "infinity"])
    # As `(sleep 5) | crictl exec -i CTR echo hi`: the input stays open, echo must not wait for it.
    proc = subprocess.Popen(crictl_cmd(crictl, "exec", "-i", cid, "echo", "hi"), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    started = time.monotonic()
    try:
        proc.wait(timeout=20)
        took = time.monotonic() - started
        out = proc.stdout.read()
    finally:
        proc.stdin.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out == b"hi\n"
    assert took < 5, f"echo waited {took:.1f}s for stdin"


def test_a_piped_shell_runs_each_line(crictl, pod):
    cid = pod("app", ["sleep", "infinity"])
    done = crictl("exec", "-i", cid, "sh", input="echo one\nnope\necho two; exit 3\necho never\n", check=False)
    assert done.stdout == "one\ntwo\n"
    assert "sh: nope: not found" in done.stderr
    assert "exit code 3" in done.stderr


class Pty:
    """crictl on a pseudo-terminal, as a user at a terminal runs it."""

    def __init__(self, argv: list[str], rows: int, cols: int) -> None:
        self.master, slave = os.openpty()
        self.resize(rows, cols, slave)
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        self.seen = b""

    def resize(self, rows: int, cols: int, fd: int | None = None) -> None:
        fcntl.ioctl(self.master if fd is None else fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def read_until(self, token: bytes, timeout: float = 10) -> bytes:
        """Output up to and including `token`; fails the test when it does not come in time."""
        deadline = time.monotonic() + timeout
        while token not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"waited {timeout}s for {token!r}; the terminal shows {self.seen!r}"
            ready, _, _ = select.select([self.master], [], [], min(left, 0.2))
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the other side closed
                    chunk = b""
                assert chunk or token in self.seen, f"terminal closed before {token!r}: {self.seen!r}"
                self.seen += chunk
        head, _, rest = self.seen.partition(token)
        self.seen = rest
        return head + token

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


def test_exec_it_sh_through_a_terminal(crictl, pod):
    cid = pod("app", ["sleep", "infinity"])
    term = Pty(crictl_cmd(crictl, "exec", "-it", cid, "sh"), rows=33, cols=101)
    try:
        assert term.read_until(b"/ # ") == b"/ # "
        term.type(b"echo hi\r")
        assert term.read_until(b"/ # ") == b"echo hi\r\nhi\r\n/ # "  # the keys echoed, then the answer
        term.type(b"stty size\r")
        assert term.read_until(b"/ # ") == b"stty size\r\n33 101\r\n/ # "
        term.resize(40, 120)
        term.proc.send_signal(signal.SIGWINCH)  # what the terminal sends crictl on a resize
        deadline = time.monotonic() + 10
        while True:  # the resize travels on its own stream: ask until it has arrived
            term.type(b"stty size\r")
            answer = term.read_until(b"/ # ")
            if b"40 120" in answer or time.monotonic() > deadline:
                break
        assert b"\r\n40 120\r\n" in answer
        term.type(b"echo tyop\x7f\x7fpo\r")  # Backspace edits the line before the shell reads it
        assert term.read_until(b"/ # ").endswith(b"\r\ntypo\r\n/ # ")
        term.type(b"\x04")  # Ctrl-D on an empty line: the end of input ends the shell
        assert term.proc.wait(timeout=10) == 0
    finally:
        term.close()


def test_exit_in_a_terminal_ends_the_session_with_its_code(crictl, pod):
    cid = pod("app", ["sleep", "infinity"])
    term = Pty(crictl_cmd(crictl, "exec", "-it", cid, "sh"), rows=24, cols=80)
    try:
        term.read_until(b"/ # ")
        term.type(b"sleep 1000\r")
        term.read_until(b"sleep 1000\r\n")
        term.type(b"\x03")  # Ctrl-C interrupts the command, the shell prompts again
        term.read_until(b"^C\r\n/ # ")
        term.type(b"exit 5\r")
        assert term.proc.wait(timeout=10) == 1  # crictl reports a non-zero exit as a failure
    finally:
        term.close()


def test_attach_feeds_a_shell_started_with_stdin_once(crictl, pod):
    cid = pod("shell", ["/bin/sh"], stdin=True, stdin_once=True)
    done = crictl("attach", "-i", cid, input="echo hello\necho oops >&2; exit 3\n", timeout=30)
    assert done.stdout == "hello\n"
    assert state_of(crictl, cid)["state"] == "CONTAINER_EXITED"
    assert state_of(crictl, cid)["exitCode"] == 3
    assert "hello" in (pod.logs / "shell.log").read_text()


def test_attach_to_cat_echoes_until_the_container_stops(crictl, pod):
    cid = pod("cat", ["cat"], stdin=True)
    proc = subprocess.Popen(crictl_cmd(crictl, "attach", "-i", cid), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(b"ping\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        assert ready, "cat did not echo within 10s"
        assert os.read(proc.stdout.fileno(), 100) == b"ping\n"
        crictl("stop", cid)
        assert proc.wait(timeout=10) == 0  # the container stopped: the attach is over
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_critest_attach_spec_passes(crictl, critest_bin, tmp_path):
    report = tmp_path / "attach.json"
    endpoint = "unix://" + crictl.socket
    done = subprocess.run(
        [str(critest_bin), "--runtime-endpoint", endpoint, "--image-endpoint", endpoint,
         "--ginkgo.focus=attach", f"--ginkgo.json-report={report}", "--ginkgo.no-color"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    specs = [s for s in json.loads(report.read_text())[0]["SpecReports"] if s["State"] != "skipped"]
    ran = {s["LeafNodeText"]: s["State"] for s in specs if s["LeafNodeText"]}
    assert ran == {"runtime should support attach [Conformance]": "passed"}, done.stdout[-3000:]


def test_the_scripting_recipe_for_a_long_exec_ends_it(crictl, pod):
    """crictl 1.36's exec and attach let the first SIGTERM pass, so `timeout 2 crictl exec`
    never ends a command that does not; docs/interop.md gives `timeout -s KILL`, which does."""
    cid = pod("app", ["sleep", "infinity"])
    done = subprocess.run(["timeout", "-s", "KILL", "2", *crictl_cmd(crictl, "exec", cid, "sleep", "100")],
                          capture_output=True, timeout=60)
    assert done.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL)  # a shell shows 137
    doc = (Path(__file__).resolve().parents[2] / "docs" / "interop.md").read_text()
    assert "timeout -s KILL" in doc and "first SIGTERM" in doc
