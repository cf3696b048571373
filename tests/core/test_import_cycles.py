"""The core and the faults import nothing in a circle (scripts/import_cycles.py finds circles)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "import_cycles.py"


def load():
    spec = importlib.util.spec_from_file_location("import_cycles", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_core_and_faults_have_no_import_circles():
    tool = load()
    circles = tool.circles(tool.graph())
    ours = [c for c in circles if any(m.startswith(("fakecri.core.", "fakecri.faults.")) for m in c)]
    assert ours == []


def test_the_tool_finds_a_circle():
    tool = load()
    assert tool.circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
