"""No fakecri module imports another in a circle (imports inside functions and under
TYPE_CHECKING count too), and the server never imports an entry point.
scripts/import_cycles.py finds the circles; tests/test_architecture.py holds the
packages to their one-way arrows."""
from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "import_cycles.py"
ENTRY_POINTS = ("fakecri.cli", "fakecri.pytest_plugin", "fakecri.testing")


def load():
    spec = importlib.util.spec_from_file_location("import_cycles", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def graph():
    """The package's import graph, built once for the tests that read it."""
    return load().graph()


def test_no_module_of_the_package_is_in_an_import_circle():
    assert load().circles(graph()) == []


def test_the_tool_finds_a_circle():
    assert load().circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_server_never_imports_an_entry_point():
    modules = graph()
    offenders = {m: sorted(t for t in modules[m] if t.startswith(ENTRY_POINTS)) for m in modules
                 if m.startswith("fakecri.server")}
    assert {m: e for m, e in offenders.items() if e} == {}
