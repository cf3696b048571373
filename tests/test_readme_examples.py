"""The examples in README.md and docs/*.md still work as written.

- A Python block after a `<!-- example: run -->` marker is executed.
- The README's crictl session (`<!-- example: crictl -->`) is run with bash and the real
  crictl against a fakecri on the socket the README names (skipped without crictl).
The README's pytest example is run by tests/plugin/test_plugin_readme.py.
"""
from __future__ import annotations

import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"<!-- example: run -->\s*```python\n(.*?)```", re.S)
CRICTL_BLOCK = re.compile(r"<!-- example: crictl -->\s*```sh\n(.*?)```\s*<!-- /example -->", re.S)


def examples() -> list[tuple[pathlib.Path, str]]:
    return [(page, code) for page in PAGES for code in BLOCK.findall(page.read_text(encoding="utf-8"))]


def test_readme_has_runnable_examples():
    assert BLOCK.findall(README.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "page, code", examples(),
    ids=lambda v: v.name if isinstance(v, pathlib.Path) else v.strip().splitlines()[0][:40],
)
def test_example_runs(page, code):
    exec(compile(code, str(page), "exec"), {"__name__": "readme_example"})


def crictl_binary() -> pathlib.Path | None:
    from interop.conftest import find_binary

    return find_binary("crictl")


def test_readme_crictl_session_runs(tmp_path):
    crictl = crictl_binary()
    if crictl is None:
        pytest.skip("crictl not found (FAKECRI_K8S_BIN, the tool kit, or PATH)")
    from fakecri.server.process.app import FakeCRIServer, short_socket_path

    [script] = CRICTL_BLOCK.findall(README.read_text(encoding="utf-8"))
    named = set(re.findall(r"unix://(/[\w./-]+\.sock)", script))
    assert named == {"/tmp/fakecri.sock"}, named
    # The README's paths, moved somewhere private so parallel runs do not meet.
    socket = short_socket_path("readme.sock")
    script = script.replace("/tmp/fakecri.sock", socket).replace("/tmp/fakecri-logs", str(tmp_path / "logs"))
    env = {**os.environ, "PATH": f"{crictl.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    with FakeCRIServer(socket=socket):
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any("RuntimeName:" in line and "fakecri" in line for line in lines), done.stdout
    assert re.search(r"^\w+\s+busybox\s+.*Running\s+app\b", done.stdout, re.M), done.stdout
    assert lines[-1] == "hello"
    assert "does not exist" not in done.stderr  # crictl found the config the README writes
