"""The Node is closed and every change is committed by the one context (issue 32).

Parsed, not run: every module of the package is read with `ast`, so a new writer that calls a
commit by hand, reaches through the node to its parts, or assigns to it from outside fails here.
"""
from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "fakecri"
NODE_ROOM = PACKAGE / "server" / "node"


def modules(*under: str) -> list[Path]:
    roots = [PACKAGE.joinpath(*u.split("/")) for u in under] if under else [PACKAGE]
    return sorted(p for root in roots for p in ([root] if root.suffix == ".py" else root.rglob("*.py"))
                  if "api" not in p.relative_to(PACKAGE).parts[:1])


@functools.cache
def parsed(path: Path) -> ast.Module:
    """`path`'s syntax tree, parsed once for all the tests that walk it (they only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def shown(path: Path, node: ast.AST) -> str:
    where = path.relative_to(PACKAGE.parent) if PACKAGE.parent in path.parents else path.name
    return f"{where}:{getattr(node, 'lineno', 0)}: {ast.unparse(node)}"


def is_node(expr: ast.expr) -> bool:
    """`node`, `self.node`, `server.node`...: an expression that names a Node."""
    return (isinstance(expr, ast.Name) and expr.id == "node") or (isinstance(expr, ast.Attribute)
                                                                   and expr.attr == "node")


def test_no_module_commits_by_hand():
    """`commit()` is called nowhere; `_commit()` only by `Node.changing`, on its way out."""
    wrong = []
    for path in modules():
        tree = parsed(path)
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
    source = (NODE_ROOM / "call_path.py").read_text(encoding="utf-8")  # the Node's CallPath
    changing = next(f for f in ast.walk(ast.parse(source)) if isinstance(f, ast.FunctionDef) and f.name == "changing")
    calls = [c for c in ast.walk(changing) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
             and c.func.attr == "_commit"]
    assert len(calls) == 2  # after the block, and when it raised


def node_attributes() -> set[str]:
    """What a Node has: its class's names and what its constructor assigns to `self`."""
    from fakecri.server.node.node import Node

    source = (NODE_ROOM / "node.py").read_text(encoding="utf-8")
    init = next(f for f in ast.walk(ast.parse(source)) if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    assigned = {t.attr for a in ast.walk(init) if isinstance(a, (ast.Assign, ast.AnnAssign))
                for t in (a.targets if isinstance(a, ast.Assign) else [a.target])
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
    return assigned | set(dir(Node))


def reach_throughs(path: Path, attributes: set[str]) -> list[str]:
    """`node.X.Y` where X is one of the Node's attributes: a part of the node used through it.
    (The shell's syntax trees have `node`s too: theirs are not the Node's attributes.)"""
    return [shown(path, attr) for attr in ast.walk(parsed(path))
            if isinstance(attr, ast.Attribute) and isinstance(attr.value, ast.Attribute) and is_node(attr.value.value)
            and attr.value.attr in attributes
            and attr.value.attr != "log"]  # the node's logger, bound to its name, is the node's voice


def test_no_reach_through_the_node_outside_its_room():
    """`node.runtime.get_container(...)` anywhere in fakecri/ outside server/node/ is a
    reach-through: a part of the node is handed to whoever needs it (through a typed
    interface), or the node answers the question itself."""
    attributes = node_attributes()
    wrong = [hit for path in modules() if NODE_ROOM not in path.parents for hit in reach_throughs(path, attributes)]
    assert not wrong, "node.X.Y outside server/node/:\n" + "\n".join(wrong)


def test_the_reach_through_check_sees_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f(node, tree):\n    node.ports.bound('c')\n    self.node.output_listeners.append(1)\n"
                      "    node.log.info('x')\n    node.cond.redirs\n    node.now_ns()\n", encoding="utf-8")
    hits = [hit.split(": ", 1)[1] for hit in reach_throughs(sample, node_attributes())]
    assert hits == ["node.ports.bound", "self.node.output_listeners.append"]


def test_the_node_is_built_whole():
    """Nothing outside the node's room assigns to a node: what it serves with, it is built with."""
    wrong = []
    for path in modules():
        if NODE_ROOM in path.parents:
            continue
        for assign in ast.walk(parsed(path)):
            targets = assign.targets if isinstance(assign, ast.Assign) else \
                [assign.target] if isinstance(assign, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and is_node(target.value):
                    wrong.append(shown(path, assign))
    assert not wrong, "assignments to a node from outside:\n" + "\n".join(wrong)


def test_the_servers_read_no_engine_store():
    """The engine's store is the engine's: the server asks the Runtime."""
    wrong = [shown(path, a) for path in modules("server") for a in ast.walk(parsed(path))
             if isinstance(a, ast.Attribute) and a.attr == "store"]
    assert not wrong, "\n".join(wrong)


def test_the_listeners_see_the_node_through_one_typed_interface():
    """listeners.py and webserver.py take their owner as `ListenerOwner` (host/owner.py), never `Any`."""
    wrong = []
    for name in ("listeners.py", "webserver.py"):
        path = PACKAGE / "server" / "host" / name
        for arg in ast.walk(parsed(path)):
            if isinstance(arg, ast.arg) and arg.arg == "owner" and (
                    arg.annotation is None or ast.unparse(arg.annotation) != "ListenerOwner"):
                wrong.append(shown(path, arg))
    assert not wrong, "\n".join(wrong)


CRI_ROOM = PACKAGE / "server" / "cri"
PROCESS_ROOM = PACKAGE / "server" / "process"
BUILDER = PROCESS_ROOM / "app.py"  # where the Node is built, once, and handed to each service
# The servicers of the CRI services; the control service (fakecri's own API) has an interface of its own.
CRI_SERVICERS = sorted(p for p in CRI_ROOM.glob("*.py") if p.name not in ("__init__.py", "control_service.py",
                                                                          "cri_node.py", "control_node.py"))
# Who is given the node, and the one interface each sees it through: (modules, protocol's module, its name).
INTERFACES = [
    (CRI_SERVICERS, "fakecri.server.cri.cri_node", "CRINode"),
    ([PACKAGE / "server" / "streaming" / "runtime_backend.py", PROCESS_ROOM / "side_services.py"],
     "fakecri.server.streaming.streaming_node", "StreamingNode"),
    ([CRI_ROOM / "control_service.py"], "fakecri.server.cri.control_node", "ControlNode"),
    ([PROCESS_ROOM / "prometheus.py"], "fakecri.server.process.scraped_node", "ScrapedNode"),
    ([BUILDER, PROCESS_ROOM / "farm.py"], "fakecri.server.process.served_node", "ServedNode"),
]
BY_NAME = [pytest.param(*row, id=row[2]) for row in INTERFACES]
# The node's own parts: carried out by the node, in no interface.
OWN_PARTS = {"bus", "encoder", "ports", "output_listeners", "host", "ids", "catalog", "down_until"}


def protocol_members(module: str, name: str) -> set[str]:
    """The public names a Protocol declares, its bases' included (ListenerOwner's in StreamingNode)."""
    proto = getattr(importlib.import_module(module), name)
    return {m for cls in proto.__mro__ if cls.__module__.startswith("fakecri.")
            for m in (*vars(cls), *getattr(cls, "__annotations__", {})) if not m.startswith("_")}


@pytest.mark.parametrize(("paths", "module", "name"), BY_NAME)
def test_whoever_is_given_the_node_sees_it_through_one_typed_interface(paths, module, name):
    """Every `node` such a module is given or keeps is typed by its Protocol, never `Node` or
    `Any`, and it imports no `Node` to type it with (the builder imports it to build it)."""
    wrong = []
    for path in paths:
        tree = parsed(path)
        for arg in ast.walk(tree):
            if isinstance(arg, ast.arg) and arg.arg == "node" and (
                    arg.annotation is None or ast.unparse(arg.annotation) != name):
                wrong.append(shown(path, arg))
            if isinstance(arg, ast.AnnAssign) and (is_node(arg.target)) and \
                    ast.unparse(arg.annotation) not in (name, f"{name} | None"):
                wrong.append(shown(path, arg))
            if isinstance(arg, ast.ImportFrom) and any(a.name == "Node" for a in arg.names) and path != BUILDER:
                wrong.append(shown(path, arg))
    assert not wrong, "\n".join(wrong)


def test_the_node_is_built_in_one_place():
    """The process builds the Node once, in app.py: past its import, the name `Node` is that one
    call and nothing else (no annotation, no other module of the package builds one)."""
    tree = ast.parse(BUILDER.read_text(encoding="utf-8"))
    calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
             and c.func.id == "Node"]
    names = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "Node"]
    assert len(calls) == 1 and names == [calls[0].func]
    elsewhere = [shown(path, c) for path in modules() if path != BUILDER and NODE_ROOM not in path.parents
                 for c in ast.walk(parsed(path))
                 if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "Node"]
    assert not elsewhere, "\n".join(elsewhere)


def test_the_cri_servicers_are_every_family():
    assert len(CRI_SERVICERS) >= 8  # the families of runtime.v1 and the image service


@pytest.mark.parametrize(("paths", "module", "name"), BY_NAME)
def test_whoever_is_given_the_node_uses_only_what_its_interface_offers(paths, module, name):
    """`node.X` there names a member of its Protocol: the node's other parts are out of its
    reach (mypy holds the types, this the names)."""
    offered = protocol_members(module, name)
    wrong = [shown(path, attr) for path in paths
             for attr in ast.walk(parsed(path))
             if isinstance(attr, ast.Attribute) and is_node(attr.value) and attr.attr not in offered]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("paths", "module", "name"), BY_NAME)
def test_the_interfaces_hold_none_of_the_nodes_own_parts(paths, module, name):
    assert not protocol_members(module, name) & OWN_PARTS


def test_the_interfaces_say_what_they_are_for():
    assert {"runtime", "changing", "event_stream"} <= protocol_members("fakecri.server.cri.cri_node", "CRINode")
    assert {"served_by", "bound_ports", "hear_output", "stop_hearing_output"} <= protocol_members(
        "fakecri.server.streaming.streaming_node", "StreamingNode")
    assert {"reset", "restart", "apply_pending_restart", "tick"} <= protocol_members(
        "fakecri.server.cri.control_node", "ControlNode")
    assert {"counters", "runtime", "event_subscribers"} == protocol_members(
        "fakecri.server.process.scraped_node", "ScrapedNode")
    assert {"tick", "apply_pending_restart", "reset", "shut_down", "close"} <= protocol_members(
        "fakecri.server.process.served_node", "ServedNode")


@pytest.mark.parametrize(("paths", "module", "name"), BY_NAME)
def test_the_node_offers_every_member_of_each_interface(paths, module, name):
    assert not protocol_members(module, name) - node_attributes()


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
