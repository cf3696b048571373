"""`fakecri watch`, `health` and `version`: looking at a runtime from outside."""
from __future__ import annotations

import os
import sys

import click

from fakecri import __version__
from fakecri.cli.group import SettingsCommand, main
from fakecri.cli.serving import serve
from fakecri.cli.values import DEFAULT_SOCKET, Duration, default_endpoint
from fakecri.conformance.command import MissingExtra


@main.command()
@click.option("--endpoint", default=None, metavar="URL",
              help="Any CRI runtime: unix:///path, unix:/path, a bare path or tcp://host:port (containerd: "
                   f"unix:///run/containerd/containerd.sock). Default: fakecri's, FAKECRI_SOCKET or {DEFAULT_SOCKET}.")
@click.option("--json", "json_mode", is_flag=True, help="One JSON object per line instead of the live view.")
@click.option("--interval", type=Duration(), default="1s", show_default=True,
              help="Relist period (500ms, 2s, ...; a plain number is seconds).")
@click.option("--duration", type=Duration(), help="Stop after this long (default: until Ctrl-C).")
def watch(endpoint: str | None, json_mode: bool, interval: float, duration: float | None) -> None:
    """Watch a runtime like a kubelet: relisted pods, events as they arrive, missed events flagged."""
    from fakecri.client.errors import InvalidEndpointError
    from fakecri.client.watch import run_watch

    endpoint = endpoint or default_endpoint()
    if not json_mode:
        try:
            import rich  # noqa: F401
        except ImportError:
            raise MissingExtra("the live view of fakecri watch needs rich: pip install 'fakecri[watch]' "
                               "(or use --json)") from None
    if interval <= 0:
        raise click.BadParameter("the relist period must be more than zero", param_hint="'--interval'")
    try:
        code = run_watch(endpoint, json_mode=json_mode, interval=interval, duration=duration)
    except InvalidEndpointError as exc:
        raise click.BadParameter(str(exc), param_hint="'--endpoint'") from None
    except KeyboardInterrupt:
        code = 0
    sys.exit(code)



def _endpoint_target(endpoint: str) -> str:
    """The grpc target for a CRI endpoint; a usage error naming --endpoint if it is not one."""
    from fakecri.client.endpoint import parse_endpoint
    from fakecri.client.errors import InvalidEndpointError

    try:
        return parse_endpoint(endpoint).target
    except InvalidEndpointError as exc:
        raise click.BadParameter(str(exc), param_hint="'--endpoint'") from None


@main.command(cls=SettingsCommand, keys_from=serve)
@click.option("--config", "config", type=click.Path(dir_okay=False),
              help="Read the socket from this file, as `fakecri serve --config` does.")
@click.option("--socket", default=None, metavar="PATH",
              help="The socket `fakecri serve` listens on; like serve, read from --config or FAKECRI_SOCKET "
                   f"when not given  [default: {DEFAULT_SOCKET}, or the farm's with --socket-dir]")
@click.option("--socket-dir", default=None, metavar="DIR",
              help="Ask the node farm serving in DIR (`fakecri serve --nodes N --socket-dir DIR`) on DIR/farm.sock: "
                   "SERVING while every node is. Like serve, read from --config or FAKECRI_SOCKET_DIR when not "
                   "given; --socket wins over it.")
@click.option("--endpoint", metavar="URL", help="Endpoint instead of --socket (unix:///path or tcp://host:port).")
@click.option("--timeout", type=Duration(), default="3s", show_default=True, help="How long to wait for the answer.")
def health(config: str | None, socket: str | None, socket_dir: str | None, endpoint: str | None,
           timeout: float) -> None:
    """Ask a server's standard gRPC health service; exit 0 when SERVING."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from fakecri.server.host.sockets import FARM_SOCKET

    if not socket:
        socket = os.path.join(socket_dir, FARM_SOCKET) if socket_dir else DEFAULT_SOCKET
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
@click.option("--json", "json_mode", is_flag=True, help="One JSON object (version, CRI API, Python) for scripts.")
def version(json_mode: bool) -> None:
    """Print this fakecri's version and the CRI API version it serves."""
    if json_mode:
        import json
        import platform

        click.echo(json.dumps({"version": __version__, "cri_api": "runtime.v1",
                               "python": platform.python_version()}, sort_keys=True))
        return
    click.echo(f"fakecri {__version__} (CRI runtime.v1)")
