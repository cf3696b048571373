"""Fixtures for running the real Kubernetes-side clients (crictl, critest, the
kubelet, and the Go fake runtime) against a fakecri on a real socket.

Each binary is found in `FAKECRI_K8S_BIN` (a directory) if it is there, else on `PATH`.
A test whose binary is missing skips and says which binary, where it looked, and where
a user gets it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Where each client comes from, for the skip reason.
WHERE_TO_GET = {
    "crictl": "crictl comes with cri-tools: https://github.com/kubernetes-sigs/cri-tools/releases (v1.36)",
    "critest": "critest comes with cri-tools: https://github.com/kubernetes-sigs/cri-tools/releases (v1.36)",
    "kubelet": "the kubelet binary is in the Kubernetes release downloads: https://kubernetes.io/releases/download/"
               " (v1.36)",
    "cri-client-fake": "cri-client-fake is a small main around k8s.io/cri-client/pkg/fake (the Go fake runtime);"
                       " build one that takes the socket path as its argument",
}


def find_binary(name: str) -> Path | None:
    """The path of one real client binary, or None when this machine has none."""
    kit = os.environ.get("FAKECRI_K8S_BIN")
    if kit and (Path(kit) / name).is_file():
        return Path(kit) / name
    found = shutil.which(name)
    return Path(found) if found else None


def where_looked() -> str:
    kit = os.environ.get("FAKECRI_K8S_BIN")
    return f"FAKECRI_K8S_BIN={kit} or PATH" if kit else "PATH (or set FAKECRI_K8S_BIN to a directory holding it)"


def require_binary(name: str) -> Path:
    """The binary's path, or skip the calling test saying which one and how to get it."""
    path = find_binary(name)
    if path is None:
        how = WHERE_TO_GET.get(name, "")
        pytest.skip(f"{name} not found in {where_looked()}" + (f"; {how}" if how else ""))
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


class FarmNode:
    """One node of a farm, with what the crictl fixture asks of a server."""

    def __init__(self, farm, name: str) -> None:
        self.farm, self.name = farm, name
        self.server = farm.servers[name]
        self.config = self.server.config

    def reset(self) -> None:
        self.farm.call(self.server.node.reset)

    def check(self) -> None:
        from fakecri.server.process.app import ServerErrors

        errors = self.farm.call(lambda: list(self.server.node.server_errors))
        if errors:
            raise ServerErrors(f"fakecri raised inside a handler on {self.name}:\n" + "\n".join(errors))


@pytest.fixture(scope="session")
def farm_pair():
    """A farm of two nodes for the session: every test that takes `crictl` runs on one of its
    sockets too (the nodes taking turns), beside the single server."""
    import tempfile

    from fakecri.server.config import FarmConfig, ServerConfig
    from fakecri.server.process.farm import Farm

    directory = tempfile.mkdtemp(prefix="fc-farm-", dir="/tmp")
    config = ServerConfig(seed=7, quiet=True, state_root=os.path.join(directory, "root"))
    with Farm(config, FarmConfig(nodes=2, socket_dir=os.path.join(directory, "s"))) as farm:
        yield farm
    shutil.rmtree(directory, ignore_errors=True)


_turns = iter(range(1 << 30))


@pytest.fixture(params=["server", "farm-node"])
def cri_target(request, srv):
    """The runtime a crictl test drives: the session's fakecri, or a node of the session's farm."""
    if request.param == "server":
        return srv
    farm = request.getfixturevalue("farm_pair")
    return FarmNode(farm, f"node-{next(_turns) % 2}")


@pytest.fixture
def crictl(crictl_bin, cri_target, tmp_path):
    """Run crictl against the session's fakecri or a farm node (reset first, as `channel` does):
    `crictl("pods", "-q")` returns the CompletedProcess, text mode, 60 s bound; `crictl.socket`
    is the runtime's socket."""
    srv = cri_target
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
    run.socket = srv.config.socket
    yield run
    srv.check()


@pytest.fixture(scope="session")
def kubelet_standalone(kubelet_bin) -> Path:
    """A kubelet-standalone.sh, which runs a kubelet with no API server in its own mount
    namespace (root only: it mounts a tmpfs there). Found as the binaries are, or named by
    FAKECRI_KUBELET_STANDALONE."""
    env = os.environ.get("FAKECRI_KUBELET_STANDALONE")
    script = Path(env) if env else find_binary("kubelet-standalone.sh")
    if script is None or not script.is_file():
        pytest.skip(f"kubelet-standalone.sh not found in {where_looked()}: set FAKECRI_KUBELET_STANDALONE to a"
                    " script that runs `kubelet` standalone against SOCKET with WORKDIR/manifests (docs/interop.md)")
    if os.geteuid() != 0:
        pytest.skip("a standalone kubelet needs root (it mounts a tmpfs on /var/lib/kubelet)")
    if shutil.which("flock") is None or shutil.which("unshare") is None:
        pytest.skip("flock and unshare (util-linux) are needed to run a kubelet")
    return script
