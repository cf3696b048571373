"""Everything `fakecri serve` can be told, as one dataclass shared by the CLI and the plugin.

Each field's default is written once, here: `fakecri serve` makes one option per field
from the field's metadata (see `setting`), and the config file and FAKECRI_* variables
use the same names. Fields whose metadata says `cli=False` are for programs only.
"""
from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import Field, dataclass, field, fields
from typing import Any

from fakecri.engine.errors import InvalidArgument
from fakecri.engine.ipam import parse_cidr
from fakecri.engine.runtime import DEFAULT_POD_CIDR, DEFAULT_RUNTIME_HANDLERS
from fakecri.server.exceptions import SettingError

SUBSCRIBER_POLICIES = ("close", "drop", "block")
PULL_POLICIES = ("any", "strict")
INT64_MAX = 2**63 - 1  # the seed travels as an int64 (GetServerInfo)
GRPC_MESSAGE_MAX = 2**31 - 1  # gRPC's message limits are C ints
CGROUP_DRIVERS = ("systemd", "cgroupfs")
_ADDRESS = re.compile(r"(?P<host>\[[^\]]*\]|[^:\[\]]*):(?P<port>[^:]*)")


def setting(default: Any = None, help: str = "", *, kind: str | None = None, choices: tuple[str, ...] = (),
            minimum: int | None = None, maximum: int | None = None, flag: str | None = None,
            metavar: str | None = None, cli: bool = True) -> Any:
    """A ServerConfig field with what `fakecri serve` needs to offer it as an option.

    `kind` says how the CLI reads the value: "mode" (an octal file mode), "address"
    (HOST:PORT), "cidr", "path", "file" (a file that must exist), "catalog" (an image catalog
    file, read now), "directory", "root" (a directory to own: made if missing, and writable),
    "group" (a group name or id);
    None reads it as the field's type. `minimum` bounds an integer from below; `flag`
    overrides the option name derived from the field name."""
    meta = {"help": help, "kind": kind, "choices": choices, "minimum": minimum, "maximum": maximum, "flag": flag,
            "metavar": metavar, "cli": cli}
    if isinstance(default, list):
        return field(default_factory=list, metadata=meta)
    return field(default=default, metadata=meta)


def parse_address(text: object, what: str = "address") -> tuple[str, int]:
    """'HOST:PORT' (or ':PORT', for 127.0.0.1; '[::1]:PORT' for IPv6) -> (host, port).
    ValueError, naming `what`, for anything else or a port outside 0-65535 (`text` may be
    any value a config file holds: it is read as its text, and shown as given)."""
    m = _ADDRESS.fullmatch(str(text).strip())
    if m is None:
        raise ValueError(f"{what} {text!r} is not HOST:PORT (for example 127.0.0.1:9090, or :0 for any free port)")
    host, port_text = m.group("host"), m.group("port")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"{what} {text!r}: the port {port_text!r} is not a number from 0 to 65535")
    bracketed = host.startswith("[")
    host = host[1:-1] if bracketed else host
    if bracketed or re.fullmatch(r"[0-9.]+", host):  # meant as an address: it must be one
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(f"{what} {text!r}: {host!r} is not an IP address") from None
    return host or "127.0.0.1", int(port_text)


def check_cidr(text: object) -> None:
    """ValueError if `text` (read as its text) cannot be a pod CIDR (the core's rule: a network
    with room for pods)."""
    try:
        parse_cidr(str(text))
    except InvalidArgument as exc:
        raise ValueError(exc.message) from None


def format_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass
class ServerConfig:
    # Where to listen.
    socket: str | None = setting(None, "Unix socket to serve CRI on, e.g. /run/fakecri/fakecri.sock; "
                                       "a missing parent directory is created.", kind="path")
    listen: str | None = setting(
        None, "Also serve CRI (never the control API) on TCP HOST:PORT, loopback only unless --allow-remote; "
              "port 0 picks a free one. Any local user can reach a TCP port, whatever the socket's mode.",
        kind="address")
    allow_remote: bool = setting(
        False, "Let --listen take an address other than loopback (0.0.0.0, a LAN address): every host that "
               "can reach it may run and remove pods, unauthenticated. Start-up says so in a warning.")
    socket_mode: int = setting(0o660, "File mode of the socket (octal).", kind="mode")
    socket_group: int | None = setting(
        None, "Give the socket (and the control socket) to this group, by name or number, so its members "
              "can connect (with the mode's group bits).", kind="group")
    # The control service: on the CRI socket by default, on its own socket, or off.
    control_socket: str | None = setting(
        None, "Serve the control API on its own socket (mode 0600) instead of the CRI socket.", kind="path")
    control_socket_mode: int = setting(0o600, cli=False)
    no_control: bool = setting(False, "Do not serve the control API at all.")
    # Determinism.
    seed: int = setting(0, "Seed for every random decision.", kind="int64", minimum=-INT64_MAX - 1,
                        maximum=INT64_MAX, metavar="N")
    deterministic_ids: bool = setting(
        False, "Hand out the same container and sandbox ids on every start with the same seed. By default a "
               "restarted fakecri never repeats the ids of an earlier process (the seed still gives the same ids "
               "within one process).")
    fake_clock: bool = setting(False, "Run on a fake clock that only moves through the control API.")
    # Faults (fakecri.faults.model.Fault objects) in force from the start; the CLI builds
    # them from the fault flags.
    faults: list[Any] = setting([], cli=False)
    # Event stream subscribers.
    subscriber_policy: str = setting("close", "What happens to an event subscriber that falls behind.",
                                     choices=SUBSCRIBER_POLICIES)
    subscriber_buffer: int = setting(1000, "Events buffered per subscriber.", minimum=1)
    # Runtime facts.
    cgroup_driver: str = setting("systemd", "The cgroup driver RuntimeConfig reports.", choices=CGROUP_DRIVERS)
    cgroup_version: int = setting(
        2, "The cgroup file system containers see at /sys/fs/cgroup: 2 (unified) or 1 (a hierarchy per "
           "controller); give the host's, as runc does (a kubelet on a v1 host makes v1 pod cgroups).",
        minimum=1, maximum=2, metavar="N")
    mount_propagation_check: bool = setting(
        False, "Refuse a BIDIRECTIONAL mount whose host path is not on a shared mount of the host, and a "
               "HOST_TO_CONTAINER one not on a shared or slave mount, as containerd does (UNKNOWN, its words); "
               "without it propagation between containers is modelled whatever the host's mounts are.")
    swap_bytes: int | None = setting(
        None, "The swap the node has, as containers' /proc/meminfo shows it (SwapTotal) [default: the host's].",
        minimum=0, flag="--swap", metavar="BYTES")
    runtime_handlers: tuple[str, ...] = setting(
        DEFAULT_RUNTIME_HANDLERS, "A runtime handler to offer, repeatable (the default handler is always offered; "
        "default: runc).", flag="--runtime-handler", metavar="NAME")
    pod_cidr: str = setting(DEFAULT_POD_CIDR, "Pod CIDR until UpdateRuntimeConfig sets one.", kind="cidr")
    image_catalog: str | None = setting(None, "Image catalog file (YAML/JSON).", kind="catalog")
    pull_policy: str = setting(
        "any", "Which images pull. any: every well-formed reference (one the catalog does not list is made "
               "up). strict: only what the catalog lists, anything else is NOT_FOUND as a registry answers (the "
               "built-in catalog lists busybox, nginx, httpd, alpine, pause and the critest and e2e test images, "
               "at any tag); a catalog file's `allow_unknown: false` means the same.", choices=PULL_POLICIES)
    # Limits (None: unlimited).
    max_sandboxes: int | None = setting(None, "Refuse more sandboxes with RESOURCE_EXHAUSTED.", minimum=0)
    max_containers: int | None = setting(None, "Refuse more containers with RESOURCE_EXHAUSTED.", minimum=0)
    max_images: int | None = setting(None, "Refuse more images with RESOURCE_EXHAUSTED.", minimum=0)
    max_subscribers: int | None = setting(64, "Open event streams at most.", minimum=0)
    max_message_bytes: int = setting(
        16 * 1024 * 1024, "Largest request or response; bigger ones get RESOURCE_EXHAUSTED (use the Stream* lists).",
        kind="message-size", minimum=1, maximum=GRPC_MESSAGE_MAX, metavar="N")
    # Side services.
    streaming_addr: str = setting("127.0.0.1:0", "Exec/attach/port-forward server (HOST:PORT; port 0 picks one).",
                                  kind="address")
    metrics_addr: str | None = setting(None, "Serve Prometheus metrics on HOST:PORT (port 0 picks one).",
                                       kind="address")
    state_file: str | None = setting(None, "Keep state across restarts in this file.", kind="path")
    # The filesystem mountpoints fakecri reports (ImageFsInfo, container stats) are made under
    # it, since a kubelet stats each one. None: /var/lib/fakecri when it can be created, else
    # fakecri-<uid> under the temp dir.
    state_root: str | None = setting(
        None, "Directory fakecri owns; the image and container filesystems it reports are made under it "
        "[default: /var/lib/fakecri if it can be created, else one under the temp dir].",
        kind="root", flag="--root", metavar="DIR")
    # The node's name in a farm (its socket is NAME.sock; log lines and control calls name it).
    node_name: str = setting("", cli=False)
    host_root: str | None = setting(
        None, "Confine the host paths callers name (mounts, log directories and paths, checkpoint archives, "
              "Localhost seccomp profiles) to this existing directory: anything else, '..', or a symlink out is "
              "refused with PERMISSION_DENIED, containers see nothing of the host outside it and dial only the pod "
              "network "
              "[default: the whole host].", kind="directory", metavar="DIR")
    # Log nothing at all (the pytest plugin when its log level is not set).
    quiet: bool = setting(False, cli=False)
    # One log line per CRI call (`serve --log-level info` or debug).
    log_rpcs: bool = setting(True, cli=False)
    # Keep the last N calls and fired faults for the control API.
    call_log_size: int = setting(10_000, "Calls kept in the call log of the control API.", minimum=1)

    def validate(self) -> None:
        """ValueError, naming the setting, for a value the server cannot start with."""
        if not self.socket and not self.listen:
            raise ValueError("give a unix socket path (--socket) or a TCP address (--listen)")
        if self.listen and not self.allow_remote:
            host, _ = parse_address(self.listen, "listen")
            if not is_loopback(host):
                raise ValueError(f"--listen {self.listen}: {host} is not a loopback address, and every host that "
                                 "can reach it could run and remove pods; add --allow-remote (allow_remote) to "
                                 "mean it")
        for f in fields(self):
            value = getattr(self, f.name)
            meta = f.metadata
            if meta.get("choices") and value not in meta["choices"]:
                raise ValueError(f"{f.name} {value!r} is not one of {', '.join(meta['choices'])}")
            if meta.get("minimum") is not None and value is not None and value < meta["minimum"]:
                raise ValueError(f"{f.name} {value} is below the least allowed, {meta['minimum']}")
            if meta.get("maximum") is not None and value is not None and value > meta["maximum"]:
                raise ValueError(f"{f.name} {value} is above the most allowed, {meta['maximum']}")
            if meta.get("kind") == "address" and value is not None:
                parse_address(value, f.name)
            if meta.get("kind") == "cidr":
                check_cidr(value)
            if meta.get("kind") == "mode" and not 0 <= value <= 0o777:
                raise ValueError(f"{f.name} {value:o} is not a socket mode (permission bits, 0 to 777 in octal)")


def cli_fields() -> list[Field[Any]]:
    """The ServerConfig fields `fakecri serve` offers as options, in declaration order."""
    return [f for f in fields(ServerConfig) if f.metadata.get("cli", True)]


@dataclass
class FarmConfig:
    """What makes `fakecri serve` a node farm: many node runtimes in one process, each built
    from the ServerConfig with its own socket, seed, pod CIDR, state root and state file."""

    nodes: int | None = setting(
        None, "Serve N node runtimes from this one process (a node farm), one CRI socket each under "
              "--socket-dir; more can be added at run time (fakecri ctl add-node).", minimum=0, metavar="N")
    socket_dir: str | None = setting(
        None, "A farm's directory: NAME.sock for each node's CRI (and, unless --control-socket is given, its "
              "control API) and farm.sock for the farm's control API; made if missing.",
        kind="directory", metavar="DIR")
    node_name: str = setting(
        "node-{i}", "A farm's node names, with {i} for the node's number (from 0); each must make a DNS "
                    "subdomain, as Kubernetes node names are.", metavar="PATTERN")
    node_cidr_size: int = setting(
        24, "The prefix length of each farm node's share of --pod-cidr (node i gets the i-th such subnet), "
            "as kube-controller-manager's --node-cidr-mask-size.", minimum=1, maximum=128, metavar="BITS")
    farm_index: int | None = setting(
        None, "This farm's number among farms of the same --nodes N that share one --pod-cidr (the pods of a "
              "StatefulSet, by ordinal): its nodes take subnets I*N to I*N+N-1 of --pod-cidr instead of 0 to N-1, "
              "so no two farms hand out the same pod IPs. A node added beyond N needs a pod CIDR of its own.",
        minimum=0, metavar="I")
    state_dir: str | None = setting(
        None, "Keep each farm node's state across restarts in DIR/NAME.json (the farm's --state-file).",
        kind="directory", metavar="DIR")


def farm_fields() -> list[Field[Any]]:
    """The FarmConfig fields `fakecri serve` offers as options, in declaration order."""
    return list(fields(FarmConfig))


# ---------------------------------------------------------------- TCP listeners
#
# Who a TCP listener lets in, and a check that it can be bound before grpc tries.
#
# A unix socket has an owner and a mode; a TCP port has neither: every local user reaches a
# loopback port, and every host that can route to it reaches any other address. So fakecri
# serves CRI on TCP only where asked (`--listen`), on loopback unless `allow_remote` says
# otherwise (with a warning), and never the control API (docs/operating.md, "Who may connect").


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses (127.0.0.0/8, ::1, ::ffff:127.x.y.z)."""
    if host.lower() == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name: it may resolve anywhere
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


def check_bindable(host: str, port: int, listen: str) -> None:
    """SettingError (naming `listen`), in one line, if HOST:PORT cannot be listened on;
    grpc would otherwise write its own line to stderr first."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as grpc binds
            probe.bind(address)
    except (OSError, IndexError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or "no address"
        raise SettingError("listen", f"cannot listen on {listen}: {reason}") from None
