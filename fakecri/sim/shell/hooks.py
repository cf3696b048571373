"""The shell's parts that call the ones above them, wired here at import (so that no module
imports another in a circle): fakecri.sim.shell.session sets them once everything is loaded.

- `simple`: runs a simple command (simple.py), for the tree walk (interp.py);
- `external`: runs a program by name from a script (session.py), for `exec` and `command`;
- `find_command`: the program a name names, for `type` and `command -v`;
- `path_of`: where a search of PATH finds a name no table knows, for `type`, `command -v`, `hash`;
- `applet_path`: whether a path with a `/` leads to a program (a file there, or a system bin directory);
- `builtins`, `special`: the builtins' table (builtins.py), for `type` and `command`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fakecri.sim.steps import Process

simple: Callable[..., Process] | None = None
external: Callable[..., Process] | None = None
find_command: Callable[..., Any] | None = None
path_of: Callable[..., Any] | None = None
applet_path: Callable[..., Any] | None = None
builtins: Mapping[str, Callable[..., Process]] = {}
special: frozenset[str] = frozenset()


def run_external(*args: Any, **kwargs: Any) -> Process:
    fn: Callable[..., Process] = get("external")
    return (yield from fn(*args, **kwargs))


def get(name: str) -> Callable[..., Any]:
    hook = globals()[name]
    if hook is None:
        raise RuntimeError(f"fakecri.sim.shell.hooks.{name} is not wired: import fakecri.sim.shell")
    fn: Callable[..., Any] = hook
    return fn
