"""The named fault recipes, one module each (as fakecri.faults.kinds holds one module per
fault type and fakecri.faults.quirk_kinds one per quirk). A module declares its recipe once,
as a `RecipeSpec` named SPEC: its name (the `--recipe` value, the faults file's and the
control API's `attributes.name` of a `recipe` fault), its help, its upstream references and
the ordinary faults it expands into. fakecri.faults.recipes lists them."""
