"""The serve flags that add faults, and how each one is read: one table for the command
line (`fakecri serve --latency ...`) and for the flag strings the pytest marker and
`FakeCRI.add_fault("--latency ...")` accept."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakecri.faults.model import Fault
from fakecri.faults.spec import load_faults_file, parse_drop_events, parse_error, parse_latency, parse_quirks


def _drop_events(value: str) -> list[Fault]:
    return [parse_drop_events(value)]


# Flag -> parser of one value (a list of Faults); the order is the order faults are added in.
FAULT_FLAGS: dict[str, Callable[[Any], list[Fault]]] = {
    "--drop-events": _drop_events,
    "--latency": parse_latency,
    "--error": parse_error,
    "--faults": load_faults_file,
    "--quirks": parse_quirks,
}

# The flags a fault can be written as in a string (a file name means little in a test marker).
STRING_FLAGS = ("--drop-events", "--latency", "--error", "--quirks")


def parse_fault_flag(flag: str, value: Any) -> list[Fault]:
    """The faults one flag value asks for; FaultSpecError (or OSError for a file) if it is bad."""
    return FAULT_FLAGS[flag](value)
