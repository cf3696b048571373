"""The real crictl can talk to fakecri at all: version and runtime status."""
from __future__ import annotations

import json


def test_crictl_version_names_fakecri(crictl):
    out = crictl("version").stdout
    assert "RuntimeName:  fakecri" in out or "RuntimeName: fakecri" in out.replace("  ", " ")
    assert "RuntimeApiVersion:  v1" in out


def test_crictl_info_reports_ready(crictl):
    info = json.loads(crictl("info").stdout)
    conditions = {c["type"]: c["status"] for c in info["status"]["conditions"]}
    assert conditions == {"RuntimeReady": True, "NetworkReady": True}
