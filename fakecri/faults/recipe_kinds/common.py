"""What every recipe module shares: its declaration (`RecipeSpec`) and `fault`, which writes
one of the ordinary faults a recipe is made of from its fault type's descriptor."""
from __future__ import annotations

from dataclasses import dataclass

from fakecri.faults.ftype import FaultType
from fakecri.faults.model import Fault


@dataclass(frozen=True)
class RecipeSpec:
    """One recipe, declared once: `name` (the --recipe value and a `recipe` fault's
    `attributes.name`), `description` (the help `fakecri quirks` shows), `reference`
    (upstream issues and pull requests, `owner/repo#N`) and `faults`, what it expands into."""
    name: str
    description: str
    reference: tuple[str, ...]
    faults: tuple[Fault, ...]

    @property
    def references(self) -> str:
        return ", ".join(self.reference)

    def expand(self, prefix: str = "") -> list[Fault]:
        """Fresh copies of the recipe's faults, named after it (or after `prefix`): `NAME` for
        one fault, `NAME.1`, `NAME.2`, ... for several."""
        base = prefix or self.name
        out = []
        for i, f in enumerate(self.faults, start=1):
            name = base if len(self.faults) == 1 else f"{base}.{i}"
            out.append(Fault(name=name, type=f.type, target=f.target, stage=f.stage, toxicity=f.toxicity,
                             count=f.count, attributes=dict(f.attributes)))
        return out


def fault(ftype: FaultType, target: str = "", **attributes: str) -> Fault:
    """One fault of type `ftype` on `target` (a method or a pattern; '' for any)."""
    return Fault(type=ftype.name, target=target, attributes=attributes)
