"""A real kubelet runs only under --run-slow, as the README says: every test that asks
for one (directly or through a fixture that starts it) is marked slow."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
KUBELET_FIXTURES = {"kubelet", "kubelet_bin", "kubelet_standalone"}


def _slow(decorators: list[ast.expr]) -> bool:
    return any(ast.unparse(d).replace(" ", "") in ("pytest.mark.slow", "slow") for d in decorators)


def _module_slow(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets):
            return "pytest.mark.slow" in ast.unparse(node.value)
    return False


def kubelet_tests() -> dict[str, bool]:
    """Every test that asks for a kubelet fixture, and whether it is marked slow."""
    out = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        text = path.read_text()
        if "kubelet" not in text:  # every fixture it looks for is named kubelet*: nothing to parse
            continue
        tree = ast.parse(text)
        module_slow = _module_slow(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            if {a.arg for a in node.args.args} & KUBELET_FIXTURES:
                out[f"{path.relative_to(TESTS)}::{node.name}"] = module_slow or _slow(node.decorator_list)
    return out


def test_every_test_that_runs_a_kubelet_is_marked_slow():
    found = kubelet_tests()
    assert any(p.startswith("interop/test_kubelet.py") for p in found), found
    assert any(p.startswith("deploy/test_rendered.py") for p in found), found
    assert [name for name, slow in found.items() if not slow] == []
