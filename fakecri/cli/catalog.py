"""`fakecri quirks`: the runtime quirks and named fault recipes, each with what it does and
the upstream issues it replays (docs/bug-lab.md shows what a real kubelet does with each)."""
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
