"""docs/architecture.md is true: its arrows, its rules and its API tables match the code.

Every module under fakecri/ is parsed (not imported). Each `import` of another part of
fakecri (lazy and TYPE_CHECKING imports included: a lazy import is still a dependency)
must be an arrow of the page's `arrows` block, and every arrow drawn must be used. A new
top-level module or package fails here until the page gives it a place.
"""
from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fakecri"
PAGE = ROOT / "docs" / "architecture.md"
GENERATED = PACKAGE / "api"
MAX_LINES = 600
# The pure parts: the standard library only (PyYAML reads fault files).
PURE = {"engine", "sim", "faults"}
PURE_THIRD_PARTY = {"yaml"}
# Enum's own sunder names and the named tuple's API are public, whatever their spelling.
PUBLIC_UNDERSCORE = {"_value_", "_name_", "_missing_", "_generate_next_value_", "_replace", "_asdict", "_fields",
                     "_make"}


# The files do not change during a run: the page, each module's syntax tree and the import
# graph are read once, not once per test (and per edge) that asks. The trees are only walked.
@functools.cache
def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def part_of(module: str) -> str:
    """`fakecri.server.app` -> `server`; `fakecri` -> `fakecri`."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "fakecri"


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def hand_written() -> list[Path]:
    return [p for p in modules() if GENERATED not in p.parents]


@functools.cache
def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def imports_of(path: Path) -> tuple[tuple[str, int], ...]:
    """Absolute names of every module `path` imports, with line numbers."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((target, node.lineno))
            # `from fakecri import server` imports the subpackage fakecri.server.
            if target == "fakecri":
                out += [(f"fakecri.{alias.name}", node.lineno) for alias in node.names
                        if (PACKAGE / alias.name).is_dir() or (PACKAGE / f"{alias.name}.py").is_file()]
    return tuple(out)


@functools.cache
def edges() -> tuple[tuple[str, str, str, int], ...]:
    """(importing module, imported module, file, line) for imports between parts."""
    out = []
    for path in modules():
        source = module_name(path)
        for target, line in imports_of(path):
            if target.split(".")[0] == "fakecri" and part_of(source) != part_of(target) \
                    and part_of(target) != "fakecri":
                out.append((source, target, str(path.relative_to(ROOT)), line))
    return tuple(out)


def page_arrows() -> dict[str, set[str]]:
    """Each part's arrows, from the page's `arrows` block (`A -> B, C`; `*` for the top)."""
    block = re.search(r"<!-- arrows -->\s*```text\n(.*?)```", page(), re.S)
    assert block, "docs/architecture.md lost its arrows block"
    arrows: dict[str, set[str]] = {}
    for line in block.group(1).splitlines():
        if line.strip():
            source, _, targets = line.partition("->")
            arrows[source.strip()] = {t.strip() for t in targets.split(",") if t.strip()}
    return arrows


def allowed(source: str, target: str) -> bool:
    rule = page_arrows().get(source, set())
    return target == "fakecri" or "*" in rule or target in rule


def test_every_part_has_a_place_on_the_page():
    parts = {part_of(module_name(p)) for p in modules()} - {"fakecri"}
    missing = parts - set(page_arrows())
    assert not missing, f"fakecri.{', fakecri.'.join(sorted(missing))} has no place in docs/architecture.md"


def test_package_root_imports_nothing_of_fakecri():
    assert [t for t, _ in imports_of(PACKAGE / "__init__.py") if t.startswith("fakecri.")] == []


def test_imports_follow_the_arrows():
    wrong = [f"{file}:{line}: {source} imports {target} ({part_of(source)} -> {part_of(target)} is not an arrow)"
             for source, target, file, line in edges() if not allowed(part_of(source), part_of(target))]
    assert not wrong, "imports against docs/architecture.md:\n" + "\n".join(wrong)


def test_every_arrow_drawn_is_used():
    used = {(part_of(s), part_of(t)) for s, t, _, _ in edges()}
    drawn = {(s, t) for s, targets in page_arrows().items() for t in targets if t != "*"}
    assert not drawn - used, f"arrows on the page that no import uses: {sorted(drawn - used)}"


@pytest.mark.parametrize("source, target", [
    ("engine", "sim"), ("engine", "server"), ("engine", "faults"), ("sim", "server"), ("sim", "faults"),
    ("faults", "server"), ("client", "server"), ("client", "engine"), ("conformance", "server"),
    ("conformance", "engine"), ("server", "cli"), ("server", "client"), ("api", "engine"),
])
def test_the_page_forbids_what_must_stay_apart(source, target):
    assert not allowed(source, target)


def test_no_two_parts_import_each_other():
    """The part graph has no cycle, the top included (where any arrow is allowed)."""
    graph: dict[str, set[str]] = {}
    for source, target, _, _ in edges():
        graph.setdefault(part_of(source), set()).add(part_of(target))
    visiting: list[str] = []
    done: set[str] = set()

    def visit(part: str) -> None:
        if part in done:
            return
        assert part not in visiting, "import circle: " + " -> ".join(visiting[visiting.index(part):] + [part])
        visiting.append(part)
        for nxt in sorted(graph.get(part, ())):
            visit(nxt)
        visiting.pop()
        done.add(part)

    for part in sorted(graph):
        visit(part)


# ---------------------------------------------------------------- the server's rooms

SERVER = PACKAGE / "server"


def room_of(module: str) -> str | None:
    """`fakecri.server.node.node` -> `node`; `fakecri.server.config` -> `config`; None outside
    server/ and for the package itself."""
    pieces = module.split(".")
    if pieces[:2] != ["fakecri", "server"] or len(pieces) < 3:
        return None
    return pieces[2]


def room_edges() -> list[tuple[str, str, str, int]]:
    """(importing room, imported room, file, line) for imports between rooms of server/."""
    out = []
    for path in SERVER.rglob("*.py"):
        source = room_of(module_name(path))
        for target, line in imports_of(path):
            if target == "fakecri.server":  # `from fakecri.server import wire`-style is not used
                continue
            room = room_of(target)
            if source and room and source != room:
                out.append((source, room, str(path.relative_to(ROOT)), line))
    return out


def page_rooms() -> dict[str, set[str]]:
    block = re.search(r"<!-- rooms -->\s*```text\n(.*?)```", page(), re.S)
    assert block, "docs/architecture.md lost its rooms block"
    rooms: dict[str, set[str]] = {}
    for line in block.group(1).splitlines():
        if line.strip():
            source, _, targets = line.partition("->")
            rooms[source.strip()] = {t.strip() for t in targets.split(",") if t.strip()}
    return rooms


def test_every_room_of_the_server_has_a_place_on_the_page():
    real = {p.name for p in SERVER.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    real |= {p.stem for p in SERVER.glob("*.py") if p.name != "__init__.py"}
    assert real == set(page_rooms()), f"on the page only {sorted(set(page_rooms()) - real)}; " \
                                      f"in server/ only {sorted(real - set(page_rooms()))}"


def test_server_imports_follow_the_rooms_arrows():
    rooms = page_rooms()
    wrong = [f"{file}:{line}: {s} -> {t} is not an arrow" for s, t, file, line in room_edges()
             if t not in rooms.get(s, set())]
    assert not wrong, "imports against the rooms of docs/architecture.md:\n" + "\n".join(wrong)


def test_every_room_arrow_drawn_is_used():
    used = {(s, t) for s, t, _, _ in room_edges()}
    drawn = {(s, t) for s, targets in page_rooms().items() for t in targets}
    assert not drawn - used, f"room arrows on the page that no import uses: {sorted(drawn - used)}"


def test_the_rooms_arrows_point_one_way():
    """The order the block lists them in is a topological order: every arrow points down."""
    order = list(page_rooms())
    up = [(s, t) for s, targets in page_rooms().items() for t in targets if order.index(t) <= order.index(s)]
    assert not up, f"room arrows that point up the page: {up}"


# ---------------------------------------------------------------- the rules


def banned_modules() -> set[str]:
    """The modules the page says engine and sim never import."""
    found = re.search(r"engine and sim import none of: ([^\n]+)", page())
    assert found, "docs/architecture.md lost the rule on what engine and sim import"
    return {name.strip() for name in found.group(1).split(",")}


def in_parts(*parts: str) -> list[Path]:
    return [p for p in modules() if part_of(module_name(p)) in parts]


def test_engine_and_sim_do_no_io():
    banned = banned_modules()
    assert {"os", "socket", "asyncio", "grpc", "google"} <= banned
    wrong = []
    for path in in_parts("engine", "sim"):
        for target, line in imports_of(path):
            if target.split(".")[0] in banned:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: imports {target}")
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: calls open")
            if isinstance(node, (ast.Import, ast.ImportFrom)) and path.name != "clock.py":
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if "time" in names:
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: reads the wall clock (time)")
    assert not wrong, "engine and sim touch the host:\n" + "\n".join(wrong)


def test_engine_never_imports_sim():
    wrong = [f"{f}:{line}: {s} imports {t}" for s, t, f, line in edges() if part_of(s) == "engine"]
    assert not wrong, "\n".join(wrong)


def test_the_pure_parts_use_only_the_standard_library():
    wrong = []
    for path in in_parts(*PURE):
        for target, line in imports_of(path):
            top = target.split(".")[0]
            if top in ("fakecri", "__future__") or top in sys.stdlib_module_names or top in PURE_THIRD_PARTY:
                continue
            wrong.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert not wrong, "engine, sim and faults must stay free of grpc, protobuf and other services:\n" + "\n".join(wrong)


def private_reach_ins(path: Path) -> list[str]:
    """Places in `path` that read or write another object's `_private` names."""
    out = []
    for node in ast.walk(parse(path)):
        name = None
        if isinstance(node, ast.Attribute):
            value = node.value
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                continue
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                continue
            name = node.attr
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            name = node.args[1].value
        if name and name.startswith("_") and not (name.startswith("__") and name.endswith("__")) \
                and name not in PUBLIC_UNDERSCORE:
            shown = path.relative_to(ROOT) if ROOT in path.parents else path.name
            out.append(f"{shown}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_no_module_reaches_into_another_objects_private_names():
    wrong = [hit for path in hand_written() for hit in private_reach_ins(path)]
    assert not wrong, "reach-ins:\n" + "\n".join(wrong)


def test_the_reach_in_check_sees_a_reach_in(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f(rt, c):\n    self_ok = rt._sandboxes\n    getattr(c, '_rng')\n    return c.__class__\n")
    assert [hit.split(": ", 1)[1] for hit in private_reach_ins(sample)] == ["rt._sandboxes", "getattr(c, '_rng')"]


def test_no_hand_written_module_is_over_the_limit():
    long = {str(p.relative_to(ROOT)): n for p in hand_written()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


# ---------------------------------------------------------------- the API tables


def api_tables() -> dict[str, set[str]]:
    """`dotted.Class` -> the member names its table on the page lists."""
    out = {}
    for match in re.finditer(r"<!-- api: ([\w.]+) -->\s*\n\|[^\n]*\n\|[-| ]+\n((?:\|[^\n]*\n)+)", page()):
        names = set()
        for row in match.group(2).splitlines():
            first = row.split("|")[1]
            names |= {m.group(1) for m in re.finditer(r"`(\w+)", first)}
        out[match.group(1)] = names
    return out


def public_members(dotted: str) -> set[str]:
    """The class's public methods and properties, its own and those of its fakecri bases (the
    Node's `CallPath`)."""
    module, _, name = dotted.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    ours = [c for c in cls.__mro__ if c.__module__.startswith("fakecri.")]
    return {n for c in ours for n, v in vars(c).items()
            if not n.startswith("_") and (callable(v) or isinstance(v, property))}


def test_the_api_tables_list_every_public_member_and_nothing_else():
    tables = api_tables()
    assert set(tables) == {"fakecri.engine.runtime.Runtime", "fakecri.sim.simulation.Simulation",
                           "fakecri.server.node.node.Node"}
    for dotted, listed in tables.items():
        real = public_members(dotted)
        assert listed == real, f"{dotted}: on the page only {sorted(listed - real)}; " \
                               f"in the code only {sorted(real - listed)}"


def test_the_walk_of_one_call_names_modules_that_exist():
    walk = page().split("## One call, from servicer to subscriber", 1)[1].split("\n## ", 1)[0]
    for path in set(re.findall(r"`((?:server|engine|sim)/[\w/]+\.py)`", walk)):
        assert (PACKAGE / path).is_file(), path
    assert inspect.getsource(importlib.import_module("fakecri.server.node.call_path")).count("node.changing()") >= 1


def test_ruff_is_clean():
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", str(PACKAGE), str(ROOT / "tests"),
                           str(ROOT / "bench")], capture_output=True,
                          text=True, cwd=ROOT)
    if ruff.returncode != 0 and "No module named ruff" in ruff.stderr:
        pytest.skip("ruff is not installed (pip install -e '.[dev]' brings it)")
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
