"""Frozen records and specs to JSON-able data and back, checked on the way in.

`to_data` turns a dataclass (records, specs, resources) into dicts, lists and scalars;
`from_data(cls, data, where)` rebuilds it and raises `InvalidArgument` naming the path of
the first value that does not fit (`where.containers[3].spec.mounts[0].readonly: expected
a boolean, got "yes"`), so a damaged state file or checkpoint is refused whole, never
half-loaded. Enums travel by name; tuples of pairs as lists of pairs; mappings as objects.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from fakecri.engine.errors import InvalidArgument

T = TypeVar("T")
MAX_INT = 2**63 - 1  # what an int64 on the wire can hold


def to_data(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, tuple):
        return [to_data(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_data(v) for k, v in value.items()}
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def from_data(cls: type[T], data: Any, where: str) -> T:
    """`cls` (a dataclass) rebuilt from `to_data` output; fields left out take their defaults."""
    return typing.cast(T, _convert(cls, data, where))


def _fail(where: str, expected: str, value: Any) -> InvalidArgument:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return InvalidArgument(f"{where}: expected {expected}, got {shown}")


def _convert(hint: Any, value: Any, where: str) -> Any:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        options = get_args(hint)
        if value is None and type(None) in options:
            return None
        real = [o for o in options if o is not type(None)]
        return _convert(real[0], value, where)
    if origin is tuple:
        args = get_args(hint)
        if not isinstance(value, list):
            raise _fail(where, "a list", value)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise _fail(where, f"a list of {len(args)}", value)
        return tuple(_convert(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=False)))
    if origin in (dict, Mapping) or hint in (dict, Mapping) or origin is typing.Mapping:
        if not isinstance(value, dict):
            raise _fail(where, "an object", value)
        key_t, val_t = get_args(hint) or (str, str)
        return {_convert(key_t, k, f"{where} key"): _convert(val_t, v, f"{where}[{k!r}]") for k, v in value.items()}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        if not isinstance(value, dict):
            raise _fail(where, "an object", value)
        hints = _hints(hint)
        kwargs = {}
        for f in dataclasses.fields(hint):
            if f.name in value:
                kwargs[f.name] = _convert(hints[f.name], value[f.name], f"{where}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InvalidArgument(f"{where}: {f.name} is missing")
        return hint(**kwargs)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        if not isinstance(value, str) or value not in hint.__members__:
            raise _fail(where, "one of " + ", ".join(hint.__members__), value)
        return hint[value]
    if hint is bool:
        if not isinstance(value, bool):
            raise _fail(where, "a boolean", value)
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool) or not -MAX_INT - 1 <= value <= MAX_INT:
            raise _fail(where, "a 64-bit integer", value)
        return value
    if hint is str:
        if not isinstance(value, str):
            raise _fail(where, "a string", value)
        return value
    if hint is Any:
        return value
    raise TypeError(f"{where}: no conversion for {hint!r}")
