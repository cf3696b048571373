"""agnhost, Kubernetes' test image binary: one cobra command whose subcommands the e2e
pods run (`/agnhost netexec --http-port=8080`, `/agnhost pause`...).

Each subcommand is data: its flags with their defaults, how many arguments it takes, what
it does as a process (what it prints, whether and how it exits, how it takes SIGTERM) and,
for the servers, which sockets it listens on; how the servers answer is in
`fakecri.sim.programs.servers` and `netexec`. Subcommands not listed here fail as an unknown
command would only when agnhost itself has no such subcommand; the real ones we do not model
run until stopped. Output of Go's `log` package is written without its timestamp prefix.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fakecri.sim.programs.base import DATAGRAM, GREETING, GRPC_HEALTH, HTTP, Listen
from fakecri.sim.programs.flags import BOOL, INT, STRING, Flag, FlagError, HelpAsked, go_duration, parse
from fakecri.sim.shell import Io, Process, Sleep
from fakecri.sim.steps import TCP, UDP, Connect, NetResult, Trap

ROOT = "app"  # the root command's name, as agnhost's usage and errors print it

# agnhost's subcommands (v2.63), in the order its help lists them.
ALL_SUBCOMMANDS = (
    "audit-proxy", "connect", "crd-conversion-webhook", "dns-server-list", "dns-suffix", "entrypoint-tester",
    "etc-hosts", "external-metrics", "fake-gitserver", "fake-registry-server", "grpc-health-checking", "guestbook",
    "inclusterclient", "liveness", "logs-generator", "mounttest", "mtlsclient", "mtlsserver", "net", "netexec",
    "nettest", "no-snat-test", "no-snat-test-proxy", "nonewprivs", "pause", "podcertificatesigner",
    "port-forward-tester", "porter", "resource-consumer-controller", "serve-hostname", "stress", "tcp-reset",
    "test-webserver", "test-service-account-issuer-discovery", "webhook",
)


@dataclass(frozen=True, slots=True)
class Invocation:
    """One run of a subcommand: how it was called, its flags' values and its arguments."""

    argv: tuple[str, ...]  # the whole command line, argv[0] included
    sub: str
    flags: Mapping[str, int | str | bool]
    args: tuple[str, ...]

    def number(self, name: str) -> int:
        value = self.flags[name]
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    def text(self, name: str) -> str:
        return str(self.flags[name])

    def flag(self, name: str) -> bool:
        return self.flags[name] is True


Run = Callable[[Invocation, Io], Process]
Listens = Callable[[Invocation, Mapping[str, str]], tuple[Listen, ...]]


@dataclass(frozen=True, slots=True)
class Subcommand:
    flags: Mapping[str, Flag] = field(default_factory=dict)
    max_args: int | None = 0  # cobra.MaximumNArgs(0) on most; None: any number
    exact_args: int | None = None
    run: Run | None = None  # None: a real subcommand we do not model (it runs until stopped)
    listens: Listens | None = None
    own_command_line: bool = False  # it reads its flags itself: `Invocation.args` holds all it was given


# ---------------------------------------------------------------- what the subcommands do


def _log(io: Io, text: str) -> Process:
    """A line of Go's log package: to stderr (its timestamp prefix left out)."""
    yield from io.error(text + "\n")
    return 0


def _forever(io: Io, *, term_delay_s: float | None = 0.0, term_code: int = 2) -> Process:
    """Serve until stopped. On SIGTERM: exit `term_code` after `term_delay_s` (None: it
    ignores the signal). A Go program that does not handle SIGTERM exits 2 on it as pid 1."""
    yield Trap(None if term_delay_s is None else round(term_delay_s * 1e9), term_code)
    yield Sleep(None)
    return 0


def _pause(inv: Invocation, io: Io) -> Process:
    yield from io.write("Paused\nSignals registered\n")
    return (yield from _forever(io, term_code=2))


def _entrypoint_tester(inv: Invocation, io: Io) -> Process:
    yield from io.write("[" + " ".join(inv.argv) + "]\n")
    return 0


def _read(io: Io, path: str) -> tuple[str | None, str]:
    """(the file's text, None when it cannot be read; the error as Go words it)."""
    if io.ctx.userland is None:
        return None, f"open {path}: no such file or directory"
    try:
        return bytes(io.ctx.userland().read(path)).decode("utf-8", "replace"), ""
    except Exception as exc:  # the userland's FileError
        return None, f"open {path}: {str(getattr(exc, 'reason', exc)).lower()}"


def _panic(io: Io, message: str) -> Process:
    yield from io.error(f"panic: {message}\n\ngoroutine 1 [running]:\nmain.main()\n")
    return 2


def _etc_hosts(inv: Invocation, io: Io) -> Process:
    data, err = _read(io, "/etc/hosts")
    if data is None:
        return (yield from _panic(io, err))
    yield from io.write(data + "\n")
    return 0


def _resolv_field(key: str) -> Run:
    def run(inv: Invocation, io: Io) -> Process:
        data, err = _read(io, "/etc/resolv.conf")
        if data is None:
            return (yield from _panic(io, err))
        for line in data.split("\n"):
            if line.startswith(key):
                yield from io.write(",".join(line.split(" ")[1:]) + "\n")
                return 0
        return (yield from _panic(io, "Could not find DNS search list!"))
    return run


def _netexec(inv: Invocation, io: Io) -> Process:
    if inv.number("udp-port") != -1:
        for address in (inv.text("udp-listen-addresses").split(",") if inv.text("udp-listen-addresses") else [""]):
            yield from _log(io, f"Started UDP server on port {address} {inv.number('udp-port')}")
    yield from _log(io, f"Started HTTP server on port {inv.number('http-port')}")
    delay = inv.number("delay-shutdown")  # it handles SIGTERM only when told to wait first
    return (yield from _forever(io, term_delay_s=float(delay) if delay > 0 else 0.0, term_code=0 if delay > 0 else 2))


def _grpc_health(inv: Invocation, io: Io) -> Process:
    if bool(inv.text("tls-cert-file")) != bool(inv.text("tls-private-key-file")):
        yield from _log(io, "Both --tls-cert-file and --tls-private-key-file must be set")
        return 1
    yield from _log(io, f"Http server starting to listen on :{inv.number('http-port')}")
    yield from _log(io, f"gRPC server starting to listen on :{inv.number('port')}")
    return (yield from _forever(io))


def _serve_hostname(inv: Invocation, io: Io) -> Process:
    if inv.flag("http") and (inv.flag("tcp") or inv.flag("udp")):
        yield from _log(io, "Can't server TCP/UDP mode and HTTP mode at the same time")
        return 1
    yield from _log(io, f"Serving on port {inv.number('port')}.")
    # On SIGTERM it logs, then waits a minute for its pod to be deleted, and returns.
    return (yield from _forever(io, term_delay_s=60.0, term_code=0))


def _nettest(inv: Invocation, io: Io) -> Process:
    if not inv.text("service"):
        yield from _log(io, "Must provide -service flag.")
        return 1
    delay = inv.number("delay-shutdown")
    return (yield from _forever(io, term_delay_s=float(delay) if delay > 0 else 0.0, term_code=0 if delay > 0 else 2))


def _serving(inv: Invocation, io: Io) -> Process:
    return (yield from _forever(io))


def _connect(inv: Invocation, io: Io) -> Process:
    """Open a connection to HOST:PORT and say what went wrong, with the prefixes tests look for."""
    from fakecri.sim.programs.netclient import resolve, source_ip, split_host_port

    proto = inv.text("protocol") or "tcp"
    if proto not in ("tcp", "udp"):
        yield from io.error("Unsupported protocol\n" if proto != "sctp" else "OTHER: SCTP is not modelled\n")
        return 1
    hp = split_host_port(inv.args[0])
    if hp is None:
        yield from io.error(f"UNKNOWN: address {inv.args[0]}: missing port in address\n")
        return 1
    ip = resolve(hp[0], io.ctx.userland)
    if ip is None:
        yield from io.error(f"DNS: lookup {hp[0]}: no such host\n")
        return 1
    try:
        timeout = go_duration(inv.text("timeout"))
    except ValueError:
        timeout = 0.0
    data = (inv.text("udp-data") + "\n").encode() if proto == "udp" else b""
    result = yield Connect(TCP if proto == "tcp" else UDP, ip, hp[1], data, timeout or 30.0,
                           stop_after=0 if proto == "tcp" else 1024, source=source_ip(io.ctx.userland))
    if not isinstance(result, NetResult) or not result.error:
        return 0
    if result.error == "timeout":
        yield from io.error("TIMEOUT\n")
    elif result.error == "refused":
        yield from io.error("REFUSED\n")
    else:
        yield from io.error(f"OTHER: dial {proto} {inv.args[0]}: connect: network is unreachable\n")
    return 1


# ---------------------------------------------------------------- what the servers listen on


def _netexec_listens(inv: Invocation, env: Mapping[str, str]) -> tuple[Listen, ...]:
    out = [Listen(TCP, inv.number("http-port"), HTTP, tls=bool(inv.text("tls-cert-file")))]
    if inv.number("udp-port") != -1:
        out.append(Listen(UDP, inv.number("udp-port"), DATAGRAM))
    if inv.number("sctp-port") != -1:
        out.append(Listen("sctp", inv.number("sctp-port"), DATAGRAM))
    return tuple(out)


def _serve_hostname_listens(inv: Invocation, env: Mapping[str, str]) -> tuple[Listen, ...]:
    port = inv.number("port")
    out = []
    if inv.flag("tcp"):
        out.append(Listen(TCP, port, GREETING))
    if inv.flag("udp"):
        out.append(Listen(UDP, port, DATAGRAM))
    if inv.flag("http") and not out:
        out.append(Listen(TCP, port, HTTP))
    return tuple(out)


PORTER_PREFIXES = (("SERVE_PORT_", TCP), ("SERVE_TCP_PORT_", TCP), ("SERVE_UDP_PORT_", UDP),
                   ("SERVE_TLS_PORT_", "tls"), ("SERVE_SCTP_PORT_", "sctp"))


def porter_ports(env: Mapping[str, str]) -> list[tuple[str, int, str]]:
    """(protocol, port, value) of each `SERVE_*_PORT_N` variable porter serves."""
    out = []
    for key, value in env.items():
        for prefix, proto in PORTER_PREFIXES:
            if key.startswith(prefix) and key[len(prefix):].isdigit() and 0 < int(key[len(prefix):]) < 65536:
                out.append((proto, int(key[len(prefix):]), value))
                break
    return out


def _porter_listens(inv: Invocation, env: Mapping[str, str]) -> tuple[Listen, ...]:
    kinds = {TCP: (TCP, HTTP), UDP: (UDP, DATAGRAM), "tls": (TCP, HTTP), "sctp": ("sctp", DATAGRAM)}
    return tuple(Listen(kinds[proto][0], port, kinds[proto][1], tls=proto == "tls")
                 for proto, port, _ in porter_ports(env))


def _one_port(flag: str | None, default: int, kind: str = HTTP) -> Listens:
    def listens(inv: Invocation, env: Mapping[str, str]) -> tuple[Listen, ...]:
        return (Listen(TCP, inv.number(flag) if flag else default, kind),)
    return listens


def _grpc_listens(inv: Invocation, env: Mapping[str, str]) -> tuple[Listen, ...]:
    return (Listen(TCP, inv.number("port"), GRPC_HEALTH), Listen(TCP, inv.number("http-port"), HTTP))


# ---------------------------------------------------------------- the table


def _f(kind: str, default: int | str | bool) -> Flag:
    return Flag(kind, default)


_TLS = {"tls-cert-file": _f(STRING, ""), "tls-private-key-file": _f(STRING, "")}

SUBCOMMANDS: dict[str, Subcommand] = {
    "pause": Subcommand(run=_pause),
    "entrypoint-tester": Subcommand(max_args=None, run=_entrypoint_tester),
    "etc-hosts": Subcommand(run=_etc_hosts),
    "dns-suffix": Subcommand(run=_resolv_field("search")),
    "dns-server-list": Subcommand(run=_resolv_field("nameserver")),
    "netexec": Subcommand(flags={
        "http-port": _f(INT, 8080), "udp-port": _f(INT, 8081), "sctp-port": _f(INT, -1), **_TLS,
        "http-override": _f(STRING, ""), "udp-listen-addresses": _f(STRING, ""), "delay-shutdown": _f(INT, 0)},
        run=_netexec, listens=_netexec_listens),
    "liveness": Subcommand(run=_serving, listens=_one_port(None, 8080)),
    "test-webserver": Subcommand(flags={"port": _f(INT, 80)}, run=_serving, listens=_one_port("port", 80)),
    "grpc-health-checking": Subcommand(flags={
        "port": _f(INT, 5000), "http-port": _f(INT, 8080), "delay-unhealthy-sec": _f(INT, -1),
        "service": _f(STRING, ""), **_TLS}, run=_grpc_health, listens=_grpc_listens),
    "serve-hostname": Subcommand(flags={
        "tcp": _f(BOOL, False), "udp": _f(BOOL, False), "http": _f(BOOL, True), "close": _f(BOOL, False),
        "port": _f(INT, 9376)}, run=_serve_hostname, listens=_serve_hostname_listens),
    "porter": Subcommand(flags={"json-response": _f(BOOL, False)}, run=_serving, listens=_porter_listens),
    "nettest": Subcommand(flags={
        "port": _f(INT, 8080), "peers": _f(INT, 8), "service": _f(STRING, "nettest"),
        "namespace": _f(STRING, "default"), "delay-shutdown": _f(INT, 0)},
        run=_nettest, listens=_one_port("port", 8080)),
    "fake-gitserver": Subcommand(run=_serving, listens=_one_port(None, 8000)),
    "connect": Subcommand(flags={
        "timeout": _f(STRING, "0s"), "protocol": _f(STRING, "tcp"), "udp-data": _f(STRING, "hostname"),
        "sctp-data": _f(STRING, "hostname")}, max_args=None, exact_args=1, run=_connect),
}


def register(name: str, sub: Subcommand) -> None:
    """Model one more subcommand (it must be one of agnhost's): its flags, how many arguments
    it takes, what it does as a process (`run(invocation, io)`) and what it listens on. This
    is how a subcommand modelled in another module (mounttest) joins the table."""
    if name not in ALL_SUBCOMMANDS:
        raise ValueError(f"agnhost has no subcommand {name!r}")
    SUBCOMMANDS[name] = sub


# ---------------------------------------------------------------- the command line


@dataclass(frozen=True, slots=True)
class Refused:
    """A command line agnhost refuses: what it prints to stderr, and its exit code."""

    message: str
    exit_code: int = 1


def _help() -> str:
    width = max(len(n) for n in ALL_SUBCOMMANDS)
    lines = [f"  {name:<{width}}" for name in ALL_SUBCOMMANDS]
    return (f"Usage:\n  {ROOT} [command]\n\nAvailable Commands:\n" + "\n".join(lines) +
            f"\n\nUse \"{ROOT} [command] --help\" for more information about a command.\n")


def invocation(argv: Sequence[str]) -> Invocation | Refused | str:
    """What `argv` (argv[0] agnhost itself) runs: an Invocation, a Refused command line, or
    the help text agnhost prints (and exits 0)."""
    args = list(argv[1:])
    while args and args[0].startswith("-") and args[0] not in ("-h", "--help"):
        args.pop(0)  # the root's own (logging) flags
    if not args or args[0] in ("-h", "--help", "help"):
        return _help()
    name, rest = args[0], args[1:]
    if name not in ALL_SUBCOMMANDS:
        near = [s for s in ALL_SUBCOMMANDS if s.lower().startswith(name.lower())
                or _distance(name, s) <= 2]
        hint = "\n\nDid you mean this?\n" + "".join(f"\t{s}\n" for s in near) if near else ""
        return Refused(f"Error: unknown command \"{name}\" for \"{ROOT}\"{hint}\n")
    sub = SUBCOMMANDS.get(name, Subcommand(max_args=None))
    if sub.own_command_line and not {"-h", "--help"} & set(rest):
        return Invocation(tuple(argv), name, {}, tuple(rest))
    try:
        values, positional = parse(rest, sub.flags)
    except HelpAsked:
        return f"Usage:\n  {ROOT} {name} [flags]\n"
    except FlagError as exc:
        return Refused(f"Error: {exc}\n")
    if sub.exact_args is not None and len(positional) != sub.exact_args:
        return Refused(f"Error: accepts {sub.exact_args} arg(s), received {len(positional)}\n")
    if sub.max_args is not None and len(positional) > sub.max_args:
        return Refused(f"Error: accepts at most {sub.max_args} arg(s), received {len(positional)}\n")
    return Invocation(tuple(argv), name, values, tuple(positional))


def _distance(a: str, b: str) -> int:
    """A Levenshtein distance, case-insensitive, as cobra's suggestions measure it."""
    a, b = a.lower(), b.lower()
    if a == b:
        return 0
    if abs(len(a) - len(b)) > 2:
        return 3
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def agnhost(args: list[str], io: Io) -> Process:
    """The agnhost binary as a command of the shell."""
    inv = invocation([io.argv0 or "/agnhost", *args])
    if isinstance(inv, str):
        yield from io.write(inv)
        return 0
    if isinstance(inv, Refused):
        yield from io.error(inv.message)
        return inv.exit_code
    sub = SUBCOMMANDS.get(inv.sub)
    if sub is None or sub.run is None:
        return (yield from _forever(io))  # a real subcommand not modelled (yet: see `register`): it runs on
    return (yield from sub.run(inv, io))


def listens(argv: Sequence[str], env: Mapping[str, str]) -> tuple[Listen, ...]:
    """The sockets `argv` (an agnhost command line) listens on while it runs."""
    inv = invocation(argv)
    if not isinstance(inv, Invocation):
        return ()
    sub = SUBCOMMANDS.get(inv.sub)
    return sub.listens(inv, env) if sub is not None and sub.listens is not None else ()


# Subcommands that read the container's files (their plans are built with its userland).
READS_USERLAND = frozenset({"etc-hosts", "dns-suffix", "dns-server-list", "connect", "mounttest"})
