"""The client side of a container's network: names to addresses, and HTTP requests made
through `Connect` steps (which the server carries out on real sockets).

Names resolve as in a pod without cluster DNS: IP literals as they are, `localhost` and
the loopback addresses to the pod's own address (a pod's loopback is its own network
namespace, which here is the pod IP), and other names through the container's
`/etc/hosts`. Nothing else resolves.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from fakecri.engine.specs import NODE
from fakecri.sim.programs.http import Parsed, Url, encode_request, parse_response, parse_url
from fakecri.sim.steps import NO_NETWORK, TCP, Connect, NetResult, Reply, Step

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
MAX_REDIRECTS = 10  # Go's http.Client and curl -L stop after this many (wget after 20)


def _ip(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        return None


def _own(ip: str, userland: Callable[[], Any] | None) -> str:
    """`ip` as seen from the container: its loopback is its pod's own address."""
    if userland is None or ip not in ("127.0.0.1", "::1"):
        return ip
    world = userland()
    if world is None or getattr(world.spec, "network_mode", None) == NODE or not world.ip:
        return ip
    return str(world.ip)


def resolve(name: str, userland: Callable[[], Any] | None) -> str | None:
    """The address `name` reaches from inside the container; None when it does not resolve."""
    literal = _ip(name)
    if literal is not None:
        return _own(literal, userland)
    low = name.lower().rstrip(".")
    if low in LOOPBACK_NAMES:
        return _own("127.0.0.1", userland)
    if userland is None:
        return None
    try:
        hosts = bytes(userland().read("/etc/hosts")).decode("utf-8", "replace")
    except Exception:  # no /etc/hosts to read (no userland, or no such file)
        return None
    for line in hosts.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 2 and low in (w.lower() for w in words[1:]):
            found = _ip(words[0])
            if found is not None:
                return _own(found, userland)
    return None


def source_ip(userland: Callable[[], Any] | None) -> str:
    """The address the container's connections go out from: its pod's IP ("" on the host's
    network, or without a userland: any)."""
    if userland is None:
        return ""
    world = userland()
    if world is None or getattr(world.spec, "network_mode", None) == NODE:
        return ""
    return str(world.ip or "")


def split_host_port(text: str) -> tuple[str, int] | None:
    """("host", port) of `host:port` or `[v6]:port`; None without a valid port."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        return None
    return host.strip("[]"), int(port)


@dataclass(frozen=True, slots=True)
class Fetched:
    """The last response of a request (after the redirects followed), or why there was none."""

    response: Parsed | None
    error: str = ""  # a NetResult error, "dns", "malformed" or "redirects"
    url: Url | None = None  # the URL that answered


def fetch(method: str, url: Url, userland: Callable[[], Any] | None, *, timeout_s: float,
          headers: tuple[tuple[str, str], ...] = (), body: bytes = b"", agent: str = "",
          redirects: int = 0, insecure: bool = False) -> Generator[Step, Reply, Fetched]:
    """Send one request to `url` and read the response, following up to `redirects` redirects.
    HTTPS only when the client does not verify (`insecure`): every server here presents
    fakecri's self-signed certificate."""
    for _ in range(redirects + 1):
        if url.scheme == "https" and not insecure:
            return Fetched(None, "certificate", url)
        ip = resolve(url.host, userland)
        if ip is None:
            return Fetched(None, "dns", url)
        result = yield Connect(TCP, ip, url.port, encode_request(method, url, headers, body, agent), timeout_s,
                               source=source_ip(userland), tls=url.scheme == "https")
        if not isinstance(result, NetResult):
            result = NO_NETWORK
        if result.error and not result.data:
            return Fetched(None, result.error, url)
        parsed = parse_response(result.data)
        if parsed is None:
            return Fetched(None, "malformed", url)
        location = parsed.header("location")
        if not (redirects and parsed.status in (301, 302, 303, 307, 308) and location):
            return Fetched(parsed, "", url)
        nxt = parse_url(urljoin(f"{url.scheme}://{url.host_header}{url.target}", location))
        if nxt is None:
            return Fetched(parsed, "", url)
        if parsed.status == 303 or (parsed.status in (301, 302) and method == "POST"):
            method, body = "GET", b""
        url = nxt
    return Fetched(None, "redirects", url)
