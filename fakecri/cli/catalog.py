"""`fakecri quirks`: the runtime quirks and named fault recipes, each with what it does and
the upstream issues it replays (docs/bug-lab.md shows what a real kubelet does with each).
`fakecri fault-types`: the fault types of fakecri.faults.registry, with their flags and attributes."""
from __future__ import annotations

import json

import click

from fakecri.cli.group import main


@main.command("quirks")
@click.option("--json", "json_mode", is_flag=True, help="One JSON document instead of text.")
def quirks(json_mode: bool) -> None:
    """List the quirks (--quirks) and fault recipes (--recipe) with their upstream references."""
    from fakecri.faults.quirks import Quirk
    from fakecri.faults.recipes import RECIPES

    if json_mode:
        doc = {
            "quirks": [{"name": q.value, "description": q.description, "reference": list(q.reference)}
                       for q in Quirk],
            "recipes": [{"name": r.name, "description": r.description, "reference": list(r.reference),
                         "faults": [f.to_dict() for f in r.expand()]} for r in RECIPES.values()],
        }
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo("Quirks (fakecri serve --quirks NAME[,NAME]):")
    for q in Quirk:
        click.echo(f"  {q.value}  [{q.references}]")
        click.echo(f"      {q.description}")
    click.echo("Recipes (fakecri serve --recipe NAME[,NAME], or a fault {type: recipe, attributes: {name: NAME}}):")
    for r in RECIPES.values():
        click.echo(f"  {r.name}  [{r.references}]")
        click.echo(f"      {r.description}")
    click.echo("What a real kubelet does with each: docs/bug-lab.md")


@main.command("fault-types")
@click.option("--json", "json_mode", is_flag=True, help="One JSON document instead of text.")
def fault_types(json_mode: bool) -> None:
    """List the fault types (a fault's `type` in a faults file, the control API's AddFault and
    `fakecri ctl add-fault`), each with its serve flag, what it acts on and its attributes."""
    from fakecri.faults.registry import describe

    types = describe()
    if json_mode:
        click.echo(json.dumps({"types": types}, indent=2))
        return
    click.echo("Fault types (docs/faults.md; --quirks and --recipe names: fakecri quirks):")
    width = max(len(t["name"]) for t in types)
    for t in types:
        flag = f"  [{t['flag']}]" if t["flag"] else ""
        click.echo(f"  {t['name']:<{width}}  {t['acts_on']:<9}  {t['help']}{flag}")
        for a in t["attributes"]:
            default = "required" if a["required"] else ("no default" if a["default"] is None
                                                        else f"default {a['default']!r}")
            click.echo(f"  {'':<{width}}    {a['name']} ({default}): {a['doc']}")
