"""HTTP/1.1 as the simulated programs speak it: requests and responses as values, and their
bytes on the wire, for the servers a container runs and for the clients it runs (wget,
curl, netexec's /dial). Pure: the server's listeners and dialer carry the bytes.

Responses are written as Go's net/http writes them (the agnhost servers are Go programs):
a status line, the headers, `Content-Length`, and the body; `Connection: close`, since every
listener answers one request per connection.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

MAX_HEAD = 64 * 1024  # bytes of request or response head read at most
MAX_BODY = 1 << 20  # bytes of body kept at most


def reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One request a server in a container got: `target` as sent (`/echo?msg=hi`)."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    client: str = ""  # "ip:port" of the peer
    local: str = ""  # "ip:port" the request came in on

    @property
    def path(self) -> str:
        target = self.target
        if "://" in target.split("?", 1)[0]:  # an absolute form (a proxy's request)
            return urlsplit(target).path or "/"
        return target.split("?", 1)[0].split("#", 1)[0] or "/"

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(self.target.partition("?")[2].split("#", 1)[0], keep_blank_values=True)

    def header(self, name: str) -> str:
        """The first value of header `name` ("" when absent), as Go's Header.Get finds it."""
        low = name.lower()
        return next((v for k, v in self.headers if k.lower() == low), "")

    def form(self, name: str) -> str:
        """The first value of form field `name` from the query or a url-encoded body (Go's FormValue)."""
        values = self.query.get(name)
        if values is None and self.header("content-type").startswith("application/x-www-form-urlencoded"):
            values = parse_qs(self.body.decode("latin-1"), keep_blank_values=True).get(name)
        return values[0] if values else ""


@dataclass(frozen=True, slots=True)
class HttpResponse:
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()

    def header(self, name: str) -> str:
        low = name.lower()
        return next((v for k, v in self.headers if k.lower() == low), "")


def text(body: str | bytes, status: int = 200, *headers: tuple[str, str]) -> HttpResponse:
    """A response as Go writes one without a Content-Type of its own: text is sniffed as text/plain."""
    data = body.encode("utf-8", "surrogateescape") if isinstance(body, str) else body
    kind = ("Content-Type", "text/plain; charset=utf-8") if data else None
    return HttpResponse(status, data, tuple(headers) + ((kind,) if kind and not any(
        k.lower() == "content-type" for k, _ in headers) else ()))


def error(message: str, status: int) -> HttpResponse:
    """Go's http.Error: the message and a newline, as text/plain, with nosniff."""
    return HttpResponse(status, (message + "\n").encode(), (
        ("Content-Type", "text/plain; charset=utf-8"), ("X-Content-Type-Options", "nosniff")))


def redirect(location: str, status: int, request: HttpRequest) -> HttpResponse:
    """Go's http.Redirect: a relative location is taken from the request's directory; a GET
    or HEAD gets a short HTML note pointing there."""
    if not urlsplit(location).scheme and not location.startswith("/"):
        base = request.path.rsplit("/", 1)[0]
        location = base + "/" + location
    body = b""
    if request.method in ("GET", "HEAD"):
        body = f'<a href="{location}">{reason(status)}</a>.\n\n'.encode()
    headers = (("Location", location),) + ((("Content-Type", "text/html; charset=utf-8"),) if body else ())
    return HttpResponse(status, body, headers)


def encode_response(resp: HttpResponse, *, head_only: bool = False, date: str = "") -> bytes:
    """The bytes of `resp` on the wire (`date`: the Date header's value, when the server has one)."""
    lines = [f"HTTP/1.1 {resp.status} {reason(resp.status)}"]
    lines += [f"{k}: {v}" for k, v in resp.headers if k.lower() not in ("content-length", "connection")]
    if date:
        lines.append(f"Date: {date}")
    lines += [f"Content-Length: {len(resp.body)}", "Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1", "replace") + (b"" if head_only else resp.body)


def parse_request_head(head: bytes) -> tuple[str, str, tuple[tuple[str, str], ...]] | None:
    """(method, target, headers) of a request head, None when it is not HTTP."""
    lines = head.decode("latin-1").split("\r\n")
    words = lines[0].split()
    if len(words) != 3 or not words[2].startswith("HTTP/"):
        return None
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep and name.strip():
            headers.append((name.strip(), value.strip()))
    return words[0], words[1], tuple(headers)


# ---------------------------------------------------------------- the client side


@dataclass(frozen=True, slots=True)
class Url:
    scheme: str
    host: str
    port: int
    target: str  # path and query

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


def parse_url(url: str, default_scheme: str = "http") -> Url | None:
    """A URL as wget and curl read one (a missing scheme is http); None when it has no host."""
    if "://" not in url:
        url = f"{default_scheme}://{url}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    scheme = parts.scheme.lower()
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Url(scheme, parts.hostname, port or (443 if scheme == "https" else 80), target)


def encode_request(method: str, url: Url, headers: tuple[tuple[str, str], ...] = (), body: bytes = b"",
                   agent: str = "") -> bytes:
    lines = [f"{method} {url.target} HTTP/1.1", f"Host: {url.host_header}"]
    if agent:
        lines.append(f"User-Agent: {agent}")
    lines += [f"{k}: {v}" for k, v in headers]
    if body or method in ("POST", "PUT"):
        lines.append(f"Content-Length: {len(body)}")
    lines += ["Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1", "replace") + body


@dataclass(frozen=True, slots=True)
class Parsed:
    """A response as a client read it off the wire."""

    status: int
    reason: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    extra: dict[str, str] = field(default_factory=dict)

    def header(self, name: str) -> str:
        low = name.lower()
        return next((v for k, v in self.headers if k.lower() == low), "")


def parse_response(data: bytes) -> Parsed | None:
    """The response in `data` (everything the server sent); None when it is not an HTTP response."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    if not sep:
        return None
    lines = head.decode("latin-1").split("\r\n")
    words = lines[0].split(" ", 2)
    if len(words) < 2 or not words[0].startswith("HTTP/") or not words[1].isdigit():
        return None
    headers = tuple((k.strip(), v.strip()) for k, sep2, v in (line.partition(":") for line in lines[1:]) if sep2)
    parsed = Parsed(int(words[1]), words[2] if len(words) > 2 else "", headers)
    body = rest
    if parsed.header("transfer-encoding").lower() == "chunked":
        body = _dechunk(rest)
    elif parsed.header("content-length").isdigit():
        body = rest[:int(parsed.header("content-length"))]
    return Parsed(parsed.status, parsed.reason, headers, body)


def _dechunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        size_line, sep, data = data.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
        except ValueError:
            break
        if not sep or size == 0:
            break
        out += data[:size]
        data = data[size + 2:]
    return bytes(out)
