"""Pod IP allocation from the pod CIDR (IPv4 or IPv6).

The network address and the first host (the gateway, ".1") are never handed out.
Addresses are released when their sandbox is removed. Changing the CIDR keeps the
addresses already given; new ones come from the new range.
"""
from __future__ import annotations

import ipaddress

from fakecri.engine.errors import InvalidArgument, ResourceExhausted


def parse_cidr(cidr: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    try:
        net = ipaddress.ip_network(cidr.strip(), strict=False)
    except ValueError as exc:
        raise InvalidArgument(f"pod CIDR {cidr!r} is not a valid CIDR: {exc}") from None
    if net.num_addresses < 4:
        raise InvalidArgument(f"pod CIDR {cidr!r} is too small to hold pods")
    return net


class IpPool:
    def __init__(self, cidr: str) -> None:
        self.used: set[str] = set()
        self.set_cidr(cidr)

    def set_cidr(self, cidr: str) -> None:
        net = parse_cidr(cidr)
        self.cidr = str(net)
        self._net = net
        self._first = int(net.network_address) + 2  # skip the network address and the gateway
        self._last = int(net.broadcast_address) - (1 if net.version == 4 else 0)
        self._cursor = self._first

    def allocate(self) -> str:
        span = self._last - self._first + 1
        addr_cls = ipaddress.IPv4Address if self._net.version == 4 else ipaddress.IPv6Address
        n = self._cursor
        for _ in range(min(span, len(self.used) + 1)):
            ip = str(addr_cls(n))
            n = n + 1 if n < self._last else self._first
            if ip not in self.used:
                self.used.add(ip)
                self._cursor = n
                return ip
        raise ResourceExhausted(f"pod CIDR {self.cidr} has no free address left ({len(self.used)} in use)")

    def claim(self, ip: str) -> None:
        if ip:
            self.used.add(ip)

    def release(self, ip: str) -> None:
        self.used.discard(ip)

    def release_all(self) -> None:
        self.used.clear()
