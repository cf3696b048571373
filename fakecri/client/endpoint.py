"""CRI endpoints as the kubelet writes them, turned into gRPC targets."""
from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from fakecri.client.errors import InvalidEndpointError


@dataclass(frozen=True)
class Endpoint:
    """A parsed endpoint. `scheme` is "unix" or "tcp"; `address` a socket path or host:port."""

    scheme: str
    address: str

    @property
    def target(self) -> str:
        """The string to hand to grpc.insecure_channel."""
        if self.scheme == "unix":
            if self.address.startswith("/"):
                return "unix://" + self.address
            return "unix:" + self.address
        return self.address

    def __str__(self) -> str:
        if self.scheme == "unix":
            return "unix://" + self.address
        return "tcp://" + self.address


def parse_endpoint(endpoint: str) -> Endpoint:
    """Parse `unix:///path`, `unix:/path`, a bare path, or `tcp://host:port`.

    A bare path is read as a unix socket, which the kubelet still accepts (with a
    deprecation warning). Other schemes (npipe, http, ...) are refused.
    """
    text = endpoint.strip()
    if not text:
        raise InvalidEndpointError("empty endpoint")
    if "://" not in text and not text.startswith("unix:") and not text.startswith("tcp:"):
        if text.startswith("/") or text.startswith(".") or os.sep in text:
            return Endpoint("unix", os.path.normpath(text) if text.startswith("/") else text)
        raise InvalidEndpointError(f"{endpoint!r} is neither a URL nor a socket path")
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme == "unix":
        if parts.netloc:
            raise InvalidEndpointError(
                f"{endpoint!r}: a unix endpoint has no host part; write unix:///absolute/path"
            )
        if not parts.path:
            raise InvalidEndpointError(f"{endpoint!r}: no socket path")
        return Endpoint("unix", parts.path)
    if scheme == "tcp":
        if not parts.netloc:
            raise InvalidEndpointError(f"{endpoint!r}: write tcp://host:port")
        try:
            port = parts.port
        except ValueError as exc:
            raise InvalidEndpointError(f"{endpoint!r}: bad port") from exc
        if port is None:
            raise InvalidEndpointError(f"{endpoint!r}: a tcp endpoint needs a port")
        return Endpoint("tcp", parts.netloc)
    raise InvalidEndpointError(f"{endpoint!r}: protocol {scheme!r} is not supported (use unix or tcp)")
