"""Fixtures for running the real Kubernetes-side clients (crictl, critest, the
kubelet, and the Go fake runtime) against a fakecri on a real socket.

The binaries are found, in this order:
- `FAKECRI_K8S_BIN`: a directory holding them;
- the `get.sh` unpacker of the tool kit that sits beside a development checkout
  (`../shared/tools/k8s-bin` seen from the repository root);
- `PATH`, one binary at a time (a user who has crictl installed).
A test whose binary is missing skips and says which one and where it looked.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLKIT_UNPACKER = REPO.parent / "shared" / "tools" / "k8s-bin" / "get.sh"


@cache
def _toolkit_dir() -> Path | None:
    env = os.environ.get("FAKECRI_K8S_BIN")
    if env:
        return Path(env)
    if TOOLKIT_UNPACKER.is_file():
        out = subprocess.run([str(TOOLKIT_UNPACKER)], capture_output=True, text=True, timeout=300)
        if out.returncode == 0 and out.stdout.strip():
            return Path(out.stdout.strip())
    return None


def find_binary(name: str) -> Path | None:
    """The path of one real client binary, or None when this machine has none."""
    kit = _toolkit_dir()
    if kit is not None and (kit / name).is_file():
        return kit / name
    found = shutil.which(name)
    return Path(found) if found else None


def require_binary(name: str) -> Path:
    """The binary's path, or skip the calling test with the reason."""
    path = find_binary(name)
    if path is None:
        pytest.skip(
            f"{name} not found: set FAKECRI_K8S_BIN to a directory holding it, "
            f"put it on PATH, or check out the tool kit at {TOOLKIT_UNPACKER.parent}"
        )
    return path


@pytest.fixture(scope="session")
def crictl_bin() -> Path:
    return require_binary("crictl")


@pytest.fixture(scope="session")
def critest_bin() -> Path:
    return require_binary("critest")


@pytest.fixture(scope="session")
def kubelet_bin() -> Path:
    return require_binary("kubelet")


@pytest.fixture(scope="session")
def cri_client_fake_bin() -> Path:
    return require_binary("cri-client-fake")


@pytest.fixture
def crictl(crictl_bin, srv, tmp_path):
    """Run crictl against the session's fakecri (reset first, as `channel` does):
    `crictl("pods", "-q")` returns the CompletedProcess, text mode, 60 s bound."""
    srv.reset()
    endpoint = "unix://" + srv.config.socket
    config = tmp_path / "crictl.yaml"
    config.write_text(f"runtime-endpoint: {endpoint}\nimage-endpoint: {endpoint}\ntimeout: 10\n")

    def run(*args: str, input: str | None = None, check: bool = True, timeout: float = 60):
        done = subprocess.run(
            [str(crictl_bin), "--config", str(config), *args],
            input=input, capture_output=True, text=True, timeout=timeout,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"crictl {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
        return done

    run.config = config
    run.binary = crictl_bin
    yield run
    srv.check()


@pytest.fixture(scope="session")
def kubelet_standalone(kubelet_bin) -> Path:
    """The tool kit's kubelet-standalone.sh (root only: it mounts a tmpfs in its own namespace)."""
    env = os.environ.get("FAKECRI_KUBELET_STANDALONE")
    script = Path(env) if env else TOOLKIT_UNPACKER.parent / "kubelet-standalone.sh"
    if not script.is_file():
        pytest.skip(f"kubelet-standalone.sh not found at {script} (set FAKECRI_KUBELET_STANDALONE)")
    if os.geteuid() != 0:
        pytest.skip("a standalone kubelet needs root (it mounts a tmpfs on /var/lib/kubelet)")
    if shutil.which("flock") is None or shutil.which("unshare") is None:
        pytest.skip("flock and unshare (util-linux) are needed to run a kubelet")
    return script
