"""The `fakecri serve` flags that add faults, each declared by its fault type
(fakecri.faults.kinds; --faults by fakecri.faults.spec). From FAULT_FLAGS come the command
line's options and their help, the config-file and FAKECRI_* keys, the flag strings the
pytest marker and `FakeCRI.add_fault` accept, and the order faults are added in."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fakecri.faults.ftype import FaultFlag, FaultType
from fakecri.faults.kinds.drop_events import DROP_EVENTS
from fakecri.faults.kinds.error import ERROR
from fakecri.faults.kinds.latency import LATENCY
from fakecri.faults.kinds.quirk import QUIRK
from fakecri.faults.kinds.recipe import RECIPE
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.quirks import Quirk
from fakecri.faults.recipes import RECIPE_NAMES, RECIPES
from fakecri.faults.spec import FILE_FLAG

__all__ = ["BY_FLAG", "COMMA_KEYS", "FAULT_FLAGS", "STRING_FLAGS", "FaultFlag", "catalog_lines", "epilog",
           "faults_from", "parse_fault_flag"]


def _flag(ftype: FaultType) -> FaultFlag:
    flag = ftype.flag
    if flag is None:
        raise TypeError(f"fault type {ftype.name} has no serve flag")
    return flag


# In the order faults are added: each type's own flag, and the faults file among them.
FAULT_FLAGS: tuple[FaultFlag, ...] = (
    _flag(DROP_EVENTS), _flag(LATENCY), _flag(ERROR), FILE_FLAG, _flag(QUIRK), _flag(RECIPE),
)
# The config-file keys whose one string holds several comma-separated values (a file may give a list).
COMMA_KEYS: tuple[str, ...] = tuple(f.key for f in FAULT_FLAGS if f.comma_list)
BY_FLAG: dict[str, FaultFlag] = {f.flag: f for f in FAULT_FLAGS}
STRING_FLAGS: tuple[str, ...] = tuple(f.flag for f in FAULT_FLAGS if f.in_strings)


def parse_fault_flag(flag: str, value: Any) -> list[Fault]:
    """The faults one flag value asks for; FaultSpecError (or OSError for a file) if it is bad."""
    return BY_FLAG[flag].parse(value)


def faults_from(values: Mapping[str, Any]) -> list[Fault]:
    """Every fault the flags' values ask for (by key: `latency`, ...; a list for a flag given
    more than once), in the registry's order. FaultSpecError names the flag of a bad value."""
    out: list[Fault] = []
    for f in FAULT_FLAGS:
        given = values.get(f.key)
        items: Iterable[Any] = given if f.multiple and isinstance(given, (list, tuple)) else [given]
        for value in items:
            if not value:
                continue
            try:
                out.extend(f.parse(value))
            except FaultSpecError as exc:
                raise FaultSpecError(str(exc), flag=f.flag) from None
            except OSError as exc:  # a faults file that cannot be read
                raise FaultSpecError(f"{value}: cannot read it: {exc.strerror or exc}", flag=f.flag) from None
    return out


def catalog_lines() -> list[str]:
    """One line per quirk and per recipe with its upstream references, for `fakecri quirks`
    and the help (docs/bug-lab.md shows what a real kubelet does with each)."""
    width = max(len(n) for n in (*[q.value for q in Quirk], *RECIPE_NAMES))
    lines = ["Quirks (--quirks NAME):"]
    lines += [f"  {q.value:<{width}}  {q.references}" for q in Quirk]
    lines.append("Recipes (--recipe NAME):")
    lines += [f"  {r.name:<{width}}  {r.references}" for r in RECIPES.values()]
    return lines


def epilog() -> str:
    """The fault part of `fakecri serve --help`."""
    lines = "\n".join("  " + f.example for f in FAULT_FLAGS)
    catalog = "\n".join(catalog_lines())
    return (f"\b\nFault flags (toxicity is per call or per event; see docs/faults.md):\n{lines}\n\n"
            f"\b\n{catalog}\n")
