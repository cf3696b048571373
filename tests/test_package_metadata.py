"""The package reads like one people already use: complete metadata for PyPI, and CI
building and checking the sdist and the wheel (`.ci/package-check`, run by `.ci/run`)."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_metadata_is_complete_for_an_index():
    assert PROJECT["readme"] == "README.md" and PROJECT["license"] == "Apache-2.0"
    classifiers = PROJECT["classifiers"]
    assert "Framework :: Pytest" in classifiers and "Typing :: Typed" in classifiers
    low = PROJECT["requires-python"].removeprefix(">=")
    assert f"Programming Language :: Python :: {low}" in classifiers
    assert PROJECT["keywords"] and PROJECT["description"]
    assert PROJECT["entry-points"]["pytest11"] == {"fakecri": "fakecri.pytest_plugin"}


def test_ci_builds_checks_and_installs_the_package_both_ways():
    run = (ROOT / ".ci" / "run").read_text()
    check = (ROOT / ".ci" / "package-check").read_text()
    assert ".ci/package-check" in run
    for step in ("-m build", "twine check --strict", '"$wheel"', '"$wheel[all]"', "fakecri\\[conformance\\]",
                 "test_downstream.py"):
        assert step in check, step


def test_the_documented_installs_are_the_checked_ones():
    readme = (ROOT / "README.md").read_text()
    assert "pip install 'fakecri[all]'" in readme and "python3 -m venv" in readme
    assert "all" in PROJECT["optional-dependencies"]
