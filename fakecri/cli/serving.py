"""`fakecri serve`: one option per ServerConfig field (from the field's metadata), the
fault flags, logging; the ready and shutdown lines."""
from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

import click

from fakecri import __version__
from fakecri.cli.group import SettingsCommand, main
from fakecri.cli.values import DEFAULT_SOCKET, VALUE_TYPES, SocketPath

if TYPE_CHECKING:
    from dataclasses import Field

    from fakecri.faults.model import Fault
    from fakecri.server.config import FarmConfig, ServerConfig

SETTINGS_HELP = """
\b
Every option can also be set in the --config file (key socket_mode for --socket-mode) or
as a FAKECRI_* variable (FAKECRI_SOCKET_MODE); flags win over variables, which win over
the file. A missing directory for --socket is created (the ready line says so).
"""


class _OptionArgs(TypedDict, total=False):
    """What `_option_for` gives click.option for a field."""

    help: str | None
    type: click.ParamType[object]
    metavar: str
    is_flag: bool
    multiple: bool
    default: object
    show_default: bool


def _option_for(f: Field[Any]) -> tuple[list[str], _OptionArgs]:
    """The `fakecri serve` option for one ServerConfig field, from its metadata."""
    meta = f.metadata
    kwargs: _OptionArgs = {"help": meta.get("help") or None}
    hint = str(f.type)
    default = f.default
    if f.name in ("socket", "control_socket"):
        kwargs["type"] = SocketPath()
        kwargs["metavar"] = "PATH"
        if f.name == "socket":
            kwargs["help"] = f"Unix socket to serve CRI on (default {DEFAULT_SOCKET} unless --listen is given)."
    elif meta.get("kind"):
        kwargs["type"] = VALUE_TYPES[meta["kind"]]
    elif meta.get("choices"):
        kwargs["type"] = click.Choice(list(meta["choices"]))
    elif hint.startswith("int"):
        bounded = meta.get("minimum") is not None or meta.get("maximum") is not None
        kwargs["type"] = click.IntRange(min=meta.get("minimum"), max=meta.get("maximum")) if bounded else click.INT
        kwargs["metavar"] = "N"
    if hint == "bool":
        kwargs["is_flag"] = True
    elif hint.startswith("tuple"):
        kwargs["multiple"] = True
        default = ()
    if meta.get("metavar"):
        kwargs["metavar"] = meta["metavar"]
    if default is not None and default != () and not kwargs.get("is_flag"):
        kwargs["default"] = f"{default:04o}" if meta.get("kind") == "mode" else default
        kwargs["show_default"] = True
    return [meta.get("flag") or "--" + f.name.replace("_", "-"), f.name], kwargs


def _config_options(fn: _F) -> _F:
    """One option per ServerConfig field, then per FarmConfig field, in the order of the fields."""
    from fakecri.server.config import cli_fields, farm_fields

    for f in reversed(cli_fields() + farm_fields()):
        decls, kwargs = _option_for(f)
        fn = click.option(*decls, **kwargs)(fn)
    return fn


def _config_from_options(opts: Mapping[str, Any], faults: list[Fault]) -> ServerConfig:
    """The ServerConfig the options describe (every field not given keeps its default)."""
    from fakecri.server.config import ServerConfig, cli_fields

    values = {f.name: opts[f.name] for f in cli_fields()}
    handlers = tuple(values.pop("runtime_handlers"))
    if handlers:
        values["runtime_handlers"] = handlers if "" in handlers else ("",) + handlers
    return ServerConfig(faults=faults, **values)


def _farm_from_options(opts: Mapping[str, Any]) -> FarmConfig:
    """The FarmConfig the options describe; its `nodes` is None unless a farm was asked for."""
    from fakecri.server.config import FarmConfig, farm_fields

    return FarmConfig(**{f.name: opts[f.name] for f in farm_fields()})


def _build_faults(opts: Mapping[str, Any]) -> list[Fault]:
    """Fault objects from the flags; a bad value names its flag and says what was expected."""
    from fakecri.faults.flags import faults_from
    from fakecri.faults.model import FaultSpecError

    try:
        return faults_from(opts)
    except FaultSpecError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{exc.flag}'" if exc.flag else None) from None


_F = TypeVar("_F", bound=Callable[..., Any])


def _fault_options(fn: _F) -> _F:
    """One option per fault flag, each declared by its fault type (fakecri.faults.flags)."""
    from fakecri.faults.flags import FAULT_FLAGS

    for f in reversed(FAULT_FLAGS):
        path = click.Path(exists=True, dir_okay=False) if f.is_file else None
        fn = click.option(f.flag, f.key, help=f.help, multiple=f.multiple, type=path)(fn)
    return fn


def _epilog() -> str:
    from fakecri.faults.flags import epilog

    return epilog() + SETTINGS_HELP


@main.command(cls=SettingsCommand, epilog=_epilog())
@click.option("--config", "config", type=click.Path(dir_okay=False),
              help="TOML, YAML or JSON file with the same keys as these options.")
@_config_options
@_fault_options
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True,
              help="Lowest level logged; info and debug log one line per CRI call. The ready and shutdown lines "
                   "show at every level.")
@click.option("--log-format", type=click.Choice(["auto", "console", "json"]), default="auto", show_default=True,
              help="auto: console lines on a terminal, one JSON object per line otherwise.")
def serve(**opts: Any) -> None:  # every option by name, as click passes them
    """Serve CRI v1 RuntimeService and ImageService on a unix socket (and optionally TCP)."""
    from fakecri.logs import announce, configure_logging
    from fakecri.server.process.app import FakeCRIServer
    from fakecri.server.process.farm import check_farm

    configure_logging(opts["log_format"], opts["log_level"])
    farm = _farm_from_options(opts)
    if not opts["socket"] and not opts["listen"] and farm.nodes is None:
        opts["socket"] = DEFAULT_SOCKET
    faults = _build_faults(opts)
    config = _config_from_options(opts, faults)
    config.log_rpcs = opts["log_level"] in ("debug", "info")
    try:
        if farm.nodes is None:
            config.validate()
        check_farm(config, farm)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if farm.nodes is not None:
        _run(_serve_farm(config, farm))
        return
    server = FakeCRIServer(config)

    async def run() -> None:
        await server.start_async()
        loop = asyncio.get_running_loop()

        def on_signal(sig: signal.Signals) -> None:
            announce("fakecri shutting down", signal=sig.name)
            asyncio.ensure_future(server.stop_async())

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal, sig)
        addresses = server.addresses()
        announce(f"fakecri {__version__} serving on {server.endpoint} (seed {config.seed})",
                 endpoint=server.endpoint, version=__version__, seed=config.seed, **addresses)
        await server.serve_forever()
        announce("fakecri stopped")

    _run(run())


def _run(main_coroutine: Coroutine[Any, Any, None]) -> None:
    """Run `serve` to its end; a server that cannot start ends with one line naming the setting."""
    from fakecri.server.exceptions import SettingError, StartupError

    try:
        asyncio.run(main_coroutine)
    except SettingError as exc:
        flag = "--" + exc.setting.replace("_", "-")
        raise click.BadParameter(exc.message, param_hint=f"'{flag}'") from None
    except StartupError as exc:
        raise click.ClickException(str(exc)) from None


async def _serve_farm(config: ServerConfig, farm_config: FarmConfig) -> None:
    """`serve --nodes N`: the farm's nodes on one loop until SIGTERM or SIGINT."""
    from fakecri.logs import announce
    from fakecri.server.process.farm import Farm

    farm = Farm(config, farm_config)
    await farm.start_async()
    loop = asyncio.get_running_loop()

    def on_signal(sig: signal.Signals) -> None:
        announce("fakecri shutting down", signal=sig.name)
        asyncio.ensure_future(farm.stop_async())

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    announce(f"fakecri {__version__} serving {len(farm.servers)} nodes in {farm.socket_dir} (seed {config.seed})",
             version=__version__, seed=config.seed, nodes=sorted(farm.servers), **farm.addresses())
    await farm.serve_forever()
    announce("fakecri stopped")
