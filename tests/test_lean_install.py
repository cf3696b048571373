"""`pip install fakecri` without extras: no pytest, Hypothesis or rich. The CLI imports,
`serve` serves, and a command that needs an extra says which, in one line, exit 2.
The extras are hidden here from a child interpreter; .ci/run installs the real wheel."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WITHOUT_EXTRAS = """
import sys
class _Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("hypothesis", "rich", "pytest", "_pytest"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _Absent())
from fakecri.cli import main
sys.argv = ["fakecri", *sys.argv[1:]]
main()
"""


def lean(*args: str, **kw):
    return subprocess.run([sys.executable, "-c", WITHOUT_EXTRAS, *args], capture_output=True, text=True,
                          timeout=60, **kw)


def test_the_default_dependencies_leave_the_extras_out():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"]).lower()
    assert not any(name in core for name in ("pytest", "hypothesis", "rich"))
    extras = project["optional-dependencies"]
    assert "fakecri[conformance,watch]" in extras["all"] and any(d.startswith("pytest") for d in extras["all"])


def test_version_and_help_work_without_the_extras():
    assert lean("version").returncode == 0
    for command in ("serve", "ctl", "watch", "conformance", "health"):
        done = lean(command, "--help")
        assert done.returncode == 0, (command, done.stderr)


def test_serve_serves_without_the_extras():
    where = tempfile.mkdtemp(prefix="fc-lean-", dir="/tmp")
    sock = os.path.join(where, "s.sock")
    proc = subprocess.Popen([sys.executable, "-c", WITHOUT_EXTRAS, "serve", "--socket", sock, "--log-level",
                             "warning"], stderr=subprocess.PIPE, text=True)
    try:
        assert "serving on unix://" in proc.stderr.readline()
        health = lean("health", "--socket", sock)
        assert health.returncode == 0 and health.stdout.strip() == "SERVING", health.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        os.rmdir(where)


def test_commands_that_need_an_extra_name_it_in_one_line():
    conformance = lean("conformance", "--max-examples", "1")
    assert conformance.returncode == 2 and conformance.stderr.count("\n") == 1, conformance.stderr
    assert "Hypothesis" in conformance.stderr and "pip install 'fakecri[conformance]'" in conformance.stderr
    watch = lean("watch", "--endpoint", "unix:///nonexistent.sock")
    assert watch.returncode == 2 and "pip install 'fakecri[watch]'" in watch.stderr and "--json" in watch.stderr
    assert lean("conformance", "--list").returncode == 0  # listing needs nothing more
