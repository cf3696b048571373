"""Who a TCP listener lets in, and a check that it can be bound before grpc tries.

A unix socket has an owner and a mode; a TCP port has neither: every local user reaches a
loopback port, and every host that can route to it reaches any other address. So fakecri
serves CRI on TCP only where asked (`--listen`), on loopback unless `allow_remote` says
otherwise (with a warning), and never the control API (docs/operating.md, "Who may connect").
"""
from __future__ import annotations

import ipaddress
import socket

from fakecri.server.exceptions import SettingError


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
