"""The walks of docs/architecture.md ("One call, from servicer to subscriber") are the code's:
scripts/walk.py traces one CreateContainer and one StartContainer-to-exit on a real server,
and the modules each enters are the ones the page lists, and its counts are the page's."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"


def walk_script():
    spec = importlib.util.spec_from_file_location("walk", ROOT / "scripts" / "walk.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page_walk(name: str) -> set[str]:
    block = re.search(rf"<!-- walk: {name} -->\s*```text\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert block, f"docs/architecture.md lost its {name} walk"
    out = set()
    for line in block.group(1).splitlines():
        package, _, names = line.partition(":")
        out |= {f"fakecri.{package.strip()}.{n.strip()}" for n in names.split(",") if n.strip()}
    return out


def test_the_page_walks_the_modules_the_calls_enter():
    walks = walk_script().walks()
    page = PAGE.read_text(encoding="utf-8")
    for name, call in (("create", "`CreateContainer`"), ("start", "`StartContainer`")):
        traced = set(walks[name]["sequence"])
        listed = page_walk(name)
        assert traced == listed, f"{name}: on the page only {sorted(listed - traced)}; " \
                                 f"traced only {sorted(traced - listed)}"
        said = re.search(rf"{call}[^\n]*\n?[^\n]*enters (\d+) modules", page)
        assert said and int(said.group(1)) == walks[name]["modules"], (name, walks[name]["modules"])
