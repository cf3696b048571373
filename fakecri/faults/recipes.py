"""Named fault recipes: a name that stands for a few ordinary faults, with the upstream
bug it reproduces. Each recipe is one module of fakecri.faults.recipe_kinds, declaring it
once (`SPEC`: name, help, references, its faults); this module lists them, and the
`recipe` fault type's names, `--recipe`'s help, `fakecri quirks` and docs/faults.md's and
docs/bug-lab.md's recipe names come from, or are checked against, RECIPES.

A quirk changes what the runtime does; a recipe is made of the faults anyone could write
by hand (an error on one method, a restart at one call), named after the real runtime
behaviour or kubelet bug they replay, so a kubelet developer asks for the bug by name.

Where a recipe can be used: `fakecri serve --recipe NAME[,NAME]` (and the config file's
`recipe` key, FAKECRI_RECIPE, the pytest marker's flag strings), a faults file entry
`{type: recipe, attributes: {name: NAME}}`, and the control API's AddFault with that same
fault. Each expands, when it is added to a plan, into its faults, named `NAME` (one fault)
or `NAME.1`, `NAME.2`, ... (several), so ListFaults shows them and RemoveFault takes them
away one by one. docs/bug-lab.md shows what a real kubelet does with each.
"""
from __future__ import annotations

from fakecri.faults.model import FaultSpecError
from fakecri.faults.recipe_kinds import (
    crio_1_36_events,
    events_disabled,
    events_unimplemented,
    lose_every_container,
    no_list_streaming,
    no_runtime_config,
    restart_between_create_and_start,
    restart_between_stop_and_remove_sandbox,
    slow_container_start,
    update_sandbox_resources_fails,
)
from fakecri.faults.recipe_kinds.common import RecipeSpec
from fakecri.faults.values import suggest

__all__ = ["ALL", "RECIPES", "RECIPE_NAMES", "RecipeSpec", "recipe"]

# In the order the help, `fakecri quirks` and docs/faults.md list them.
ALL: tuple[RecipeSpec, ...] = (
    events_disabled.SPEC,
    events_unimplemented.SPEC,
    no_runtime_config.SPEC,
    no_list_streaming.SPEC,
    restart_between_create_and_start.SPEC,
    restart_between_stop_and_remove_sandbox.SPEC,
    slow_container_start.SPEC,
    lose_every_container.SPEC,
    update_sandbox_resources_fails.SPEC,
    crio_1_36_events.SPEC,
)
RECIPES: dict[str, RecipeSpec] = {r.name: r for r in ALL}
RECIPE_NAMES: tuple[str, ...] = tuple(RECIPES)


def recipe(name: str) -> RecipeSpec:
    """The recipe called `name`; FaultSpecError (with a suggestion) for an unknown one."""
    found = RECIPES.get(name)
    if found is None:
        raise FaultSpecError(f"unknown recipe {name!r}{suggest(name, RECIPE_NAMES)}; "
                             f"expected one of {', '.join(RECIPE_NAMES)}")
    return found
