"""The `fakecri` command: serve, ctl, watch, conformance, health, version."""
from __future__ import annotations

import asyncio
import functools
import json
import os
import signal
import sys

import click

from fakecri import __version__

FAULT_HELP = """
\b
Fault flags (toxicity is per call or per event; see docs/faults.md):
  --drop-events 5%                       drop 5% of events, per subscriber
  --latency 'ListContainers=200ms±50ms'  fixed latency plus jitter (also +-; globs)
  --error 'RunPodSandbox=UNAVAILABLE@10%' fail 10% of calls with that code
  --faults FILE                          YAML or JSON list of faults
  --quirks NAME,...                      real runtimes' bugs, e.g. stopped-before-started

\b
Every option can also be set in the --config file (key socket_mode for --socket-mode) or
as a FAKECRI_* variable (FAKECRI_SOCKET_MODE); flags win over variables, which win over
the file. A missing directory for --socket is created (the ready line says so).
"""

# Keys that take several comma-separated values in one string; a file may give them as a list.
COMMA_KEYS = ("quirks",)


def _settings_default_map(command: click.Command, args: list[str]) -> dict:
    """Defaults from --config FILE and FAKECRI_* variables (flags still win); a bad value is an
    error naming the file and key, or the variable. The file has `serve`'s keys; another command
    (health) takes the ones it shares with serve."""
    from fakecri.settings import SettingsError, load_settings, schema_from_click

    config_path = None
    for i, arg in enumerate(args):
        if arg == "--config" and i + 1 < len(args):
            config_path = args[i + 1]
        elif arg.startswith("--config="):
            config_path = arg.split("=", 1)[1]
    origins: dict[str, str] = {}
    try:
        settings = load_settings(config_path, os.environ, **schema_from_click(serve), comma_keys=COMMA_KEYS,
                                 origins=origins)
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


class _SettingsCommand(click.Command):
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


# ---------------------------------------------------------------- value types


class OctalMode(click.ParamType):
    name = "MODE"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            mode = value
        else:
            try:
                mode = int(str(value), 8)
            except ValueError:
                self.fail(f"{value!r} is not an octal file mode such as 0660", param, ctx)
        if not 0 <= mode <= 0o7777:
            self.fail(f"{value!r} is not a file mode (0 to 7777 in octal)", param, ctx)
        return mode


class Address(click.ParamType):
    """HOST:PORT with a port from 0 to 65535; kept as the text given."""

    name = "HOST:PORT"

    def convert(self, value, param, ctx):
        from fakecri.server.config import parse_address

        try:
            parse_address(value, "address")
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        return str(value).strip()


class Duration(click.ParamType):
    """A duration with a unit (500ms, 30s, 2m, 1m30s) or a plain number of seconds."""

    name = "DURATION"

    def convert(self, value, param, ctx):
        from fakecri.faults.model import FaultSpecError
        from fakecri.faults.values import parse_duration

        if isinstance(value, (int, float)) and not isinstance(value, bool):
            seconds = float(value)
        else:
            try:
                seconds = parse_duration(str(value))
            except FaultSpecError as exc:
                self.fail(str(exc), param, ctx)
        if not (0 <= seconds < float("inf")):
            self.fail(f"{value!r} is not a duration of zero or more", param, ctx)
        return seconds


class Cidr(click.ParamType):
    name = "CIDR"

    def convert(self, value, param, ctx):
        from fakecri.server.config import check_cidr

        try:
            check_cidr(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        return str(value).strip()


class SocketPath(click.Path):
    """A unix socket path. A missing parent directory is created at start-up; here it is only
    refused when something on the way is a file."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False)

    def convert(self, value, param, ctx):
        path = super().convert(value, param, ctx)
        probe = os.path.dirname(os.path.abspath(path))
        while not os.path.lexists(probe):
            probe = os.path.dirname(probe)
        if not os.path.isdir(probe):
            self.fail(f"{path}: {probe} is not a directory", param, ctx)
        return path


class GroupName(click.ParamType):
    """A group that exists on this machine, by name or number; the value is the gid."""

    name = "GROUP"

    def convert(self, value, param, ctx):
        import grp

        if isinstance(value, int) and not isinstance(value, bool):
            text = str(value)
        else:
            text = str(value).strip()
        try:
            return grp.getgrgid(int(text)).gr_gid if text.isdigit() else grp.getgrnam(text).gr_gid
        except (KeyError, OverflowError):
            self.fail(f"no group {text!r} on this machine", param, ctx)


VALUE_TYPES = {
    "mode": OctalMode(), "address": Address(), "cidr": Cidr(), "path": click.Path(dir_okay=False),
    "file": click.Path(exists=True, dir_okay=False), "group": GroupName(),
}


def _option_for(f) -> tuple[list[str], dict]:
    """The `fakecri serve` option for one ServerConfig field, from its metadata."""
    meta = f.metadata
    kwargs: dict = {"help": meta.get("help") or None}
    hint = str(f.type)
    default = f.default
    if f.name in ("socket", "control_socket"):
        kwargs["type"] = SocketPath()
        kwargs["metavar"] = "PATH"
    elif meta.get("kind"):
        kwargs["type"] = VALUE_TYPES[meta["kind"]]
    elif meta.get("choices"):
        kwargs["type"] = click.Choice(list(meta["choices"]))
    elif hint.startswith("int"):
        kwargs["type"] = click.INT if meta.get("minimum") is None else click.IntRange(min=meta["minimum"])
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


def _config_options(fn):
    """One option per ServerConfig field, in the order of the fields."""
    from fakecri.server.config import cli_fields

    for f in reversed(cli_fields()):
        decls, kwargs = _option_for(f)
        fn = click.option(*decls, **kwargs)(fn)
    return fn


def _config_from_options(opts: dict, faults: list):
    """The ServerConfig the options describe (every field not given keeps its default)."""
    from fakecri.server.config import ServerConfig, cli_fields

    values = {f.name: opts[f.name] for f in cli_fields()}
    handlers = tuple(values.pop("runtime_handlers"))
    if handlers:
        values["runtime_handlers"] = handlers if "" in handlers else ("",) + handlers
    return ServerConfig(faults=faults, **values)


def _build_faults(drop_events, latency, error, faults_file, quirks) -> list:
    """Fault objects from the flags; a bad value names its flag and says what was expected."""
    from fakecri.fault_flags import parse_fault_flag
    from fakecri.faults.model import FaultSpecError

    steps = [("--drop-events", drop_events), *[("--latency", v) for v in latency], *[("--error", v) for v in error],
             ("--faults", faults_file), ("--quirks", quirks)]
    out = []
    for flag, value in steps:
        if not value:
            continue
        try:
            out.extend(parse_fault_flag(flag, value))
        except (FaultSpecError, OSError) as exc:
            raise click.BadParameter(str(exc), param_hint=f"'{flag}'") from None
    return out


def _fault_help(flag: str) -> str:
    from fakecri.faults.spec import FLAG_HELP

    return FLAG_HELP[flag]


@main.command(cls=_SettingsCommand, epilog=FAULT_HELP)
@click.option("--config", "config", type=click.Path(dir_okay=False),
              help="TOML, YAML or JSON file with the same keys as these options.")
@_config_options
@click.option("--drop-events", help=_fault_help("--drop-events"))
@click.option("--latency", multiple=True, help=_fault_help("--latency"))
@click.option("--error", multiple=True, help=_fault_help("--error"))
@click.option("--faults", "faults_file", type=click.Path(exists=True, dir_okay=False), help=_fault_help("--faults"))
@click.option("--quirks", help=_fault_help("--quirks"))
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", show_default=True,
              help="Lowest level logged; info and debug log one line per CRI call. The ready and shutdown lines "
                   "show at every level.")
@click.option("--log-format", type=click.Choice(["auto", "console", "json"]), default="auto", show_default=True,
              help="auto: console lines on a terminal, one JSON object per line otherwise.")
def serve(**opts) -> None:
    """Serve CRI v1 RuntimeService and ImageService on a unix socket (and optionally TCP)."""
    from fakecri.logs import announce, configure_logging
    from fakecri.server.app import FakeCRIServer
    from fakecri.server.exceptions import SettingError, StartupError

    configure_logging(opts["log_format"], opts["log_level"])
    if not opts["socket"] and not opts["listen"]:
        raise click.UsageError("give --socket PATH or --listen HOST:PORT")
    faults = _build_faults(opts["drop_events"], opts["latency"], opts["error"], opts["faults_file"], opts["quirks"])
    config = _config_from_options(opts, faults)
    try:
        config.validate()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    server = FakeCRIServer(config)

    async def run() -> None:
        await server.start_async()
        assert server.state is not None
        server.state.log_rpcs = opts["log_level"] in ("debug", "info")
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

    try:
        asyncio.run(run())
    except SettingError as exc:
        flag = "--" + exc.setting.replace("_", "-")
        raise click.BadParameter(exc.message, param_hint=f"'{flag}'") from None
    except StartupError as exc:
        raise click.ClickException(str(exc)) from None


# ---------------------------------------------------------------- watch


@main.command()
@click.option("--endpoint", default="unix:///run/containerd/containerd.sock", show_default=True,
              help="Any CRI runtime: unix:///path, unix:/path, a bare path or tcp://host:port.")
@click.option("--json", "json_mode", is_flag=True, help="One JSON object per line instead of the live view.")
@click.option("--interval", type=Duration(), default="1s", show_default=True,
              help="Relist period (500ms, 2s, ...; a plain number is seconds).")
@click.option("--duration", type=Duration(), help="Stop after this long (default: until Ctrl-C).")
def watch(endpoint: str, json_mode: bool, interval: float, duration: float | None) -> None:
    """Watch a runtime like a kubelet: relisted pods, events as they arrive, missed events flagged."""
    from fakecri.client.endpoint import InvalidEndpointError
    from fakecri.client.watch import run_watch

    if interval <= 0:
        raise click.BadParameter("the relist period must be more than zero", param_hint="'--interval'")
    try:
        code = run_watch(endpoint, json_mode=json_mode, interval=interval, duration=duration)
    except InvalidEndpointError as exc:
        raise click.BadParameter(str(exc), param_hint="'--endpoint'") from None
    except KeyboardInterrupt:
        code = 0
    sys.exit(code)


# ---------------------------------------------------------------- health and version

DEFAULT_SOCKET = "/run/fakecri/fakecri.sock"


def _endpoint_target(endpoint: str) -> str:
    """The grpc target for a CRI endpoint; a usage error naming --endpoint if it is not one."""
    from fakecri.client.endpoint import InvalidEndpointError, parse_endpoint

    try:
        return parse_endpoint(endpoint).target
    except InvalidEndpointError as exc:
        raise click.BadParameter(str(exc), param_hint="'--endpoint'") from None


@main.command(cls=_SettingsCommand)
@click.option("--config", "config", type=click.Path(dir_okay=False),
              help="Read the socket from this file, as `fakecri serve --config` does.")
@click.option("--socket", default=DEFAULT_SOCKET, show_default=True, metavar="PATH",
              help="The socket `fakecri serve` listens on; like serve, read from --config or FAKECRI_SOCKET "
                   "when not given.")
@click.option("--endpoint", metavar="URL", help="Endpoint instead of --socket (unix:///path or tcp://host:port).")
@click.option("--timeout", type=Duration(), default="3s", show_default=True, help="How long to wait for the answer.")
def health(config: str | None, socket: str, endpoint: str | None, timeout: float) -> None:
    """Ask a server's standard gRPC health service; exit 0 when SERVING."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    target = _endpoint_target(endpoint or f"unix://{os.path.abspath(socket)}")
    with grpc.insecure_channel(target) as channel:
        try:
            resp = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=timeout)
        except grpc.RpcError as exc:
            raise click.ClickException(f"health check failed: {exc.code().name}: {exc.details()}") from None
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(resp.status)
    click.echo(status)
    if resp.status != health_pb2.HealthCheckResponse.SERVING:
        sys.exit(1)


@main.command()
def version() -> None:
    """Print this fakecri's version and the CRI API version it serves."""
    click.echo(f"fakecri {__version__} (CRI runtime.v1)")


# ---------------------------------------------------------------- ctl

ENDPOINT_HELP = "Where the control API is served (unix:///path or tcp://host:port)."


@main.group()
@click.option("--endpoint", default=f"unix://{DEFAULT_SOCKET}", show_default=True, envvar="FAKECRI_ENDPOINT",
              metavar="URL", help=ENDPOINT_HELP + " Also accepted after the subcommand; variable FAKECRI_ENDPOINT.")
@click.pass_context
def ctl(ctx: click.Context, endpoint: str) -> None:
    """Drive a running fakecri through its control API."""
    ctx.obj = endpoint


def _ctl_command(name: str):
    """A ctl subcommand that also takes --endpoint after its name (it wins over the one before)."""

    def wrap(fn):
        @ctl.command(name, help=fn.__doc__)
        @click.option("--endpoint", "own_endpoint", default=None, metavar="URL", help=ENDPOINT_HELP)
        @click.pass_obj
        @functools.wraps(fn)
        def command(group_endpoint: str, own_endpoint: str | None, **kwargs):
            return fn(own_endpoint or group_endpoint, **kwargs)

        return command

    return wrap


def _control(endpoint: str):
    from fakecri.client.endpoint import InvalidEndpointError
    from fakecri.control_client import ControlClient

    try:
        return ControlClient(endpoint)
    except InvalidEndpointError as exc:
        raise click.BadParameter(str(exc), param_hint="'--endpoint'") from None


def _ctl_call(fn):
    import grpc

    try:
        return fn()
    except grpc.RpcError as exc:
        raise click.ClickException(f"{exc.code().name}: {exc.details()}") from None


@_ctl_command("faults")
def ctl_faults(endpoint: str) -> None:
    """List the faults in force, one JSON object per line."""
    with _control(endpoint) as c:
        for f in _ctl_call(c.list_faults):
            click.echo(json.dumps(f, sort_keys=True))


@_ctl_command("add-fault")
@click.argument("spec")
def ctl_add_fault(endpoint: str, spec: str) -> None:
    """Add a fault given as JSON ({"type": "error", "target": "ListContainers", ...})."""
    try:
        data = json.loads(spec)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="'SPEC'") from None
    if not isinstance(data, dict):
        raise click.BadParameter("give one JSON object (a mapping of fault keys)", param_hint="'SPEC'")
    with _control(endpoint) as c:
        click.echo(json.dumps(_ctl_call(lambda: c.add_fault(data)), sort_keys=True))


@_ctl_command("remove-fault")
@click.argument("name")
def ctl_remove_fault(endpoint: str, name: str) -> None:
    """Remove one fault by name."""
    with _control(endpoint) as c:
        _ctl_call(lambda: c.remove_fault(name))


@_ctl_command("reset-faults")
def ctl_reset_faults(endpoint: str) -> None:
    """Remove every fault."""
    with _control(endpoint) as c:
        _ctl_call(c.reset_faults)


@_ctl_command("exit")
@click.argument("container_id")
@click.option("--code", type=click.IntRange(-2**31, 2**31 - 1), default=1, show_default=True,
              help="The exit code.")
@click.option("--oom", is_flag=True, help="Exit as OOM-killed (137, OOMKilled).")
@click.option("--reason", default="", help="The reason the status shows (default: from the code).")
def ctl_exit(endpoint: str, container_id: str, code: int, oom: bool, reason: str) -> None:
    """Make a running container exit now."""
    if oom:
        code, reason = 137, "OOMKilled"
    with _control(endpoint) as c:
        _ctl_call(lambda: c.exit_container(container_id, code, reason=reason))


@_ctl_command("condition")
@click.argument("type", type=click.Choice(["RuntimeReady", "NetworkReady"]), metavar="TYPE")
@click.argument("status", type=click.Choice(["true", "false"]), metavar="STATUS")
@click.option("--reason", default="", help="The condition's reason.")
@click.option("--message", default="", help="The condition's message.")
@click.option("--duration", type=Duration(), default="0s",
              help="How long until it is true again (30s, 2m, ...; 0: until reset).")
def ctl_condition(endpoint: str, type: str, status: str, reason: str, message: str, duration: float) -> None:
    """Set a runtime condition: TYPE is RuntimeReady or NetworkReady, STATUS true or false."""
    with _control(endpoint) as c:
        _ctl_call(lambda: c.set_condition(type, status == "true", reason=reason, message=message, duration=duration))


@_ctl_command("restart")
@click.option("--downtime", type=Duration(), default="1s", show_default=True,
              help="How long calls answer UNAVAILABLE (500ms, 10s, ...).")
@click.option("--wipe", is_flag=True, help="Forget sandboxes and containers.")
def ctl_restart(endpoint: str, downtime: float, wipe: bool) -> None:
    """Simulate a restart of the runtime."""
    with _control(endpoint) as c:
        _ctl_call(lambda: c.restart(downtime, wipe=wipe))


@_ctl_command("reset")
def ctl_reset(endpoint: str) -> None:
    """Forget all state, faults, clock and logs."""
    with _control(endpoint) as c:
        _ctl_call(c.reset)


@_ctl_command("calls")
def ctl_calls(endpoint: str) -> None:
    """Print the call log, one JSON object per line."""
    with _control(endpoint) as c:
        for rec in _ctl_call(c.call_log):
            click.echo(json.dumps(rec, sort_keys=True))


@_ctl_command("fault-log")
def ctl_fault_log(endpoint: str) -> None:
    """Print the log of injected faults, one JSON object per line."""
    with _control(endpoint) as c:
        for rec in _ctl_call(c.fault_log):
            click.echo(json.dumps(rec, sort_keys=True))


from fakecri.conformance.command import conformance_command  # noqa: E402  (light: loads the suite on use)


def _in_process_fakecri():  # type: ignore[no-untyped-def]
    """The runtime `fakecri conformance` judges without --endpoint: an in-process
    fakecri on a fresh socket, quiet (no per-RPC log lines)."""
    import logging

    import structlog

    from fakecri.server.app import FakeCRIServer

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    server = FakeCRIServer(seed=0).start()
    server.state.log_rpcs = False
    return server


main.add_command(conformance_command(in_process_runtime=_in_process_fakecri))

if __name__ == "__main__":
    main()
