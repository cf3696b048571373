"""`recipe`: add a named recipe's faults (`--recipe NAME,...`); each recipe is one module of
fakecri.faults.recipe_kinds, listed by fakecri.faults.recipes."""
from __future__ import annotations

from fakecri.faults import grammar
from fakecri.faults.ftype import RECIPE as FAMILY
from fakecri.faults.ftype import Attr, FaultFlag, FaultType
from fakecri.faults.kinds.common import choice
from fakecri.faults.model import Fault
from fakecri.faults.recipes import RECIPE_NAMES, recipe

_FLAG = "--recipe"


def parse_recipes(text: str) -> list[Fault]:
    """'--recipe events-disabled,no-runtime-config' -> one recipe fault each (duplicates once)."""
    names = grammar.names(text)
    for name in names:
        recipe(name)
    return [Fault(type=RECIPE.name, attributes={"name": name}) for name in names]


def _expand(fault: Fault) -> list[Fault]:
    return recipe(fault.attributes["name"]).expand(fault.name)


RECIPE = FaultType(
    "recipe", FAMILY, "Add a named recipe's faults (fakecri.faults.recipes).",
    {"name": Attr(choice(RECIPE_NAMES), required=True, doc="recipe name")},
    flag=FaultFlag(_FLAG, "Add named fault recipes, comma-separated: " + ", ".join(RECIPE_NAMES)
                   + " (see 'fakecri quirks').",
                   "--recipe NAME,...                        "
                   "named faults that replay a known bug, e.g. events-disabled",
                   parse_recipes, comma_list=True),
    expand=_expand,
)
