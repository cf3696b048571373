"""The package's imports follow the one-way arrows drawn in docs/architecture.md.

Every module under fakecri/ is parsed (not imported) and each `import` of another
part of fakecri is checked against ALLOWED, including imports inside functions and
under TYPE_CHECKING: a lazy import is still a dependency. A new top-level module or
package fails here until it is given a place in ALLOWED and on the page, as a
change to the protos fails the wire-contract test until the contract is updated.
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fakecri"
PAGE = ROOT / "docs" / "architecture.md"

# Which parts of fakecri each part may import. A part is a subpackage or a module
# directly under fakecri/. `fakecri` is the package root (`__version__` only), which
# every part may import; it imports nothing of fakecri itself.
ALLOWED: dict[str, set[str]] = {
    "api": set(),
    "engine": set(),
    "sim": {"engine"},
    "faults": {"engine"},
    "logs": set(),
    "server": {"engine", "sim", "faults", "api", "logs"},
    "client": {"api"},
    "control_client": {"api", "client"},
    "conformance": {"client", "api"},
    # The fault flags of `fakecri serve`, shared by the CLI and the pytest marker.
    "fault_flags": {"faults"},
    # The top: entry points and what only they use. They may import anything; nothing
    # below imports them.
    "cli": {"*"},
    "pytest_plugin": {"*"},
    "testing": {"*"},
    "settings": {"*"},
}
TOP = {part for part, allowed in ALLOWED.items() if allowed == {"*"}}

# Imports against the arrows that are known and being removed. Each entry is
# (importing module, imported module). Delete an entry when its import is gone: a
# stale entry fails test_known_exceptions_are_still_needed.
KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()

# The pure parts import only the standard library, plus PyYAML to read files.
PURE = {"engine", "sim", "faults"}
PURE_THIRD_PARTY = {"yaml"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def part_of(module: str) -> str:
    """`fakecri.server.app` -> `server`; `fakecri` -> `fakecri`."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "fakecri"


def imports_of(path: Path) -> list[tuple[str, int]]:
    """Absolute names of every module `path` imports, with line numbers."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
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
    return out


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def edges() -> list[tuple[str, str, str, int]]:
    """(importing module, imported module, file, line) for imports between parts."""
    out = []
    for path in modules():
        source = module_name(path)
        for target, line in imports_of(path):
            if target.split(".")[0] != "fakecri":
                continue
            if part_of(source) != part_of(target):
                out.append((source, target, str(path.relative_to(ROOT)), line))
    return out


def allowed(source_part: str, target_part: str) -> bool:
    if target_part == "fakecri":
        return True
    rule = ALLOWED[source_part]
    return "*" in rule or target_part in rule


def test_every_part_has_a_place():
    parts = {part_of(module_name(p)) for p in modules()} - {"fakecri"}
    missing = parts - set(ALLOWED)
    assert not missing, (f"fakecri.{', fakecri.'.join(sorted(missing))} has no place in the architecture: "
                         "add it to ALLOWED here and to the drawing in docs/architecture.md")


def test_package_root_imports_nothing_of_fakecri():
    assert [t for t, _ in imports_of(PACKAGE / "__init__.py") if t.startswith("fakecri.")] == []


def test_imports_follow_the_arrows():
    wrong = [
        f"{file}:{line}: {source} imports {target} ({part_of(source)} -> {part_of(target)} is not an arrow)"
        for source, target, file, line in edges()
        if not allowed(part_of(source), part_of(target)) and (source, target) not in KNOWN_EXCEPTIONS
    ]
    assert not wrong, "imports against docs/architecture.md:\n" + "\n".join(wrong)


def test_known_exceptions_are_still_needed():
    present = {(source, target) for source, target, _, _ in edges()}
    stale = KNOWN_EXCEPTIONS - present
    assert not stale, f"these imports are gone; delete them from KNOWN_EXCEPTIONS: {sorted(stale)}"
    for source, target in KNOWN_EXCEPTIONS:
        assert not allowed(part_of(source), part_of(target)), f"{source} -> {target} is allowed anyway"


def test_the_pure_parts_use_only_the_standard_library():
    wrong = []
    for path in modules():
        if part_of(module_name(path)) not in PURE:
            continue
        for target, line in imports_of(path):
            top = target.split(".")[0]
            if top in ("fakecri", "__future__") or top in sys.stdlib_module_names or top in PURE_THIRD_PARTY:
                continue
            wrong.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert not wrong, "core and faults must stay free of grpc, protobuf and other services:\n" + "\n".join(wrong)


def page_arrows() -> set[tuple[str, str]]:
    """The arrows of the drawing on the page: lines `A  ->  B, C` in the `arrows` block."""
    block = re.search(r"<!-- arrows -->\s*```text\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert block, "docs/architecture.md lost its arrows block"
    arrows = set()
    for line in block.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        source, _, targets = line.partition("->")
        for target in targets.split(","):
            if target.strip():
                arrows.add((source.strip(), target.strip()))
    return arrows


def test_the_page_draws_the_same_arrows():
    drawn = page_arrows()
    table = {(s, t) for s, ts in ALLOWED.items() for t in ts}
    assert drawn == table, (f"on the page only: {sorted(drawn - table)}; here only: {sorted(table - drawn)}")


@pytest.mark.parametrize("source, target", [
    ("core", "server"), ("core", "faults"), ("faults", "server"), ("client", "server"),
    ("client", "core"), ("conformance", "server"), ("conformance", "core"), ("server", "cli"),
    ("server", "client"), ("api", "core"),
])
def test_the_rules_forbid_what_the_page_forbids(source, target):
    assert not allowed(source, target)


def test_no_two_parts_import_each_other():
    """The part graph has no cycle, the top included (where any arrow is allowed)."""
    graph: dict[str, set[str]] = {}
    for source, target, _, _ in edges():
        if (source, target) in KNOWN_EXCEPTIONS or part_of(target) == "fakecri":
            continue
        graph.setdefault(part_of(source), set()).add(part_of(target))
    visiting, done = [], set()

    def visit(part):
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
