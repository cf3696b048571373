"""What the built-in functions and the streams ask of the running program (`interp.Interp`),
as a Protocol: they are handed the interpreter in each call and never import it, so the
evaluator's modules import one way."""
from __future__ import annotations

from collections.abc import Generator
from typing import Any, Protocol

from fakecri.sim.applets.awk import ast as a
from fakecri.sim.applets.awk.records import AwkArray
from fakecri.sim.applets.awk.values import Value

Slot = Value | AwkArray
Place = tuple[a.Expr, float | str | None]  # an lvalue and its field number or subscript


class Machine(Protocol):
    """The interpreter's state and evaluation, as the built-ins and the streams use them."""

    vars: dict[str, Slot]
    frames: list[list[Slot]]
    record: str
    seed: float
    rng: Any

    @property
    def streams(self) -> Any: ...  # the program's `streams.Streams` (typed Any: it holds a Machine)

    def get(self, name: str) -> Value: ...

    def put(self, name: str, value: Value) -> None: ...

    def ev(self, e: a.Expr) -> Generator[Any, Any, Value]: ...

    def str_of(self, v: Value) -> str: ...

    def str_var(self, name: str) -> str: ...

    def array(self, ref: a.Var | a.Local) -> AwkArray: ...

    def regex(self, v: Value | a.Regex) -> Any: ...

    def place(self, target: a.Expr) -> Generator[Any, Any, Place]: ...

    def load(self, place: Place) -> Value: ...

    def store(self, place: Place, value: Value) -> None: ...

    def format(self, fmt: str, args: list[Value]) -> str: ...

    def format_args(self, fmt: str, args: list[a.Expr]) -> Generator[Any, Any, list[Value]]: ...
