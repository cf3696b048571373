"""The corpus: everyday scripts in tests/oracle/corpus/CATEGORY.sh. Each script starts at a
line `### NAME` (`### NAME !stderr` to leave its stderr out of the comparison) and runs to
the next such line; only the script is stored: what it should give is what busybox gives.
`### NAME TERM@S` (or `TERM@S/GRACE`) stops the script as a runtime stops a container: SIGTERM
S seconds after its start, SIGKILL GRACE seconds (2) later if it still runs."""
from __future__ import annotations

import re
from pathlib import Path

from .compare import Case

CORPUS = Path(__file__).parent / "corpus"
_STOP = re.compile(r"TERM@(\d+(?:\.\d+)?)(?:/(\d+(?:\.\d+)?))?")

# Which helper's code a category exercises (what the mismatch notes file them under); a
# category not named here is the shell's (syntax, expansion, builtins).
OWNERS = {
    "text": "applets",
    "sed": "applets",
    "usage": "applets",
    "files": "applets",
    "system": "applets",
    "awk": "awk",
    "files-find": "awk",
    "generated": "shell",
}


def parse(text: str, category: str) -> list[Case]:
    cases: list[Case] = []
    name: str | None = None
    flags: list[str] = []
    body: list[str] = []

    def flush() -> None:
        if name is not None:
            script = "\n".join(body).strip("\n")
            if not script:
                raise ValueError(f"{category}/{name}: empty script")
            stop = [m for m in map(_STOP.fullmatch, flags) if m]
            after, grace = (float(stop[0][1]), float(stop[0][2] or 2)) if stop else (None, 2.0)
            cases.append(Case(f"{category}/{name}", category, script, stderr="!stderr" not in flags,
                              signal_after_s=after, grace_s=grace))

    for line in text.splitlines():
        if line.startswith("### "):
            flush()
            name, *flags = line[4:].split()
            body = []
        elif name is not None:
            body.append(line)
        elif line.strip() and not line.startswith("#"):
            raise ValueError(f"{category}: text before the first ### line: {line!r}")
    flush()
    return cases


def load() -> list[Case]:
    cases = [c for path in sorted(CORPUS.glob("*.sh")) for c in parse(path.read_text(), path.stem)]
    names = [c.name for c in cases]
    duplicated = {n for n in names if names.count(n) > 1}
    if duplicated:
        raise ValueError(f"corpus names used twice: {sorted(duplicated)}")
    return cases
