"""The Node is closed and every change is committed by the one context (issue 32).

Parsed, not run: every module of the package is read with `ast`, so a new writer that calls a
commit by hand, reaches through the node to its parts, or assigns to it from outside fails here.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "fakecri"
NODE_ROOM = PACKAGE / "server" / "node"


def modules(*under: str) -> list[Path]:
    roots = [PACKAGE.joinpath(*u.split("/")) for u in under] if under else [PACKAGE]
    return sorted(p for root in roots for p in ([root] if root.suffix == ".py" else root.rglob("*.py"))
                  if "api" not in p.relative_to(PACKAGE).parts[:1])


def shown(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}: {ast.unparse(node)}"


def is_node(expr: ast.expr) -> bool:
    """`node`, `self.node`, `server.node`...: an expression that names a Node."""
    return (isinstance(expr, ast.Name) and expr.id == "node") or (isinstance(expr, ast.Attribute)
                                                                   and expr.attr == "node")


def test_no_module_commits_by_hand():
    """`commit()` is called nowhere; `_commit()` only by `Node.changing`, on its way out."""
    wrong = []
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for call in ast.walk(func):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                        and call.func.attr in ("commit", "_commit"):
                    if call.func.attr == "_commit" and path.parent == NODE_ROOM and func.name == "changing":
                        continue
                    wrong.append(shown(path, call))
    assert not wrong, "commits outside `with node.changing():`\n" + "\n".join(sorted(set(wrong)))


def test_the_changing_context_commits_on_both_ways_out():
    source = (NODE_ROOM / "node.py").read_text(encoding="utf-8")
    changing = next(f for f in ast.walk(ast.parse(source)) if isinstance(f, ast.FunctionDef) and f.name == "changing")
    calls = [c for c in ast.walk(changing) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
             and c.func.attr == "_commit"]
    assert len(calls) == 2  # after the block, and when it raised


def test_no_reach_through_the_node_outside_its_room():
    """`node.runtime.get_container(...)` outside server/node/ is a reach-through: a part of the node
    is handed to whoever needs it, or the node answers the question itself."""
    wrong = []
    for path in modules("server", "pytest_plugin.py", "testing.py"):
        if NODE_ROOM in path.parents:
            continue
        for attr in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(attr, ast.Attribute) and isinstance(attr.value, ast.Attribute) and is_node(attr.value.value) \
                    and attr.value.attr != "log":  # the node's logger, bound to its name, is the node's voice
                wrong.append(shown(path, attr))
    assert not wrong, "node.X.Y outside server/node/:\n" + "\n".join(wrong)


def test_the_node_is_built_whole():
    """Nothing outside the node's room assigns to a node: what it serves with, it is built with."""
    wrong = []
    for path in modules():
        if NODE_ROOM in path.parents:
            continue
        for assign in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = assign.targets if isinstance(assign, ast.Assign) else \
                [assign.target] if isinstance(assign, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and is_node(target.value):
                    wrong.append(shown(path, assign))
    assert not wrong, "assignments to a node from outside:\n" + "\n".join(wrong)


def test_the_servers_read_no_engine_store():
    """The engine's store is the engine's: the server asks the Runtime."""
    wrong = [shown(path, a) for path in modules("server") for a in ast.walk(ast.parse(path.read_text("utf-8")))
             if isinstance(a, ast.Attribute) and a.attr == "store"]
    assert not wrong, "\n".join(wrong)


def test_the_listeners_see_the_node_through_one_typed_interface():
    """ports.py and webserver.py take their owner as `ListenerOwner` (host/owner.py), never `Any`."""
    wrong = []
    for name in ("ports.py", "webserver.py"):
        path = PACKAGE / "server" / "host" / name
        for arg in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(arg, ast.arg) and arg.arg == "owner" and (
                    arg.annotation is None or ast.unparse(arg.annotation) != "ListenerOwner"):
                wrong.append(shown(path, arg))
    assert not wrong, "\n".join(wrong)
