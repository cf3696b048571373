"""The one registry of fault types (fakecri.faults.registry): each type declared once, in its own
module, and everything that names types derived from it."""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from fakecri.cli import main
from fakecri.faults import kinds, quirk_kinds, recipe_kinds
from fakecri.faults.flags import COMMA_KEYS, FAULT_FLAGS
from fakecri.faults.ftype import CALL, EVENT, FaultType
from fakecri.faults.quirk_kinds.common import QuirkSpec
from fakecri.faults.quirks import Quirk
from fakecri.faults.recipe_kinds.common import RecipeSpec
from fakecri.faults.recipes import ALL as ALL_RECIPES
from fakecri.faults.recipes import RECIPES
from fakecri.faults.registry import ALL, TYPE_NAMES, describe

PACKAGE = Path(__file__).resolve().parents[2] / "fakecri"


def test_each_type_has_a_module_of_its_own_named_after_it():
    modules = {p.stem for p in Path(kinds.__file__).parent.glob("*.py")} - {"__init__", "common"}
    assert modules == set(TYPE_NAMES)


def test_a_type_the_plan_cannot_ask_anything_is_refused_where_it_is_declared():
    with pytest.raises(TypeError, match="needs the hook"):
        FaultType("silent", CALL, "does nothing")
    with pytest.raises(TypeError, match="needs the hook"):
        FaultType("silent", EVENT, "does nothing")


def test_no_module_outside_the_kinds_spells_a_type_name_as_a_fault_type():
    # A type name is written once, in its descriptor; the rest take it from there.
    names = "|".join(TYPE_NAMES)
    spelled = re.compile(rf"""type\s*(?:==|=|!=)\s*["']({names})["']""")
    wrong = [f"{p.relative_to(PACKAGE)}:{n}: {line.strip()}"
             for p in PACKAGE.rglob("*.py") if "api" not in p.parts and "kinds" not in p.parts
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if spelled.search(line)]
    assert wrong == []


def _module_of(q: Quirk) -> str:
    return q.value.replace("-", "_")


def test_each_quirk_has_a_module_of_its_own_named_after_it():
    modules = {p.stem for p in Path(quirk_kinds.__file__).parent.glob("*.py")} - {"__init__", "common"}
    assert modules == {_module_of(q) for q in Quirk}


def test_each_quirk_is_declared_once_in_its_module():
    # The enum member is built from its module's SPEC: name, help, runtime and references.
    for q in Quirk:
        spec = importlib.import_module(f"fakecri.faults.quirk_kinds.{_module_of(q)}").SPEC
        assert isinstance(spec, QuirkSpec)
        assert (spec.name, spec.description, spec.runtime, spec.reference) == (
            q.value, q.description, q.runtime, q.reference)
        assert spec.description and spec.runtime and spec.reference


def test_every_quirk_is_acted_on_by_the_server_through_its_module():
    server = "\n".join(p.read_text(encoding="utf-8") for p in (PACKAGE / "server").rglob("*.py"))
    used = set(re.findall(r"\b(\w+)\.\w+\(", server))
    assert [q.value for q in Quirk if _module_of(q) not in used] == []


def test_no_module_but_its_own_tests_whether_a_quirk_is_on():
    # A quirk's behaviour lives in its module: nothing else names a member to test it, to log
    # it or to draw from its stream (quirks.py names members only to list them).
    names = "|".join(q.name for q in Quirk)
    spelled = re.compile(rf"Quirk\.({names})\b")
    listing = ("quirks.py",)
    wrong = [f"{p.relative_to(PACKAGE)}:{n}: {line.strip()}"
             for p in PACKAGE.rglob("*.py") if "quirk_kinds" not in p.parts and p.name not in listing
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if spelled.search(line)]
    assert wrong == []
    ask = re.compile(r"\bin\s+(?:self\.)?(?:node\.|plan\.)?quirks\b|quirk_hit\(|quirk_rng\(")
    asked = [f"{p.relative_to(PACKAGE)}:{n}: {line.strip()}"
             for p in PACKAGE.rglob("*.py") if "quirk_kinds" not in p.parts and p != PACKAGE / "faults" / "plan.py"
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if ask.search(line)]
    assert asked == []


def _recipe_module(name: str) -> str:
    return re.sub(r"[-.]", "_", name)


def test_each_recipe_has_a_module_of_its_own_named_after_it():
    modules = {p.stem for p in Path(recipe_kinds.__file__).parent.glob("*.py")} - {"__init__", "common"}
    assert sorted(modules) == sorted(_recipe_module(r.name) for r in ALL_RECIPES)
    assert len(RECIPES) == len(ALL_RECIPES)  # no name twice


def test_each_recipe_is_declared_once_in_its_module():
    for r in ALL_RECIPES:
        spec = importlib.import_module(f"fakecri.faults.recipe_kinds.{_recipe_module(r.name)}").SPEC
        assert spec is r and isinstance(spec, RecipeSpec)
        assert spec.description and spec.reference and spec.faults
    declared = [f"{p.relative_to(PACKAGE)}:{n}" for p in PACKAGE.rglob("*.py") if "recipe_kinds" not in p.parts
                for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "RecipeSpec(" in line]
    assert declared == []


def test_comma_keys_are_the_flags_that_take_names():
    assert set(COMMA_KEYS) == {"quirks", "recipe"}
    assert all(not f.multiple for f in FAULT_FLAGS if f.key in COMMA_KEYS)


def test_fault_types_lists_the_registry():
    result = CliRunner().invoke(main, ["fault-types"])
    assert result.exit_code == 0, result.output
    listed = [line.split()[0] for line in result.output.splitlines()[1:] if re.match(r"  \S", line)]
    assert listed == list(TYPE_NAMES)
    for t in ALL:
        if t.flag is not None:
            assert f"[{t.flag.flag}]" in result.output


def test_fault_types_json_is_the_registry():
    result = CliRunner().invoke(main, ["fault-types", "--json"])
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc == {"types": describe()}
    assert [t["name"] for t in doc["types"]] == list(TYPE_NAMES)
