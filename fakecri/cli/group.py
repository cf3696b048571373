"""The `fakecri` command group, and how it ends on bad input: one line, no traceback."""
from __future__ import annotations

import os
import sys

import click

from fakecri import __version__

# Keys that take several comma-separated values in one string; a file may give them as a list.
COMMA_KEYS = ("quirks", "recipe")


def _settings_default_map(command: SettingsCommand, args: list[str]) -> dict:
    """Defaults from --config FILE and FAKECRI_* variables (flags still win); a bad value is an
    error naming the file and key, or the variable. The file has the keys of `command.keys_from`
    (serve's, for health), of which the command takes the ones it has too."""
    from fakecri.settings import SettingsError, load_settings, schema_from_click

    config_path = None
    for i, arg in enumerate(args):
        if arg == "--config" and i + 1 < len(args):
            config_path = args[i + 1]
        elif arg.startswith("--config="):
            config_path = arg.split("=", 1)[1]
    origins: dict[str, str] = {}
    try:
        settings = load_settings(config_path, os.environ, **schema_from_click(command.keys_from or command),
                                 comma_keys=COMMA_KEYS, origins=origins)
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
    params = {p.name: p for p in command.params}
    settings = {key: value for key, value in settings.items() if key in params}
    for key, value in settings.items():
        param = params[key]
        try:
            for item in (value if param.multiple else [value]):
                param.type.convert(item, param, None)
        except click.BadParameter as exc:
            raise click.UsageError(f"{origins[key]}: {exc.message}") from None
    return settings


class SettingsCommand(click.Command):
    """A command whose options also come from --config FILE and FAKECRI_* variables;
    `keys_from` names the command whose options the file's keys are (default: this one)."""

    def __init__(self, *args, keys_from: click.Command | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.keys_from = keys_from

    def make_context(self, info_name, args, parent=None, **extra):
        extra.setdefault("default_map", _settings_default_map(self, list(args)))
        return super().make_context(info_name, args, parent=parent, **extra)


class _OneLineErrors(click.Group):
    """Bad input ends with one line on stderr that names the option (or file and key), exit 2;
    a server that cannot start with one line too, exit 1. No usage block, no traceback."""

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        try:
            rv = super().main(*args, **kwargs)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            click.echo(f"Error: {exc.format_message()}{hint}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"Error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=_OneLineErrors)
@click.version_option(__version__, prog_name="fakecri")
def main() -> None:
    """A fake Kubernetes CRI runtime for conformance and fault testing."""

