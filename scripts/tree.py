"""The shape of the package, for issue 32's before and after: per part of fakecri, its folders,
modules and lines; and the largest classes by their number of methods.

    python scripts/tree.py [ROOT] [--classes N]
"""
from __future__ import annotations

import argparse
import ast
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--classes", type=int, default=8, help="how many of the largest classes to list")
    args = parser.parse_args()
    package = Path(args.root) / "fakecri"
    parts: dict[str, list[int]] = {}
    classes: list[tuple[int, str]] = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if relative.parts[0] == "api":
            continue
        part = "/".join(relative.parts[:2]) if relative.parts[0] == "server" and len(relative.parts) > 2 else \
            relative.parts[0] if len(relative.parts) > 1 else "(root)"
        text = path.read_text(encoding="utf-8")
        entry = parts.setdefault(part, [0, 0, 0])
        entry[1] += 1
        entry[2] += len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                methods = sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in node.body)
                classes.append((methods, f"{relative}:{node.name}"))
    for part, (_, count, lines) in sorted(parts.items()):
        folders = len({p.parent for p in (package / part).rglob("*.py")}) if (package / part).is_dir() else 0
        print(f"{part:24} {folders:3} folders {count:4} modules {lines:6} lines")
    server = [v for k, v in parts.items() if k.startswith("server")]
    print(f"{'server (all)':24} {'':11} {sum(v[1] for v in server):4} modules {sum(v[2] for v in server):6} lines")
    for methods, name in sorted(classes, reverse=True)[: args.classes]:
        print(f"{methods:4} methods  {name}")


if __name__ == "__main__":
    main()
