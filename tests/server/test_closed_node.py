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
    """listeners.py and webserver.py take their owner as `ListenerOwner` (host/owner.py), never `Any`."""
    wrong = []
    for name in ("listeners.py", "webserver.py"):
        path = PACKAGE / "server" / "host" / name
        for arg in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(arg, ast.arg) and arg.arg == "owner" and (
                    arg.annotation is None or ast.unparse(arg.annotation) != "ListenerOwner"):
                wrong.append(shown(path, arg))
    assert not wrong, "\n".join(wrong)


CRI_ROOM = PACKAGE / "server" / "cri"
# The servicers of the CRI services; the control service (fakecri's own API) drives the node whole.
CRI_SERVICERS = sorted(p for p in CRI_ROOM.glob("*.py") if p.name not in ("__init__.py", "control_service.py",
                                                                          "cri_node.py"))


def protocol_members() -> set[str]:
    source = (CRI_ROOM / "cri_node.py").read_text(encoding="utf-8")
    proto = next(c for c in ast.walk(ast.parse(source)) if isinstance(c, ast.ClassDef) and c.name == "CRINode")
    return {f.name for f in proto.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_the_cri_servicers_see_the_node_through_one_typed_interface():
    """Every `node` a CRI servicer is given is typed `CRINode` (cri/cri_node.py), never `Node` or `Any`."""
    wrong = []
    for path in CRI_SERVICERS:
        for arg in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(arg, ast.arg) and arg.arg == "node" and (
                    arg.annotation is None or ast.unparse(arg.annotation) != "CRINode"):
                wrong.append(shown(path, arg))
    assert not wrong, "\n".join(wrong)
    assert len(CRI_SERVICERS) >= 8  # the families of runtime.v1 and the image service


def test_the_cri_servicers_use_only_what_the_interface_offers():
    """`node.X` in a CRI servicer names a member of CRINode: the node's own parts (its encoder, bus,
    listeners, counters, state file) are out of their reach (mypy holds the types, this the names)."""
    offered = protocol_members()
    assert {"runtime", "changing", "event_stream"} <= offered
    wrong = [shown(path, attr) for path in CRI_SERVICERS
             for attr in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(attr, ast.Attribute) and is_node(attr.value) and attr.attr not in offered]
    assert not wrong, "\n".join(wrong)


def test_the_node_offers_every_member_of_the_servicers_interface():
    from fakecri.server.node.node import Node

    source = (NODE_ROOM / "node.py").read_text(encoding="utf-8")
    init = next(f for f in ast.walk(ast.parse(source)) if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    assigned = {t.attr for a in ast.walk(init) if isinstance(a, (ast.Assign, ast.AnnAssign))
                for t in (a.targets if isinstance(a, ast.Assign) else [a.target])
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
    missing = {m for m in protocol_members() if not hasattr(Node, m) and m not in assigned}
    assert not missing


def test_every_runtime_rpc_is_served_by_exactly_one_family():
    from fakecri.api.runtime.v1 import api_pb2 as pb
    from fakecri.server.cri.checkpoint_archives import CheckpointCalls
    from fakecri.server.cri.container_calls import ContainerCalls
    from fakecri.server.cri.exec_calls import ExecCalls
    from fakecri.server.cri.runtime_info import RuntimeInfo
    from fakecri.server.cri.sandbox_calls import SandboxCalls
    from fakecri.server.cri.stats_calls import StatsCalls

    families = (RuntimeInfo, SandboxCalls, ContainerCalls, ExecCalls, StatsCalls, CheckpointCalls)
    service = pb.DESCRIPTOR.services_by_name["RuntimeService"]
    served = {m.name: [f.__name__ for f in families if hasattr(f, m.name)] for m in service.methods}
    assert {name: owners for name, owners in served.items() if len(owners) != 1} == {}
    public = {name for f in families for name in vars(f) if name[:1].isupper()}
    assert public == set(served)  # no family serves what the service does not have
