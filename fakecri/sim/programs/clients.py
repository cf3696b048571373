"""The network tools a command inside a container runs: busybox `wget` and `nc`, `curl`
(where the image ships it) and `ip`.

The clients make real connections through `Connect` steps (the server carries them out,
on loopback only), so they reach the listeners of other containers' programs. Messages
and exit codes are the tools' own. `ip` shows the pod's interfaces and refuses to change
links without NET_ADMIN. HTTPS works where the client does not verify (`curl -k`, `wget
--no-check-certificate`): every server here presents fakecri's self-signed certificate.
`nc -l` and progress meters are not modelled.
"""
from __future__ import annotations

import posixpath
from typing import Any

from fakecri.sim.programs import netclient
from fakecri.sim.programs.http import Parsed, parse_url
from fakecri.sim.shell import Command, Io, Process
from fakecri.sim.steps import NO_NETWORK, TCP, UDP, Connect, NetResult, Sleep, Trap

DEFAULT_TIMEOUT_S = 300.0  # what the tools wait without a timeout of their own (the dialer's cap)


def _world(io: Io) -> Any:
    return io.ctx.userland() if io.ctx.userland is not None else None


def _ships(io: Io, program: str) -> bool:
    """Whether the container's image has `program` (beyond busybox's applets)."""
    world = _world(io)
    return world is None or program in getattr(world.content, "programs", ())


def _not_found(io: Io) -> Process:
    yield from io.error(f"{io.shell}: {io.argv0}: not found\n")
    return 127


def _seconds(text: str, default: float) -> float:
    try:
        value = float(text)
    except ValueError:
        return default
    return value if value > 0 else default


def _status_line(r: Parsed) -> str:
    return f"HTTP/1.1 {r.status} {r.reason}".rstrip()


# ---------------------------------------------------------------- wget (busybox)


def getopt(args: list[str], valued: str, long_valued: frozenset[str] = frozenset()) -> tuple[
        list[str], list[tuple[str, str]], list[str]]:
    """Options as getopt reads them: (flags, (option, value) pairs, operands). `valued` holds
    the letters that take a value (`-O FILE`, `-OFILE`, `-qO-`), `long_valued` the long
    options that do (`--header X`, `--header=X`)."""
    flags: list[str] = []
    values: list[tuple[str, str]] = []
    operands: list[str] = []
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a == "--":
            operands += rest
            break
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            if name in long_valued:
                values.append((name, value if eq else (rest.pop(0) if rest else "")))
            else:
                flags.append(name)
        elif a.startswith("-") and len(a) > 1:
            for i, ch in enumerate(a[1:], 1):
                if ch in valued:
                    values.append(("-" + ch, a[i + 1:] or (rest.pop(0) if rest else "")))
                    break
                flags.append("-" + ch)
        else:
            operands.append(a)
    return flags, values, operands


_WGET_LONG = frozenset({"--header", "--post-data", "--user-agent", "--timeout", "--output-document"})


def _wget(args: list[str], io: Io) -> Process:
    flags, values, urls = getopt(args, "OTUPoY", _WGET_LONG)
    quiet = "-q" in flags or "--quiet" in flags
    spider = "--spider" in flags
    server_response = "-S" in flags or "--server-response" in flags
    output, timeout, agent = "", DEFAULT_TIMEOUT_S, "Wget"
    headers: list[tuple[str, str]] = []
    body: bytes | None = None
    for name, value in values:
        if name in ("-O", "--output-document"):
            output = value
        elif name in ("-T", "--timeout"):
            timeout = _seconds(value, timeout)
        elif name in ("-U", "--user-agent"):
            agent = value
        elif name == "--header":
            key, _, val = value.partition(":")
            headers.append((key.strip(), val.strip()))
        elif name == "--post-data":
            body = value.encode()
    if not urls:
        yield from io.error("BusyBox v1.37.0 multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] "
                            "[--header STR] [-U AGENT] [-T SEC] URL...\n")
        return 1
    status = 0
    for text in urls:
        url = parse_url(text)
        if url is None or url.scheme not in ("http", "https"):
            yield from io.error(f"wget: not an http or ftp url: {text}\n")
            status = 1
            continue
        ip = netclient.resolve(url.host, io.ctx.userland)
        if ip is None:
            yield from io.error(f"wget: bad address '{url.host}'\n")
            status = 1
            continue
        if not quiet:
            yield from io.error(f"Connecting to {url.host_header} ({ip}:{url.port})\n")
        got = yield from netclient.fetch("POST" if body is not None else ("HEAD" if spider else "GET"), url,
                                         io.ctx.userland, timeout_s=timeout, headers=tuple(headers),
                                         body=body or b"", agent=agent, redirects=20,
                                         insecure="--no-check-certificate" in flags)
        if got.response is None:
            yield from io.error(_wget_failure(got.error, ip) + "\n")
            status = 1
            continue
        r = got.response
        if server_response:
            yield from io.error(f"  {_status_line(r)}\n" + "".join(f"  {k}: {v}\n" for k, v in r.headers))
        if r.status >= 400 or r.status < 200:
            yield from io.error(f"wget: server returned error: {_status_line(r)}\n")
            status = 1
            continue
        if spider:
            if not quiet:
                yield from io.error("remote file exists\n")
            continue
        status = max(status, (yield from _wget_save(io, r, output, got.url.target if got.url else url.target, quiet)))
    return status


def _wget_failure(error: str, ip: str) -> str:
    if error == "timeout":
        return "wget: download timed out"
    if error == "refused":
        return f"wget: can't connect to remote host ({ip}): Connection refused"
    if error == "reset":
        return "wget: error getting response: Connection reset by peer"
    if error == "malformed":
        return "wget: error getting response"
    if error == "certificate":
        return "wget: server certificate verification failed: self-signed certificate"
    return f"wget: can't connect to remote host ({ip}): Network is unreachable"


def _wget_save(io: Io, r: Parsed, output: str, target: str, quiet: bool) -> Process:
    text = r.body.decode("utf-8", "surrogateescape")
    if output == "-":
        if not quiet:
            yield from io.error("writing to stdout\n")
        yield from io.write(text)
        if not quiet:
            yield from io.error("written to stdout\n")
        return 0
    name = output or (posixpath.basename(target.split("?", 1)[0]) or "index.html")
    world = _world(io)
    if not quiet:
        yield from io.error(f"saving to '{name}'\n")
    if world is not None:
        try:
            world.write(name, r.body)
        except Exception as exc:  # the userland's FileError
            yield from io.error(f"wget: can't open '{name}': {getattr(exc, 'reason', exc)}\n")
            return 1
    if not quiet:
        yield from io.error(f"'{name}' saved\n")
    return 0


# ---------------------------------------------------------------- curl


_CURL_VALUE = {"-o", "--output", "-m", "--max-time", "--connect-timeout", "-X", "--request", "-H", "--header",
               "-d", "--data", "--data-raw", "--data-binary", "-w", "--write-out", "-A", "--user-agent",
               "--retry", "--retry-delay", "--retry-max-time", "-u", "--user", "-e", "--referer"}


def _curl(args: list[str], io: Io) -> Process:
    if not _ships(io, "curl"):
        return (yield from _not_found(io))
    flags: set[str] = set()
    values: dict[str, list[str]] = {}
    urls: list[str] = []
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a in _CURL_VALUE and rest:
            values.setdefault(a, []).append(rest.pop(0))
        elif a.startswith("--") and "=" in a and a.split("=", 1)[0] in _CURL_VALUE:
            name, _, value = a.partition("=")
            values.setdefault(name, []).append(value)
        elif a.startswith("--"):
            flags.add(a)
        elif a.startswith("-") and len(a) > 1:
            for i, ch in enumerate(a[1:]):
                if "-" + ch in _CURL_VALUE:
                    value = a[i + 2:] or (rest.pop(0) if rest else "")
                    values.setdefault("-" + ch, []).append(value)
                    break
                flags.add("-" + ch)
        else:
            urls.append(a)

    def one(*names: str) -> str:
        return next((values[n][-1] for n in names if n in values), "")

    silent = bool(flags & {"-s", "--silent"})
    show_error = bool(flags & {"-S", "--show-error"}) or not silent
    if not urls:
        yield from io.error("curl: try 'curl --help' or 'curl --manual' for more information\n")
        return 2
    data = one("-d", "--data", "--data-raw", "--data-binary")
    head = bool(flags & {"-I", "--head"})
    method = one("-X", "--request") or ("HEAD" if head else "POST" if data else "GET")
    headers = tuple((k.strip(), v.strip()) for k, _, v in (h.partition(":") for h in
                                                            values.get("-H", []) + values.get("--header", [])))
    if data and not any(k.lower() == "content-type" for k, _ in headers):
        headers += (("Content-Type", "application/x-www-form-urlencoded"),)
    timeout = _seconds(one("-m", "--max-time"), DEFAULT_TIMEOUT_S)
    follow = bool(flags & {"-L", "--location"})
    status = 0
    for text in urls:
        url = parse_url(text)
        if url is None or url.scheme not in ("http", "https"):
            status = 1 if url is None else 3
            if show_error:
                yield from io.error(f"curl: ({status}) URL rejected: Bad hostname\n" if url is None else
                                    f"curl: (1) Protocol \"{url.scheme}\" not supported\n")
            continue
        got = yield from netclient.fetch(method, url, io.ctx.userland, timeout_s=timeout, headers=headers,
                                         body=data.encode(), agent=one("-A", "--user-agent") or "curl/8.12.1",
                                         redirects=netclient.MAX_REDIRECTS if follow else 0,
                                         insecure=bool(flags & {"-k", "--insecure"}))
        if got.response is None:
            code, message = _curl_failure(got.error, url.host, url.port, timeout)
            status = code
            if show_error:
                yield from io.error(f"curl: ({code}) {message}\n")
            continue
        r = got.response
        if flags & {"-f", "--fail"} and r.status >= 400:
            status = 22
            if show_error:
                yield from io.error(f"curl: (22) The requested URL returned error: {r.status}\n")
            continue
        out = ""
        if flags & {"-i", "--include"} or head:
            out += f"{_status_line(r)}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in r.headers) + "\r\n"
        if not head:
            out += r.body.decode("utf-8", "surrogateescape")
        target = one("-o", "--output")
        if target and target != "-":
            world = _world(io)
            if world is not None:
                world.write(target, out.encode("utf-8", "surrogateescape"))
        else:
            yield from io.write(out)
        fmt = one("-w", "--write-out")
        if fmt:
            yield from io.write(_write_out(fmt, r, got.url.host if got.url else url.host, url.port))
    return status


def _curl_failure(error: str, host: str, port: int, timeout: float) -> tuple[int, str]:
    if error == "dns":
        return 6, f"Could not resolve host: {host}"
    if error == "refused":
        return 7, f"Failed to connect to {host} port {port} after 0 ms: Could not connect to server"
    if error == "timeout":
        return 28, f"Operation timed out after {int(timeout * 1000)} milliseconds with 0 bytes received"
    if error == "reset":
        return 56, "Recv failure: Connection reset by peer"
    if error == "malformed":
        return 52, "Empty reply from server"
    if error == "certificate":
        return 60, ("SSL certificate problem: self-signed certificate\nMore details here: "
                    "https://curl.se/docs/sslcerts.html")
    return 7, f"Failed to connect to {host} port {port} after 0 ms: Could not connect to server"


def _write_out(fmt: str, r: Parsed, host: str, port: int) -> str:
    out = fmt.replace("\\n", "\n").replace("\\t", "\t")
    for key, value in (("http_code", f"{r.status:03d}"), ("response_code", f"{r.status:03d}"),
                       ("remote_ip", host), ("remote_port", str(port)), ("size_download", str(len(r.body)))):
        out = out.replace("%{" + key + "}", value)
    return out


# ---------------------------------------------------------------- nc (busybox)


def _nc(args: list[str], io: Io) -> Process:
    udp, zero, verbose, wait_s = False, False, False, 0.0
    words: list[str] = []
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a == "-w" and rest:
            wait_s = _seconds(rest.pop(0), 0.0)
        elif a.startswith("-w") and len(a) > 2:
            wait_s = _seconds(a[2:], 0.0)
        elif a == "-l" or a == "-p":
            yield from io.error("nc: listening is not modelled\n")
            return 1
        elif a.startswith("-") and len(a) > 1:
            udp, zero, verbose = udp or "u" in a, zero or "z" in a, verbose or "v" in a
        else:
            words.append(a)
    if len(words) != 2 or not words[1].isdigit():
        yield from io.error("BusyBox v1.37.0 multi-call binary.\n\nUsage: nc [OPTIONS] HOST PORT  - connect\n")
        return 1
    host, port = words[0], int(words[1])
    ip = netclient.resolve(host, io.ctx.userland)
    if ip is None:
        yield from io.error(f"nc: bad address '{host}'\n")
        return 1
    data = b""
    if not zero:
        chunks = []
        while (chunk := (yield from io.stdin.read())) is not None:
            chunks.append(chunk)
        data = b"".join(chunks)
    timeout = wait_s or (5.0 if udp else DEFAULT_TIMEOUT_S)
    result = yield Connect(UDP if udp else TCP, ip, port, data, timeout, stop_after=0 if zero else 1 << 20,
                           source=netclient.source_ip(io.ctx.userland))
    if not isinstance(result, NetResult):
        result = NO_NETWORK
    if result.data:
        yield from io.write(result.data.decode("utf-8", "surrogateescape"))
    if result.error and not (udp and result.error == "timeout"):
        if result.error == "refused":
            yield from io.error(f"nc: can't connect to remote host ({ip}): Connection refused\n" if not udp
                                else "nc: read: Connection refused\n")
        elif result.error == "timeout" and not result.data:
            yield from io.error("nc: timed out\n")
        elif result.error not in ("timeout",):
            yield from io.error(f"nc: can't connect to remote host ({ip}): Network is unreachable\n")
        return 1 if not result.data else 0
    if zero and verbose:
        yield from io.error(f"{host} ({ip}:{port}) open\n")
    return 0


# ---------------------------------------------------------------- ip


def _ip(args: list[str], io: Io) -> Process:
    world = _world(io)
    words = [a for a in args if not a.startswith("-")]
    obj = words[0] if words else ""
    verb = words[1] if len(words) > 1 else "show"
    changes = verb in ("add", "del", "delete", "set", "change", "replace", "flush", "append")
    if changes:
        if world is not None and not world.privilege.may("NET_ADMIN"):
            yield from io.error("ip: RTNETLINK answers: Operation not permitted\n")
            return 2
        return 0
    ip = str(getattr(world, "ip", "") or "") if world is not None else ""
    if obj in ("link", "l"):
        yield from io.write(_LINKS)
    elif obj in ("addr", "address", "a", ""):
        yield from io.write(_LINKS.replace("    link/ether", f"    inet {ip}/24 scope global eth0\n    link/ether")
                            if ip else _LINKS)
    elif obj in ("route", "r"):
        if ip:
            gateway = ".".join(ip.split(".")[:3] + ["1"]) if "." in ip else ip
            yield from io.write(f"default via {gateway} dev eth0\n")
    else:
        yield from io.error(f"ip: unknown object '{obj}'\n" if obj else "")
        return 1
    return 0


_LINKS = ("1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN qlen 1000\n"
          "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
          "2: eth0@if2: <BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN> mtu 1500 qdisc noqueue state UP\n"
          "    link/ether 0a:58:0a:00:00:02 brd ff:ff:ff:ff:ff:ff\n")


def _pause(args: list[str], io: Io) -> Process:
    """The pause image's program: it sleeps until SIGTERM or SIGINT, and exits 0 on either."""
    if not _ships(io, "pause"):
        return (yield from _not_found(io))
    yield Trap(0, 0)
    yield Sleep(None)
    return 0


CLIENT_COMMANDS: dict[str, Command] = {"wget": _wget, "curl": _curl, "nc": _nc, "ip": _ip, "pause": _pause}
