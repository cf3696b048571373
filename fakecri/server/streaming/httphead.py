"""Just enough HTTP/1.1 to route an upgrade request: parse its head, write a plain response."""
from __future__ import annotations

from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import parse_qs, unquote, urlsplit


class BadRequest(Exception):
    pass


@dataclass(frozen=True)
class RequestHead:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: tuple[tuple[str, str], ...]  # (lower-case name, value), in order

    def header(self, name: str) -> str:
        name = name.lower()
        return next((v for k, v in self.headers if k == name), "")

    def header_list(self, name: str) -> list[str]:
        """Every value of a header, whether repeated or comma-separated."""
        name = name.lower()
        return [item.strip() for k, v in self.headers if k == name
                for item in v.split(",") if item.strip()]

    def has_token(self, name: str, token: str) -> bool:
        return token.lower() in (v.lower() for v in self.header_list(name))


def parse_head(raw: bytes) -> RequestHead:
    try:
        text = raw.decode("latin-1")
        lines = text.split("\r\n")
        method, target, version = lines[0].split(" ", 2)
    except ValueError:
        raise BadRequest("malformed request line") from None
    if not version.startswith("HTTP/1."):
        raise BadRequest(f"unsupported HTTP version {version!r}")
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip():
            raise BadRequest(f"malformed header line {line!r}")
        headers.append((name.strip().lower(), value.strip()))
    parts = urlsplit(target)
    return RequestHead(method.upper(), unquote(parts.path), parse_qs(parts.query), tuple(headers))


def response(status: int, body: str = "", headers: dict[str, str] | None = None) -> bytes:
    """A complete response; a non-101 response also closes the connection."""
    phrase = HTTPStatus(status).phrase
    data = body.encode("utf-8")
    lines = [f"HTTP/1.1 {status} {phrase}"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if status != 101:
        lines += ["Content-Type: text/plain; charset=utf-8", f"Content-Length: {len(data)}",
                  "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data
