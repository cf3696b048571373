"""Quirks and recipes carry their upstream references as data; a recipe expands into
ordinary faults wherever it is given (flag, file, plan, control API)."""
import re

import pytest

from fakecri.engine import errors
from fakecri.faults import FaultPlan, FaultSpecError, load_faults_file
from fakecri.faults.flags import catalog_lines, epilog, faults_from
from fakecri.faults.kinds.recipe import parse_recipes
from fakecri.faults.model import Fault
from fakecri.faults.quirks import Quirk
from fakecri.faults.recipes import RECIPES, recipe

REF = re.compile(r"[\w.-]+/[\w.-]+#\d+")


def test_every_quirk_and_recipe_has_a_description_and_references():
    for q in Quirk:
        assert q.description and q.reference, q
        assert all(REF.fullmatch(r) for r in q.reference), q.reference
    for r in RECIPES.values():
        assert r.description and r.reference and r.faults, r.name
        assert all(REF.fullmatch(x) for x in r.reference), r.reference


def test_help_and_catalog_list_every_quirk_and_recipe_with_its_references():
    text = epilog()
    lines = catalog_lines()
    for q in Quirk:
        assert any(q.value in line and q.reference[0] in line for line in lines)
        assert q.value in text
    for r in RECIPES.values():
        assert any(r.name in line and r.reference[0] in line for line in lines)


def test_recipe_flag_expands_in_the_plan_into_named_faults():
    faults = faults_from({"recipe": "events-disabled,no-runtime-config"})
    assert [(f.type, f.attributes["name"]) for f in faults] == [("recipe", "events-disabled"),
                                                               ("recipe", "no-runtime-config")]
    plan = FaultPlan(1, now_ns=lambda: 0)
    first = plan.add(faults[0])
    assert (first.name, first.type, first.attributes["code"]) == ("events-disabled", "cut_stream", "OK")
    plan.add(faults[1])
    listed = {f.name: f for f in plan.list()}
    assert listed["no-runtime-config"].target == "RuntimeConfig"
    assert listed["no-runtime-config"].attributes["code"] == "UNIMPLEMENTED"
    assert "recipe" not in {f.type for f in listed.values()}
    action = plan.on_call("RuntimeConfig", "before")
    assert action is not None and action.error[0] == "UNIMPLEMENTED"
    with pytest.raises(errors.AlreadyExists):
        plan.add(faults[1])  # the same recipe twice: its names are taken


def test_recipe_with_a_name_names_its_faults_and_a_file_takes_recipes(tmp_path):
    path = tmp_path / "f.yaml"
    path.write_text("- {name: rc, type: recipe, attributes: {name: no-runtime-config}}\n"
                    "- {type: recipe, attributes: {name: restart-between-create-and-start}}\n")
    plan = FaultPlan(1, now_ns=lambda: 0)
    for f in load_faults_file(path):
        plan.add(f)
    assert {f.name: f.type for f in plan.list()} == {"rc": "error", "restart-between-create-and-start": "restart"}


def test_unknown_recipe_is_refused_with_a_suggestion():
    with pytest.raises(FaultSpecError, match="events-disabled"):
        parse_recipes("events-disable")
    with pytest.raises(FaultSpecError, match="unknown recipe"):
        recipe("nope")
    with pytest.raises(errors.InvalidArgument, match="recipe"):
        FaultPlan(1).add(Fault(type="recipe", attributes={"name": "nope"}))
    with pytest.raises(errors.InvalidArgument, match="target"):
        FaultPlan(1).add(Fault(type="recipe", target="ListContainers", attributes={"name": "events-disabled"}))


def test_expanding_twice_gives_fresh_copies():
    r = RECIPES["lose-every-container"]
    a, b = r.expand(), r.expand()
    a[0].attributes["wipe"] = "false"
    assert b[0].attributes["wipe"] == "true" and r.faults[0].attributes["wipe"] == "true"
