"""The `fakecri serve` flags that add faults: one registry from which the command line's
options and their help, the config-file and FAKECRI_* keys, the flag strings the pytest
marker and `FakeCRI.add_fault` accept, and the order faults are added in all come."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fakecri.faults.model import Fault, FaultSpecError
from fakecri.faults.quirks import QUIRK_NAMES, Quirk
from fakecri.faults.recipes import RECIPE_NAMES, RECIPES, parse_recipes
from fakecri.faults.spec import load_faults_file, parse_drop_events, parse_error, parse_latency, parse_quirks


@dataclass(frozen=True)
class FaultFlag:
    flag: str  # "--latency"
    help: str  # one line for --help
    example: str  # what the help's epilog shows, with its meaning
    parse: Callable[[Any], list[Fault]]  # one value -> the faults it asks for
    multiple: bool = False  # may be given more than once
    is_file: bool = False  # its value names a file
    in_strings: bool = True  # may be written as a flag string (a marker, FakeCRI.add_fault)

    @property
    def key(self) -> str:
        """The option's name in a config file and, upper-cased, after FAKECRI_."""
        return self.flag.removeprefix("--").replace("-", "_")


# In the order faults are added.
FAULT_FLAGS: tuple[FaultFlag, ...] = (
    FaultFlag("--drop-events", "Drop this share of events on every event stream, decided per event: 5% or 0.05.",
              "--drop-events 5%                         drop 5% of events, per subscriber",
              lambda value: [parse_drop_events(value)]),
    FaultFlag("--latency", "Delay calls: METHOD[/after]=DELAY[±JITTER][@PCT][#N], e.g. 'ListContainers=200ms±50ms'; "
                           "METHOD may be a glob; comma-separate or repeat.",
              "--latency 'ListContainers=200ms±50ms'    fixed latency plus jitter (also +-; globs)",
              parse_latency, multiple=True),
    FaultFlag("--error", "Fail calls: METHOD[/after]=CODE[@PCT][#N][:MESSAGE], e.g. 'RunPodSandbox=UNAVAILABLE@10%'; "
                         "/after runs the call and loses the reply; comma-separate or repeat.",
              "--error 'RunPodSandbox=UNAVAILABLE@10%'  fail 10% of calls with that code",
              parse_error, multiple=True),
    FaultFlag("--faults", "Load faults from a YAML or JSON file: a list of mappings with the keys name, type, "
                          "target, stage, toxicity, count, attributes.",
              "--faults FILE                            YAML or JSON list of faults",
              load_faults_file, is_file=True, in_strings=False),
    FaultFlag("--quirks", "Switch on real-runtime quirks, comma-separated: " + ", ".join(QUIRK_NAMES) + ".",
              "--quirks NAME,...                        real runtimes' bugs, e.g. stopped-before-started",
              parse_quirks),
    FaultFlag("--recipe", "Add named fault recipes, comma-separated: " + ", ".join(RECIPE_NAMES)
              + " (see 'fakecri quirks').",
              "--recipe NAME,...                        named faults that replay a known bug, e.g. events-disabled",
              parse_recipes),
)
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
