"""The server, the entry points and the settings import nothing in a circle, and the server
never imports an entry point (scripts/import_cycles.py finds circles)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "import_cycles.py"
OURS = ("fakecri.server", "fakecri.cli", "fakecri.settings", "fakecri.testing", "fakecri.pytest_plugin",
        "fakecri.fault_flags", "fakecri.control_client", "fakecri.logs")
ENTRY_POINTS = ("fakecri.cli", "fakecri.pytest_plugin", "fakecri.testing")


def load():
    spec = importlib.util.spec_from_file_location("import_cycles", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_server_and_entry_points_have_no_import_circles():
    tool = load()
    circles = tool.circles(tool.graph())
    assert [c for c in circles if any(m.startswith(OURS) for m in c)] == []


def test_the_server_never_imports_an_entry_point():
    graph = load().graph()
    offenders = {m: sorted(t for t in graph[m] if t.startswith(ENTRY_POINTS)) for m in graph
                 if m.startswith("fakecri.server")}
    assert {m: e for m, e in offenders.items() if e} == {}
