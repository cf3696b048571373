"""Print the import circles inside the fakecri package (strongly connected components).

Walks every fakecri/**/*.py with `ast`, takes each `import`/`from ... import` of a fakecri
module (including the ones inside functions), and reports every group of modules that
import one another in a circle. Exit status 1 when there is one. Usage:
    python scripts/import_cycles.py [--top-level-only]
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = "fakecri"


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, modules: set[str], top_level_only: bool) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    name = module_name(path)
    is_pkg = path.name == "__init__.py"
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if is_pkg else name.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join(pkg + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for t in targets:
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t and t != name and t.startswith(PKG + "."):
                found.add(t)
    return found


def graph(top_level_only: bool = False) -> dict[str, set[str]]:
    files = [p for p in (ROOT / PKG).rglob("*.py") if "api" not in p.relative_to(ROOT / PKG).parts[:1]]
    modules = {module_name(p) for p in files}
    # A package's __init__ re-exports its modules; importing `a.b` runs `a/__init__` first,
    # but that is not a dependency of `a.b` on the package's other modules, so it is left out.
    return {module_name(p): {t for t in imports_of(p, modules, top_level_only)
                             if not module_name(p).startswith(t + ".")} for p in files}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of size > 1."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out)


def main(argv: list[str]) -> int:
    found = circles(graph("--top-level-only" in argv))
    for comp in found:
        print(f"{len(comp)}: " + " <-> ".join(comp))
    if not found:
        print("no import circles")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
