"""The real critest's API-level specs all pass against fakecri.

These are the specs that need only the CRI API: no real process environment, network or
kernel feature behind it (those wait for simulated containers). Run in the default suite;
about 10 s.
"""
from __future__ import annotations

from fakecri.server.process.app import FakeCRIServer
from interop.critest_report import API_LEVEL_FOCUS, run_critest

EXPECTED_PASSING = {
    "[k8s.io] Idempotence StopPodSandbox should not return an error if not found",
    "[k8s.io] Idempotence StopPodSandbox should not return an error if already stopped",
    "[k8s.io] Idempotence RemovePodSandbox should not return an error if not found",
    "[k8s.io] Idempotence StopContainer should not return an error if not found",
    "[k8s.io] Idempotence StopContainer should not return an error if already stopped",
    "[k8s.io] Idempotence RemoveContainer should not return an error if not found",
    "[k8s.io] Idempotence RemoveImage should not return an error if not found",
    "[k8s.io] Image Identifier Consistency should return the same image identifier across all APIs [Conformance]",
    "[k8s.io] Image Identifier Consistency should return the same image identifier when pulled from different "
    "registries [Conformance]",
    *(f"[k8s.io] Container runtime should support basic operations on container runtime should support {what} "
      "[Conformance]" for what in (
          "creating container", "preserving container attributes", "starting container", "stopping container",
          "removing created container", "removing running container", "removing stopped container",
          "listing container stats", "listing stats for started containers",
          "listing stats for started containers when filter is nil",
          "listing stats for three created containers when filter is nil.",
          "listing stats for containers filtered by labels")),
    "[k8s.io] Container runtime should support log runtime should support reopening container log [Conformance]",
    *(f"[k8s.io] Image Manager {what} [Conformance]" for what in (
        "public image with tag should be pulled and removed", "public image should timeout if requested",
        "public image without tag should be pulled and removed",
        "public image with digest should be pulled and removed",
        "image status should support all kinds of references",
        "image status get image fields should not have Uid|Username empty",
        "listImage should get exactly 3 image in the result list",
        "listImage should get exactly 3 repoTags in the result image",
        "removing image by one tag should remove all tags",
        "removing image from one registry should remove all tags from other registries")),
    *(f"[k8s.io] Image Consistency {what} [Conformance]" for what in (
        "should not list or get image status immediately after removal",
        "should list and get image status immediately after pulling",
        "should not fail on simultaneous RemoveImage calls")),
    "[k8s.io] Security Context bucket runtime should return error if RunAsGroup is set without RunAsUser",
    *("[k8s.io] Security Context UserNamespaces when Host idmap mount support is not needed runtime should fail "
      + what for what in ("if more than one mapping provided", "if container ID 0 is not mapped",
                          "with NamespaceMode_CONTAINER", "with NamespaceMode_TARGET")),
    *(f"[k8s.io] PodSandbox runtime should support basic operations on PodSandbox runtime should support {what} "
      "[Conformance]" for what in ("running PodSandbox", "stopping PodSandbox", "removing PodSandbox",
                                   "preserving PodSandbox attributes")),
    "[k8s.io] Runtime info runtime should support returning runtime info runtime should return version info "
    "[Conformance]",
    "[k8s.io] Runtime info runtime should support returning runtime info runtime should return runtime conditions "
    "[Conformance]",
    *("[k8s.io] Container Mount Readonly runtime should support readonly mounts should reject a recursive readonly "
      "mount with " + what for what in ("PROPAGATION_HOST_TO_CONTAINER", "PROPAGATION_BIDIRECTIONAL",
                                        "ReadOnly: false")),
}


def test_every_api_level_critest_spec_passes(critest_bin, tmp_path):
    with FakeCRIServer(seed=11, state_root=str(tmp_path / "root")) as server:
        run = run_critest(critest_bin, server.config.socket, tmp_path / "critest.json",
                          focus=API_LEVEL_FOCUS, timeout=240)
    # Specs outside the focus, and the few critest skips itself for a host reason (AppArmor
    # off), are "skipped"; nothing may fail, time out or be interrupted.
    broken = {s.name: f"{s.state}: {s.message[:300]}" for s in run.specs if s.state not in ("passed", "skipped")}
    assert not broken, broken
    passed = {s.name for s in run.by_state("passed")}
    assert passed == EXPECTED_PASSING, (sorted(EXPECTED_PASSING - passed), sorted(passed - EXPECTED_PASSING))
    assert run.returncode == 0, run.output[-2000:]
