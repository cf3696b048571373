"""The `fakecri` command: serve, ctl, watch, health, version, conformance, quirks, fault-types.

`group.py` holds the command group and its one-line errors, `values.py` the option values
the commands share, and one module each the commands: `serving.py` (serve), `observe.py`
(watch, health, version), `control.py` (ctl), `conformance.py` (conformance), `catalog.py`
(quirks, fault-types). The group imports a command's module only when that command runs or help lists
it, so `fakecri serve` starts without loading the clients, the conformance suite or ctl.
"""
from __future__ import annotations

from typing import Any

from fakecri.cli.group import main

__all__ = ["main", "serve"]


def __getattr__(name: str) -> Any:
    if name == "serve":
        from fakecri.cli.serving import serve

        return serve
    raise AttributeError(f"module 'fakecri.cli' has no attribute {name!r}")
