"""The real critest's mount-propagation and user-namespace specs pass against fakecri.

critest itself bind-mounts host directories for the propagation specs, so they need root;
the user-namespace specs read /proc/self/uid_map as the container shows it. A few seconds.
"""
from __future__ import annotations

import os

import pytest

from fakecri.server.process.app import FakeCRIServer
from interop.critest_report import run_critest

FOCUS = "mount propagation|NamespaceMode_POD|NamespaceMode_NODE"
EXPECTED_PASSING = {
    "[k8s.io] Container Mount Propagation runtime should support mount propagation mount with 'rprivate' should "
    "not support propagation",
    "[k8s.io] Container Mount Propagation runtime should support mount propagation mount with 'rshared' should "
    "support propagation from host to container and vice versa",
    "[k8s.io] Container Mount Propagation runtime should support mount propagation mount with 'rslave' should "
    "support propagation from host to container",
    "[k8s.io] Security Context UserNamespaces when Host idmap mount support is needed runtime should support "
    "NamespaceMode_POD",
    "[k8s.io] Security Context UserNamespaces when Host idmap mount support is not needed runtime should support "
    "NamespaceMode_NODE",
}


@pytest.mark.skipif(os.geteuid() != 0, reason="critest makes bind mounts on the host for these specs: needs root")
def test_mount_propagation_and_user_namespace_specs_pass(critest_bin, tmp_path):
    with FakeCRIServer(seed=11, state_root=str(tmp_path / "root")) as server:
        run = run_critest(critest_bin, server.config.socket, tmp_path / "critest.json", focus=FOCUS, timeout=120)
    broken = {s.name: f"{s.state}: {s.message[:300]}" for s in run.specs if s.state not in ("passed", "skipped")}
    assert not broken, broken
    # NamespaceMode_POD is skipped by critest itself where the host cannot make idmapped mounts
    passed = {s.name for s in run.by_state("passed")}
    assert passed <= EXPECTED_PASSING and EXPECTED_PASSING - passed <= {
        n for n in EXPECTED_PASSING if n.endswith("NamespaceMode_POD")}, sorted(EXPECTED_PASSING - passed)
    assert run.returncode == 0, run.output[-2000:]


@pytest.mark.skipif(os.geteuid() != 0, reason="critest makes bind mounts on the host for these specs: needs root")
def test_mount_propagation_specs_pass_with_containerds_check(critest_bin, tmp_path):
    """critest makes its host directories shared and slave mounts, so containerd's check passes them."""
    with FakeCRIServer(seed=11, state_root=str(tmp_path / "root"), mount_propagation_check=True) as server:
        run = run_critest(critest_bin, server.config.socket, tmp_path / "critest.json", focus="mount propagation",
                          timeout=120)
    passed = {s.name for s in run.by_state("passed")}
    assert passed == {n for n in EXPECTED_PASSING if "Mount Propagation" in n}, run.output[-2000:]
    assert run.returncode == 0, run.output[-2000:]
