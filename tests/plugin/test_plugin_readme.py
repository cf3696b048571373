"""The README's downstream-test example, run as it is written."""
from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
EXAMPLE = re.compile(r"<!-- example: downstream-test -->\s*```python\n(.*?)```\s*<!-- /example -->", re.S)


def readme_example() -> str:
    match = EXAMPLE.search(README.read_text(encoding="utf-8"))
    assert match, "README.md lost its downstream-test example block"
    return match.group(1)


def test_readme_downstream_example_passes(pytester):
    code = readme_example()
    pytester.makepyfile(test_downstream=code)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-v")
    tests = re.findall(r"^def (test_\w+)", code, re.M)
    assert len(tests) >= 3
    result.assert_outcomes(passed=len(tests))
