"""The `fakecri` command group, and how it ends on bad input: one line, no traceback."""
from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from fakecri import __version__


def _settings_default_map(command: SettingsCommand, args: list[str]) -> dict[str, object]:
    """Defaults from --config FILE and FAKECRI_* variables (flags still win); a bad value is an
    error naming the file and key, or the variable. The file has the keys of `command.keys_from`
    (serve's, for health), of which the command takes the ones it has too."""
    from fakecri.faults.flags import COMMA_KEYS  # the fault flags that take comma-separated names
    from fakecri.settings import SettingsError, load_settings, schema_from_click

    config_path = None
    for i, arg in enumerate(args):
        if arg == "--config" and i + 1 < len(args):
            config_path = args[i + 1]
        elif arg.startswith("--config="):
            config_path = arg.split("=", 1)[1]
    origins: dict[str, str] = {}
    warnings: list[str] = []
    try:
        settings = load_settings(config_path, os.environ, **schema_from_click(command.keys_from or command),
                                 comma_keys=COMMA_KEYS, origins=origins, warnings=warnings)
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
    for line in warnings:
        click.echo(line, err=True)
    params = {p.name: p for p in command.params}
    settings = {key: value for key, value in settings.items() if key in params}
    for key, value in settings.items():
        param = params[key]
        try:
            for item in (value if param.multiple else [value]):
                _whole_if_integer(param, item)
                param.type.convert(item, param, None)
        except click.BadParameter as exc:
            raise click.UsageError(f"{origins[key]}: {exc.message}") from None
    return settings


def _whole_if_integer(param: click.Parameter, value: object) -> None:
    """A file's 1.5 or true for an integer option is a mistake, not 1 (as click would read it)."""
    if isinstance(param.type, click.types.IntParamType) and isinstance(value, (bool, float)):
        raise click.BadParameter(f"{value!r} is not a whole number")


def one_line(message: str) -> str:
    """A message on one line, whatever produced it (a parser that quotes the offending lines)."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip() and set(part.strip()) != {"^"})


class SettingsCommand(click.Command):
    """A command whose options also come from --config FILE and FAKECRI_* variables;
    `keys_from` names the command whose options the file's keys are (default: this one)."""

    def __init__(self, name: str | None, *, keys_from: click.Command | None = None, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)  # kwargs: click.Command's own (callback, params, help, ...)
        self.keys_from = keys_from

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        extra.setdefault("default_map", _settings_default_map(self, list(args)))
        return super().make_context(info_name, args, parent=parent, **extra)


class _OneLineErrors(click.Group):
    """Bad input ends with one line on stderr that names the option (or file and key), exit 2;
    a server that cannot start with one line too, exit 1. No usage block, no traceback.
    `main` always runs click's non-standalone mode (whatever `standalone_mode` says) and exits."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> NoReturn:
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False,
                              windows_expand_args=windows_expand_args, **extra)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            click.echo(f"Error: {one_line(exc.format_message())}{hint}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"Error: {one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


# Each command, and the module that registers it on `main` when imported.
COMMAND_MODULES = {
    "serve": "fakecri.cli.serving", "ctl": "fakecri.cli.control", "watch": "fakecri.cli.observe",
    "health": "fakecri.cli.observe", "version": "fakecri.cli.observe", "conformance": "fakecri.cli.conformance",
    "quirks": "fakecri.cli.catalog", "fault-types": "fakecri.cli.catalog",
}


class _LazyGroup(_OneLineErrors):
    """Imports a command's module when the command is asked for, not before."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMAND_MODULES) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(COMMAND_MODULES[cmd_name])
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup)
@click.version_option(__version__, prog_name="fakecri")
def main() -> None:
    """A fake Kubernetes CRI runtime for conformance and fault testing."""

