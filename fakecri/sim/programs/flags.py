"""Command lines as Go programs built on cobra and pflag read them (agnhost is one).

`--name=value` and `--name value`, a bare `--flag` for a boolean, `_` read as `-` in names
(Kubernetes' word-separator normalisation), flags and arguments mixed, `--` ending the
flags; the logging flags every Kubernetes command accepts (`-v`, `--vmodule`...). Errors
carry pflag's wording. Also Go's duration syntax (`1m30s`), which the programs' flags and
query parameters use.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

INT, STRING, BOOL = "int", "string", "bool"
# What k8s.io/component-base adds to every command (logs.AddFlags): accepted, not modelled.
LOGGING_FLAGS = {"v": INT, "vmodule": STRING, "log-flush-frequency": STRING, "logging-format": STRING,
                 "log-json-split-stream": BOOL, "log-json-info-buffer-size": STRING,
                 "log-text-split-stream": BOOL, "log-text-info-buffer-size": STRING}


@dataclass(frozen=True, slots=True)
class Flag:
    kind: str  # INT, STRING or BOOL
    default: int | str | bool


class FlagError(Exception):
    """A command line the program refuses, with pflag's words."""


class HelpAsked(Exception):
    """`-h` / `--help`: the program prints its help and exits 0."""


def _value(name: str, kind: str, text: str) -> int | str | bool:
    if kind == INT:
        try:
            return int(text, 0) if text.lower().startswith(("0x", "0o", "0b")) else int(text)
        except ValueError:
            raise FlagError(f'invalid argument "{text}" for "--{name}" flag: strconv.ParseInt: '
                            f'parsing "{text}": invalid syntax') from None
    if kind == BOOL:
        low = text.lower()
        if low in ("1", "t", "true"):
            return True
        if low in ("0", "f", "false"):
            return False
        raise FlagError(f'invalid argument "{text}" for "--{name}" flag: strconv.ParseBool: '
                        f'parsing "{text}": invalid syntax')
    return text


def parse(args: Sequence[str], flags: Mapping[str, Flag]) -> tuple[dict[str, int | str | bool], list[str]]:
    """(every flag's value, the positional arguments) of `args`; FlagError or HelpAsked."""
    values: dict[str, int | str | bool] = {name: f.default for name, f in flags.items()}
    positional: list[str] = []
    rest = list(args)
    while rest:
        word = rest.pop(0)
        if word == "--":
            positional += rest
            break
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        long = word.startswith("--")
        name, eq, text = word[2 if long else 1:].partition("=")
        name = name.replace("_", "-")
        if name in ("h", "help"):
            raise HelpAsked()
        if not long and len(name) > 1 and name[0] == "v" and not eq:  # -v2
            name, eq, text = "v", "=", name[1:]
        kind = flags[name].kind if name in flags else LOGGING_FLAGS.get(name)
        if kind is None or (not long and name != "v"):
            raise FlagError(f"unknown flag: --{name}" if long else f"unknown shorthand flag: '{name[:1]}' in {word}")
        if not eq:
            if kind == BOOL:
                text = "true"
            elif rest:
                text = rest.pop(0)
            else:
                raise FlagError(f"flag needs an argument: --{name}" if long else
                                f"flag needs an argument: '{name}' in -{name}")
        value = _value(name, kind, text)
        if name in flags:
            values[name] = value
    return values, positional


_DURATION = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)")
_UNIT_S = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def go_duration(text: str) -> float:
    """Seconds in a Go duration (`300ms`, `1m30s`, `-1s`, `0`); ValueError on anything else."""
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == "0":
        return 0.0
    if not body:
        raise ValueError(f"time: invalid duration {text!r}")
    total, at = 0.0, 0
    for m in _DURATION.finditer(body):
        if m.start() != at:
            break
        total += float(m.group(1)) * _UNIT_S[m.group(2)]
        at = m.end()
    if at != len(body):
        raise ValueError(f"time: invalid duration {text!r}")
    return sign * total


def go_duration_string(seconds: float) -> str:
    """A duration as Go's Duration.String prints it (`1m30s`, `1.5s`, `250ms`, `0s`)."""
    ns = round(seconds * 1e9)
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size:
                return sign + _trim(ns / size) + unit
    h, rem = divmod(ns, 3_600_000_000_000)
    m, rem = divmod(rem, 60_000_000_000)
    out = (f"{h}h" if h else "") + (f"{m}m" if h or m else "")
    return sign + out + _trim(rem / 1e9) + "s"


def _trim(value: float) -> str:
    return f"{value:.9f}".rstrip("0").rstrip(".")
