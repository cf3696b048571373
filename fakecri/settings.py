"""Settings from a config file and FAKECRI_* environment variables.

Both use the keys of the `fakecri serve` flags: `--drop-events` is the key
`drop_events` in a file and `FAKECRI_DROP_EVENTS` in the environment. The result
is meant as click's `default_map`, so flags win over the environment, which wins
over the file.

    # fakecri.toml                      # fakecri.yaml
    seed = 7                            seed: 7
    drop_events = "5%"                  drop_events: 5%
    latency = ["ListContainers=200ms"]  latency: [ListContainers=200ms]

A file is TOML (`.toml`), YAML (`.yaml`, `.yml`) or JSON (`.json`). Repeatable
flags take a list in a file and comma-separated values in the environment; a flag
that takes one comma-separated value (`--quirks a,b`) may be a list in a file too.
A value that does not fit its flag is reported with the file and key, or the
variable, it came from.
Unknown keys in a file are errors, with the nearest key suggested. Unknown FAKECRI_*
variables are not errors, since other commands (and the pytest plugin) read variables
of their own; but one that looks like a misspelt setting (FAKECRI_SEEED) is named in a
warning, with the setting it resembles.
Without --config, FAKECRI_CONFIG names the file.
"""
from __future__ import annotations

import json
import tomllib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from fakecri.faults.values import suggest

ENV_PREFIX = "FAKECRI_"
CONFIG_ENV = ENV_PREFIX + "CONFIG"
_SCALARS = (str, int, float, bool)


class SettingsError(ValueError):
    """A config file or variable that cannot be used; the message names it."""


def key_for_flag(flag: str) -> str:
    """`--drop-events` -> `drop_events`."""
    return flag.lstrip("-").replace("-", "_")


def env_name(key: str) -> str:
    """`drop_events` -> `FAKECRI_DROP_EVENTS`."""
    return ENV_PREFIX + key.upper()


def schema_from_click(command: Any, exclude: Collection[str] = ("config",)) -> dict[str, Any]:
    """`known_keys`, `list_keys` and `aliases` for `load_settings`, read from a
    click command: a repeatable option is a list key, and a flag whose name differs
    from its parameter (`--name` stored as `other_name`) gets an alias."""
    known, lists, aliases = set(), set(), {}
    for param in command.params:
        if param.name in exclude or not getattr(param, "opts", None):
            continue
        known.add(param.name)
        if getattr(param, "multiple", False):
            lists.add(param.name)
        for opt in param.opts:
            key = key_for_flag(opt)
            if opt.startswith("--") and key != param.name:
                aliases[key] = param.name
    return {"known_keys": known, "list_keys": lists, "aliases": aliases}


def load_settings(
    config_path: str | None,
    environ: Mapping[str, str],
    known_keys: Collection[str],
    *,
    list_keys: Collection[str] = (),
    aliases: Mapping[str, str] | None = None,
    comma_keys: Collection[str] = (),
    origins: dict[str, str] | None = None,
    warnings: list[str] | None = None,
) -> dict[str, Any]:
    """Settings from the file (if any) with the environment merged over them.

    Keys in the result are `known_keys` names; `aliases` maps other accepted
    names (flag spellings) onto them. A `comma_keys` key takes one comma-separated
    string; a file may give it as a list. `origins`, if given, is filled with where
    each key's value came from ("config file F: key 'k'" or "FAKECRI_K"), for errors.
    `warnings`, if given, gets one line per FAKECRI_* variable that is no setting but
    looks like a misspelt one."""
    known = set(known_keys)
    names = {**{k: k for k in known}, **(aliases or {})}
    path = config_path or environ.get(CONFIG_ENV) or None
    settings: dict[str, Any] = {}
    if path:
        for raw_key, value in _read_file(path).items():
            key = _canonical(raw_key, names)
            if key is None:
                hint = suggest(str(raw_key).replace("-", "_"), sorted(names))
                raise SettingsError(
                    f"config file {path}: unknown key {raw_key!r}{hint}; known: {', '.join(sorted(names))}"
                )
            if value is None:
                continue
            where = f"config file {path}: key {raw_key!r}"
            if key in comma_keys and isinstance(value, list) and all(isinstance(v, str) for v in value):
                value = ",".join(value)
            settings[key] = _file_value(value, key in list_keys, where)
            if origins is not None:
                origins[key] = where
    for var, value in environ.items():
        if not var.startswith(ENV_PREFIX) or var == CONFIG_ENV or value == "":
            continue
        key = _canonical(var[len(ENV_PREFIX):].lower(), names)
        if key is None:
            if warnings is not None:
                hint = suggest(var[len(ENV_PREFIX):], sorted(n.upper() for n in names))
                if hint:
                    hint = hint.replace("did you mean ", "did you mean " + ENV_PREFIX)
                    warnings.append(f"warning: {var} is not a fakecri setting{hint}; it is ignored")
            continue
        settings[key] = [v.strip() for v in value.split(",") if v.strip()] if key in list_keys else value
        if origins is not None:
            origins[key] = f"environment variable {var}"
    return settings


def _canonical(raw: str, names: Mapping[str, str]) -> str | None:
    return names.get(raw.replace("-", "_")) if isinstance(raw, str) else None


def _file_value(value: Any, is_list: bool, where: str) -> Any:
    if isinstance(value, list):
        if not is_list:
            raise SettingsError(f"{where} takes one value, not a list")
        if not all(isinstance(v, _SCALARS) for v in value):
            raise SettingsError(f"{where} must be a list of plain values (strings or numbers)")
        return list(value)
    if not isinstance(value, _SCALARS):
        raise SettingsError(f"{where} must be a string, number or boolean, not a {type(value).__name__}")
    return [value] if is_list else value


def _read_file(path: str) -> dict[str, Any]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise SettingsError(f"config file {path}: cannot read it: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        byte = e.object[e.start]
        raise SettingsError(f"config file {path}: not UTF-8 text (byte {e.start} is {byte:#04x})") from None
    suffix = p.suffix.lower()
    import yaml  # only YAML files need it (10 ms of every start otherwise)

    try:
        if suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif suffix in (".yaml", ".yml"):
            data = yaml.safe_load(text)
        elif suffix == ".json":
            data = json.loads(text)
        else:
            raise SettingsError(f"config file {path}: use a .toml, .yaml, .yml or .json file")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise SettingsError(f"config file {path}: not valid {suffix[1:].upper()}: {e}") from None
    except yaml.YAMLError as e:
        raise SettingsError(f"config file {path}: not valid YAML: {yaml_problem(e)}") from None
    except RecursionError:
        raise SettingsError(f"config file {path}: nested too deeply to be a config file") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"config file {path}: the top level must be a table of keys")
    return data


def yaml_problem(error: Exception) -> str:
    """A YAML error in one line: what went wrong and where (PyYAML's own text spans several
    lines, with the offending lines quoted)."""
    problem = getattr(error, "problem", None)
    mark = getattr(error, "problem_mark", None)
    if not problem:
        return " ".join(str(error).split())
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    context = getattr(error, "context", None)
    return f"{problem}{where}" + (f" ({context})" if context else "")
