"""Real clients are found in FAKECRI_K8S_BIN, then on PATH, and a missing one is skipped
with a reason a user can act on: which binary, where it was looked for, where to get it."""
from __future__ import annotations

import pytest

from interop.conftest import find_binary, require_binary


@pytest.mark.parametrize("name,source", [
    ("crictl", "cri-tools/releases"),
    ("critest", "cri-tools/releases"),
    ("kubelet", "kubernetes.io/releases"),
])
def test_a_missing_client_is_skipped_saying_which_and_where_to_get_it(monkeypatch, tmp_path, name, source):
    monkeypatch.delenv("FAKECRI_K8S_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_binary(name) is None
    with pytest.raises(pytest.skip.Exception) as skipped:
        require_binary(name)
    reason = str(skipped.value)
    assert reason.startswith(f"{name} not found in PATH") and source in reason, reason
    assert "tool kit" not in reason and "shared" not in reason, reason


def test_fakecri_k8s_bin_comes_first_then_path(monkeypatch, tmp_path):
    kit, path = tmp_path / "kit", tmp_path / "bin"
    for d in (kit, path):
        d.mkdir()
        (d / "crictl").write_text("#!/bin/sh\n")
        (d / "crictl").chmod(0o755)
    (path / "critest").write_text("#!/bin/sh\n")
    (path / "critest").chmod(0o755)
    monkeypatch.setenv("PATH", str(path))
    monkeypatch.setenv("FAKECRI_K8S_BIN", str(kit))
    assert find_binary("crictl") == kit / "crictl"
    assert find_binary("critest") == path / "critest"
    with pytest.raises(pytest.skip.Exception) as skipped:
        require_binary("kubelet")
    assert f"kubelet not found in FAKECRI_K8S_BIN={kit} or PATH" in str(skipped.value)
