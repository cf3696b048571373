"""The README's runnable examples (each after a `<!-- example: run -->` marker) still run."""
from __future__ import annotations

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"<!-- example: run -->\s*```python\n(.*?)```", re.S)


def examples() -> list[str]:
    return BLOCK.findall(README.read_text())


def test_readme_has_runnable_examples():
    assert examples()


@pytest.mark.parametrize("code", examples(), ids=lambda c: c.strip().splitlines()[0][:40])
def test_readme_example_runs(code):
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
