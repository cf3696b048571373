"""The built wheel, installed into a fresh venv, provides the plugin to an isolated project."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from test_plugin_readme import readme_example

ROOT = Path(__file__).resolve().parents[2]


def _run(*cmd: str | Path, timeout: float = 600) -> str:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_runs_the_readme_example(pytester, tmp_path):
    # Build from a copy, so the build leaves nothing behind in the source tree.
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__",
                                                             ".hypothesis", "bench", "tests"))
    wheels = tmp_path / "wheels"
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", wheels, src)
    [wheel] = wheels.glob("fakecri-*.whl")
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    py = venv / "bin" / "python"
    _run(py, "-m", "pip", "install", "--no-index", "--no-deps", "--find-links", wheels, "fakecri")
    # The dependencies (grpcio, protobuf, pytest, ...) come from this venv's site-packages. A plain
    # path in a .pth file does not run that directory's own .pth files, so the editable fakecri
    # there stays out of sight and the wheel's copy is the one imported.
    site = _run(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    Path(site, "outer-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = _run(py, "-c", "import fakecri.pytest_plugin as p; print(p.__file__)").strip()
    assert where.startswith(str(venv)), where

    code = readme_example()
    pytester.makepyfile(test_downstream=code)
    result = pytester.run(py, "-m", "pytest", "-p", "no:cacheprovider", "-v", timeout=300)
    passed = len(re.findall(r"^def test_", code, re.M))
    result.stdout.fnmatch_lines(["fakecri: endpoint unix://*, seed 0, log level off", f"*{passed} passed*"])
    assert result.ret == 0
