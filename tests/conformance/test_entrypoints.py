"""The three ways to run the suite: the CLI, the Python API, pytest --pyargs; plus the
reports, the layer rule and the cleanup of everything labelled with the run."""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

import fakecri.conformance
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.cli import main
from fakecri.client import CRIClient
from fakecri.conformance import NAMES, RUN_LABEL, cleanup_run
from fakecri.server.process.app import FakeCRIServer

PACKAGE = Path(fakecri.conformance.__file__).parent
ROOT = PACKAGE.parent.parent


def test_cli_in_process_writes_table_json_and_junit(tmp_path):
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    res = CliRunner().invoke(main, ["conformance", "--max-examples", "1", "--steps", "3", "--seed", "3", "-q",
                                    "--burst", "25",
                                    "--report", str(report), "--junit", str(junit)])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    for name in NAMES:
        assert any(line.startswith(name + " ") for line in lines), name
    data = json.loads(report.read_text())
    assert [p["name"] for p in data["properties"]] == NAMES
    assert {p["status"] for p in data["properties"]} <= {"pass", "skip"}
    cases = ET.parse(junit).getroot().findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == NAMES


def test_cli_property_selection_and_exit_status():
    with FakeCRIServer(seed=2, faults=[_quirk("created-at-seconds")]) as server:
        res = CliRunner().invoke(main, ["conformance", "--endpoint", server.endpoint, "--max-examples", "1",
                                        "--steps", "3", "--no-shrink", "-q",
                                        "--property", "created-at-nanoseconds-monotonic",
                                        "--property", "event-order-per-container"])
    assert res.exit_code == 1, res.output
    rows = [line.split()[:3] for line in res.output.splitlines() if line.startswith(("created-at", "event-order"))]
    assert ["created-at-nanoseconds-monotonic", "MUST", "FAIL"] in rows
    assert ["event-order-per-container", "MUST", "PASS"] in rows
    assert "call sequence, without the sync" in res.output and "RunPodSandbox(" in res.output


def test_cli_rejects_unknown_property_and_lists_them():
    res = CliRunner().invoke(main, ["conformance", "--property", "no-such-thing"])
    assert res.exit_code == 2 and "no property named no-such-thing" in res.output
    listed = CliRunner().invoke(main, ["conformance", "--list"])
    assert listed.exit_code == 0 and all(n in listed.output for n in NAMES)


def test_cli_unreachable_endpoint_exits_2(tmp_path):
    res = CliRunner().invoke(main, ["conformance", "--endpoint", f"unix://{tmp_path}/none.sock", "-q"])
    assert res.exit_code == 2 and "cannot use the runtime" in res.output


def test_pytest_pyargs_runs_one_test_per_property(tmp_path):
    env = {**os.environ, "FAKECRI_CONFORMANCE_MAX_EXAMPLES": "1", "FAKECRI_CONFORMANCE_STEPS": "3",
           "FAKECRI_CONFORMANCE_SHRINK": "0"}  # the burst sizes itself to fall behind
    proc = subprocess.run([sys.executable, "-m", "pytest", "--pyargs", "fakecri.conformance", "-q",
                           "-p", "no:cacheprovider", "-rs"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(NAMES) - 1} passed, 1 skipped" in proc.stdout, proc.stdout


def test_cleanup_removes_everything_with_the_run_label_and_nothing_else():
    with FakeCRIServer(seed=4) as server:
        with CRIClient(server.endpoint, timeout=10) as cri:
            cri.pull_image("busybox")

            def pod(name, labels):
                cfg = pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name=name, namespace="n", uid=name),
                                          labels=labels)
                sid = cri.run_pod_sandbox(cfg)
                cri.create_container(sid, {"metadata": {"name": "c"}, "image": {"image": "busybox"},
                                           "labels": labels}, cfg)
                return sid
            ours = pod("ours", {RUN_LABEL: "run1"})
            theirs = pod("theirs", {"app": "other"})
            assert cleanup_run(cri, "run1") == []
            assert [s.id for s in cri.list_pod_sandbox()] == [theirs]
            assert ours not in {c.pod_sandbox_id for c in cri.list_containers()}


def test_layer_rule_conformance_imports_only_client_api_and_test_libraries():
    """No exception: the in-process fakecri is handed to the command by fakecri's CLI."""
    allowed = ("fakecri.client", "fakecri.api", "fakecri.conformance", "hypothesis", "pytest", "click",
               "grpc")
    for path in PACKAGE.rglob("*.py"):
        for name in _imports(path):
            if name.startswith("fakecri"):
                assert name.startswith(allowed), f"{path.relative_to(PACKAGE)} imports {name}"


def _imports(path):
    """Every module `path` imports, TYPE_CHECKING and function-level imports too;
    `from pkg import mod` counts as importing pkg.mod when that module exists."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


def _quirk(name):
    from fakecri.faults.model import Fault

    return Fault(type="quirk", attributes={"name": name})


@pytest.mark.slow
def test_default_cli_run_against_our_own_socket():
    """`fakecri conformance` at the default example count against the in-process fakecri
    passes every property (its run time is printed in the table's header)."""
    proc = subprocess.run([sys.executable, "-m", "fakecri.cli", "conformance", "-q"], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\b\d+ passed, 0 failed \(0 MUST\)", proc.stdout), proc.stdout
