"""`fakecri ctl`: drive a running fakecri through its control API; in a node farm, one
node (`--node NAME`) or every node (`--node all`) through the farm's control socket, and
the farm's nodes themselves (nodes, add-node, remove-node)."""
from __future__ import annotations

import datetime
import functools
import inspect
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from fakecri.cli.group import main
from fakecri.cli.values import DEFAULT_SOCKET, Duration, default_endpoint
from fakecri.control_calls import BY_COMMAND

if TYPE_CHECKING:
    from fakecri.control_client import ControlClient, FarmClient

T = TypeVar("T")

ENDPOINT_HELP = "Where the control API is served (unix:///path or tcp://host:port)."
NODE_HELP = ("In a node farm, the node to drive through the farm's control socket (--endpoint DIR/farm.sock), "
             "or 'all' for every node (each line of output then names its node).")
ALL_NODES = "all"


@dataclass
class Target:
    """Where one ctl command goes: an endpoint, and in a farm the node it is for."""

    endpoint: str
    node: str | None = None
    label: bool = False  # True when the command runs on every node: each output line names its node

    def emit(self, record: dict[str, Any]) -> None:
        """Print one JSON object (naming the node, when the command runs on every node)."""
        if self.label:
            record = {"node": self.node, **record}
        click.echo(json.dumps(record, sort_keys=True))


@main.group()
@click.option("--endpoint", envvar="FAKECRI_ENDPOINT", metavar="URL",
              help=ENDPOINT_HELP + " Also accepted after the subcommand; variable FAKECRI_ENDPOINT. "
                   "Default: the socket in FAKECRI_SOCKET, as `fakecri serve` reads it, else the farm's in "
                   f"FAKECRI_SOCKET_DIR (DIR/farm.sock), else {DEFAULT_SOCKET}.")
@click.option("--node", envvar="FAKECRI_NODE", metavar="NAME", help=NODE_HELP + " Variable FAKECRI_NODE.")
@click.pass_context
def ctl(ctx: click.Context, endpoint: str | None, node: str | None) -> None:
    """Drive a running fakecri through its control API."""
    ctx.obj = Target(endpoint or default_endpoint(farm=True), node or None)


def _targets(base: Target) -> Iterator[Target]:
    """`base` itself, or with --node all one target per node of the farm."""
    if base.node != ALL_NODES:
        yield base
        return
    with _farm(base.endpoint) as farm:
        names = [n["name"] for n in _ctl_call(farm.nodes)]
    for name in names:
        yield Target(base.endpoint, name, label=True)


def _help(name: str, fn: Callable[..., None]) -> str | None:
    """A command's help: its control call's (fakecri.control_calls), then what the function's
    docstring adds for the command line."""
    own = inspect.getdoc(fn)
    call = BY_COMMAND.get(name)
    if call is None:
        return own
    return f"{call.help}\n\n{own}" if own else call.help


def _ctl_command(name: str, *, each_node: bool = True) -> Callable[[Callable[..., None]], click.Command]:
    """A ctl subcommand that also takes --endpoint and --node after its name (they win over the
    ones before). With `each_node`, --node all runs it once per node of the farm. The decorated
    function takes the Target, then the command's own options by name (as click passes them)."""

    def wrap(fn: Callable[..., None]) -> click.Command:
        def command(group: Target, /, own_endpoint: str | None, own_node: str | None, **kwargs: object) -> None:
            base = Target(own_endpoint or group.endpoint, own_node or group.node)
            if not each_node:
                fn(base, **kwargs)
                return
            for target in _targets(base):
                fn(target, **kwargs)

        functools.update_wrapper(command, fn)  # fn's name, help and click arguments
        with_options = click.option("--node", "own_node", default=None, metavar="NAME", help=NODE_HELP)(
            click.pass_obj(command))
        with_options = click.option("--endpoint", "own_endpoint", default=None, metavar="URL",
                                    help=ENDPOINT_HELP)(with_options)
        return ctl.command(name, help=_help(name, fn))(with_options)

    return wrap


def _control(target: Target) -> ControlClient:
    from fakecri.client.errors import InvalidEndpointError
    from fakecri.control_client import ControlClient

    try:
        return ControlClient(target.endpoint, node=target.node)
    except InvalidEndpointError as exc:
        raise click.BadParameter(str(exc), param_hint="'--endpoint'") from None


def _farm(endpoint: str) -> FarmClient:
    from fakecri.client.errors import InvalidEndpointError
    from fakecri.control_client import FarmClient

    try:
        return FarmClient(endpoint)
    except InvalidEndpointError as exc:
        raise click.BadParameter(str(exc), param_hint="'--endpoint'") from None


def _ctl_call(fn: Callable[[], T]) -> T:
    import grpc

    try:
        return fn()
    except grpc.RpcError as exc:
        raise click.ClickException(f"{exc.code().name}: {exc.details()}") from None


def _print_json_lines(target: Target, read: Callable[[ControlClient], list[dict[str, Any]]]) -> None:
    """Print what `read(control client)` returns, one JSON object per line."""
    with _control(target) as c:
        for record in _ctl_call(lambda: read(c)):
            target.emit(record)


@_ctl_command("faults")
def ctl_faults(target: Target) -> None:
    """One JSON object per line."""
    _print_json_lines(target, lambda c: c.list_faults())


@_ctl_command("add-fault")
@click.argument("spec")
def ctl_add_fault(target: Target, spec: str) -> None:
    """SPEC is JSON: {"type": "error", "target": "ListContainers", ...}."""
    try:
        data = json.loads(spec)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="'SPEC'") from None
    if not isinstance(data, dict):
        raise click.BadParameter("give one JSON object (a mapping of fault keys)", param_hint="'SPEC'")
    with _control(target) as c:
        target.emit(_ctl_call(lambda: c.add_fault(data)))


@_ctl_command("remove-fault")
@click.argument("name")
def ctl_remove_fault(target: Target, name: str) -> None:
    with _control(target) as c:
        _ctl_call(lambda: c.remove_fault(name))


@_ctl_command("reset-faults")
def ctl_reset_faults(target: Target) -> None:
    with _control(target) as c:
        _ctl_call(c.reset_faults)


@_ctl_command("exit")
@click.argument("container_id")
@click.option("--code", type=click.IntRange(-2**31, 2**31 - 1), default=1, show_default=True,
              help="The exit code.")
@click.option("--oom", is_flag=True, help="Exit as OOM-killed (137, OOMKilled).")
@click.option("--reason", default="", help="The reason the status shows (default: from the code).")
def ctl_exit(target: Target, container_id: str, code: int, oom: bool, reason: str) -> None:
    with _control(target) as c:
        _ctl_call(lambda: c.exit_container(container_id, code, reason=reason, oom=oom))


@_ctl_command("set-stats")
@click.argument("container_id")
@click.option("--cpu", default="", metavar="CURVE", help="CPU in cores: 250m, 1.5, '0->2 over 60s'.")
@click.option("--memory", default="", metavar="CURVE", help="Memory working set: 50Mi, '0->200Mi over 60s'.")
@click.option("--memory-usage", default="", metavar="CURVE", help="Memory usage (default: the working set).")
@click.option("--memory-rss", default="", metavar="CURVE", help="Memory RSS (default: the working set).")
@click.option("--disk", default="", metavar="CURVE", help="The writable layer's size: 1Gi, 'steps 0@0s,2Gi@30s'.")
@click.option("--psi", default="", metavar="ENTRIES", help="Pressure, percent stalled: 'memory.some=40; io.full=5'.")
@click.option("--clear", is_flag=True, help="First forget what earlier set-stats calls set.")
def ctl_set_stats(target: Target, container_id: str, cpu: str, memory: str, memory_usage: str, memory_rss: str,
                  disk: str, psi: str, clear: bool) -> None:
    with _control(target) as c:
        _ctl_call(lambda: c.set_stats(container_id, cpu=cpu, memory=memory, memory_usage=memory_usage,
                                      memory_rss=memory_rss, disk=disk, psi=psi, clear=clear))


@_ctl_command("condition")
@click.argument("type", type=click.Choice(["RuntimeReady", "NetworkReady"], case_sensitive=False), metavar="TYPE")
@click.argument("status", type=click.Choice(["true", "false"], case_sensitive=False), metavar="STATUS")
@click.option("--reason", default="", help="The condition's reason.")
@click.option("--message", default="", help="The condition's message.")
@click.option("--duration", type=Duration(), default="0s",
              help="How long until it is true again (30s, 2m, ...; 0: until reset).")
def ctl_condition(target: Target, type: str, status: str, reason: str, message: str, duration: float) -> None:
    """TYPE is RuntimeReady or NetworkReady, STATUS true or false (in any case: False, FALSE and
    false are the same)."""
    with _control(target) as c:
        _ctl_call(lambda: c.set_condition(type, status == "true", reason=reason, message=message, duration=duration))


@_ctl_command("restart")
@click.option("--downtime", type=Duration(), default="1s", show_default=True,
              help="How long calls answer UNAVAILABLE (500ms, 10s, ...).")
@click.option("--wipe", is_flag=True, help="Forget sandboxes and containers.")
def ctl_restart(target: Target, downtime: float, wipe: bool) -> None:
    with _control(target) as c:
        _ctl_call(lambda: c.restart(downtime, wipe=wipe))


@_ctl_command("reset")
def ctl_reset(target: Target) -> None:
    with _control(target) as c:
        _ctl_call(c.reset)


@_ctl_command("calls")
def ctl_calls(target: Target) -> None:
    """One JSON object per line."""
    _print_json_lines(target, lambda c: c.call_log())


@_ctl_command("fault-log")
def ctl_fault_log(target: Target) -> None:
    """One JSON object per line."""
    _print_json_lines(target, lambda c: c.fault_log())


@_ctl_command("advance-clock")
@click.argument("duration", type=Duration())
def ctl_advance_clock(target: Target, duration: float) -> None:
    """DURATION is 30s, 2m, 1h, or seconds; prints the new time."""
    with _control(target) as c:
        now_ns = _ctl_call(lambda: c.advance_clock(duration))
    when = datetime.datetime.fromtimestamp(now_ns / 1e9, datetime.UTC)
    target.emit({"now_ns": now_ns, "now": when.isoformat().replace("+00:00", "Z")})


@_ctl_command("info")
def ctl_info(target: Target) -> None:
    """One JSON object, with the endpoint (and the node) it came from."""
    with _control(target) as c:
        info = _ctl_call(c.server_info)
    info["endpoint"] = target.endpoint
    if target.node:
        info["node"] = target.node
    click.echo(json.dumps(info, sort_keys=True, indent=None if target.label else 2))


@_ctl_command("nodes", each_node=False)
def ctl_nodes(target: Target) -> None:
    """List a node farm's nodes (name, socket, pod CIDR, seed, counts), one JSON object per line."""
    with _farm(target.endpoint) as farm:
        for record in _ctl_call(farm.nodes):
            click.echo(json.dumps(record, sort_keys=True))


@_ctl_command("add-node", each_node=False)
@click.argument("name", required=False, default="")
@click.option("--pod-cidr", default="", metavar="CIDR",
              help="The node's pod CIDR (default: the next free subnet of the farm's).")
def ctl_add_node(target: Target, name: str, pod_cidr: str) -> None:
    """Add a node to a farm (NAME, or the next from the farm's pattern); prints it once it serves."""
    with _farm(target.endpoint) as farm:
        click.echo(json.dumps(_ctl_call(lambda: farm.add_node(name, pod_cidr=pod_cidr)), sort_keys=True))


@_ctl_command("remove-node", each_node=False)
@click.argument("name")
def ctl_remove_node(target: Target, name: str) -> None:
    """Stop a farm's node and remove its socket (its state file stays)."""
    with _farm(target.endpoint) as farm:
        _ctl_call(lambda: farm.remove_node(name))
