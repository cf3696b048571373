"""One default endpoint: `serve` listens on /run/fakecri/fakecri.sock unless told
otherwise, and ctl, health and watch look there (FAKECRI_SOCKET moves all of them);
conformance says what it judges without --endpoint."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

from click.testing import CliRunner

from fakecri.cli import main
from fakecri.server.process.app import FakeCRIServer

DEFAULT = "/run/fakecri/fakecri.sock"
FAKECRI = [sys.executable, "-m", "fakecri.cli"]


def help_of(*words: str) -> str:
    result = CliRunner().invoke(main, [*words, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_every_command_names_the_same_default():
    for words in (["serve"], ["ctl"], ["health"], ["watch"]):
        assert DEFAULT in help_of(*words), words
    assert "start a fakecri in-process" in help_of("conformance")


def test_serve_without_socket_or_listen_serves_on_the_default_socket():
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKECRI_")}
    proc = subprocess.Popen([*FAKECRI, "serve", "--log-level", "warning"], stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        line = proc.stderr.readline()
        if f"serving on unix://{DEFAULT}" in line:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(10) == 0
        else:  # not allowed to make /run/fakecri here, or another fakecri holds it: the error says where
            assert proc.wait(10) != 0 and DEFAULT in line and "Traceback" not in line, line
    finally:
        if proc.poll() is None:
            proc.kill()


def test_watch_with_no_endpoint_watches_the_socket_serve_would_use(monkeypatch):
    with FakeCRIServer() as server:
        monkeypatch.setenv("FAKECRI_SOCKET", server.config.socket)
        result = CliRunner().invoke(main, ["watch", "--json", "--duration", "0.3"])
    assert result.exit_code == 0, result.output
    assert '"kind": "summary"' in result.output
