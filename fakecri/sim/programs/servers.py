"""The small servers: agnhost's liveness, test-webserver, grpc-health-checking,
serve-hostname, porter, nettest and fake-gitserver, and the web servers of the nginx and
httpd images. (netexec, the big one, is in `netexec.py`.) Each answers as its program's
source or its image's server does; docs/behaviour.md lists what each does and does not."""
from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping

from fakecri.sim.programs.agnhost import Invocation, porter_ports
from fakecri.sim.programs.base import (
    NOT_SERVING,
    SERVING,
    UNKNOWN_SERVICE,
    Handler,
    Here,
    Listen,
    Server,
    answered,
)
from fakecri.sim.programs.flags import go_duration_string
from fakecri.sim.programs.gofmt import go_float, go_json
from fakecri.sim.programs.http import HttpRequest, HttpResponse, error, redirect, text

NOT_FOUND = error("404 page not found", 404)  # Go's mux, for a path nothing handles


class Liveness(Server):
    """Healthy for 10 seconds after it starts, then /healthz answers 500."""

    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        path, running = request.path, here.running_s
        if path == "/started":
            return answered(text(go_duration_string(running)))
        if path == "/healthz":
            if running > 10:
                return answered(text(f"error: {go_float(running)}", 500))
            return answered(text("ok"))
        if path == "/redirect":
            return answered(redirect(request.query.get("loc", [""])[0], 302, request))
        return answered(NOT_FOUND)


class TestWebserver(Server):
    """A file server of the container's root filesystem."""

    HEADERS = (("Cache-Control", "private"), ("Access-Control-Allow-Origin", "*"),
               ("Access-Control-Allow-Credentials", "true"), ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
               ("Access-Control-Allow-Headers",
                "DNT,X-Mx-ReqToken,Keep-Alive,User-Agent,X-Requested-With,Cache-Control,Content-Type"))

    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        path = posixpath.normpath("/" + request.path.lstrip("/"))
        world = here.userland()
        if not world.exists(path):
            return answered(HttpResponse(404, b"404 page not found\n", self.HEADERS + (
                ("Content-Type", "text/plain; charset=utf-8"), ("X-Content-Type-Options", "nosniff"))))
        if world.is_dir(path):
            if not request.path.endswith("/"):
                return answered(redirect(posixpath.basename(path) + "/", 301, request))
            names = sorted(world.listdir(path))
            links = "".join(f'<a href="{n}{"/" if world.is_dir(posixpath.join(path, n)) else ""}">{n}'
                            f'{"/" if world.is_dir(posixpath.join(path, n)) else ""}</a>\n' for n in names)
            body = f'<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n{links}</pre>\n'
            return answered(HttpResponse(200, body.encode(), self.HEADERS + (
                ("Content-Type", "text/html; charset=utf-8"),)))
        try:
            data = bytes(world.read(path))
        except Exception:  # the userland's FileError
            return answered(HttpResponse(403, b"403 Forbidden\n", self.HEADERS))
        return answered(text(data, 200, *self.HEADERS))


class GrpcHealth(Server):
    """SERVING for the configured service until --delay-unhealthy-sec, NOT_SERVING after (or
    once /make-not-serving was called), NOT_FOUND for any other service."""

    def __init__(self, inv: Invocation) -> None:
        self.service = inv.text("service")
        self.delay = inv.number("delay-unhealthy-sec")
        self.forced: bool | None = None

    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        if request.path in ("/make-not-serving", "/make-serving"):
            self.forced = request.path == "/make-not-serving"
            return answered(text(go_duration_string(here.running_s)))
        return answered(NOT_FOUND)

    def grpc_health(self, port: int, service: str, here: Here) -> str:
        if service != self.service:
            return UNKNOWN_SERVICE
        if self.forced or (self.delay >= 0 and here.running_s >= self.delay):
            return NOT_SERVING
        return SERVING


class ServeHostname(Server):
    """Its hostname, over HTTP (any path), raw TCP or UDP."""

    def __init__(self, inv: Invocation) -> None:
        self.close = inv.flag("close")

    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        extra = (("Connection", "close"),) if self.close else ()
        return answered(text(here.hostname, 200, *extra))

    def greeting(self, port: int, here: Here) -> bytes:
        return here.hostname.encode()

    def datagram(self, port: int, data: bytes, client: str, here: Here) -> bytes | None:
        return here.hostname.encode()


class Porter(Server):
    """The value of SERVE_PORT_N (and the TCP, UDP variants) on port N, for any request."""

    def __init__(self, inv: Invocation, env: Mapping[str, str]) -> None:
        self.json = inv.flag("json-response")
        self.values = {(proto if proto != "tls" else "tcp", port): value for proto, port, value in porter_ports(env)}

    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        value = self.values.get(("tcp", port), "")
        if self.json:
            body = go_json({"Method": request.method, "Body": value}, struct=True)
            return answered(text(body, 200, ("Content-Type", "application/json")))
        return answered(text(value))

    def datagram(self, port: int, data: bytes, client: str, here: Here) -> bytes | None:
        return self.values.get(("udp", port), "").encode()


class Nettest(Server):
    """Its /read, /write, /status and /quit. Finding its peers needs the Kubernetes API from
    inside the pod, which is not modelled: it never gets past the first step, so /status
    says "running" and nothing is sent."""

    def __init__(self, inv: Invocation) -> None:
        self.peers = inv.number("peers")
        self.received: dict[str, int] = {}
        self.errors: list[str] = []

    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        path = request.path
        if path == "/quit":
            return answered(None, 0)
        if path == "/status":
            passed = self.peers <= 0 and len(self.received) >= self.peers
            return answered(text("pass" if passed else "running"))
        if path == "/write":
            try:
                post = json.loads(request.body or b"null")
            except ValueError as exc:
                self.errors.append(str(exc))
                post = None
            source = post.get("Source", "") if isinstance(post, dict) else ""
            if source:
                self.received[source] = self.received.get(source, 0) + 1
            else:
                self.errors.append(f"{here.hostname}: Got request with no source")
            return answered(text(go_json({"Hostname": here.hostname}) + "\n"))
        if path == "/read":
            state = {"Hostname": here.hostname, "Sent": None, "Received": self.received or None,
                     "Errors": self.errors or None, "Log": None, "StillContactingPeers": True}
            return answered(text(go_json(state, indent="\t", struct=True)))
        return answered(NOT_FOUND)


class FakeGitServer(Server):
    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        return answered(text("I am a fake git server"))


# ---------------------------------------------------------------- the web server images

NGINX_PAGE = b"""<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>Served by fakecri for a container of an nginx image; no nginx runs.</p>
</body>
</html>
"""
HTTPD_PAGE = b"<html><body><h1>It works!</h1></body></html>\n"
NGINX_404 = (b"<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1>"
             b"</center>\r\n<hr><center>nginx/1.14.2</center>\r\n</body>\r\n</html>\r\n")
HTTPD_404 = (b"<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head><title>404 Not Found</title></head>"
             b"<body><h1>Not Found</h1></body></html>\n")


class WebServer(Server):
    """nginx or httpd serving its image's welcome page at `/` and `/index.html`, 404 elsewhere."""

    def __init__(self, kind: str, ports: tuple[int, ...]) -> None:
        self.kind = kind
        self.listens = tuple(Listen("tcp", p, "http") for p in ports)

    def page(self, path: str) -> HttpResponse:
        httpd = self.kind == "httpd"
        banner = ("Server", "Apache/2.4.39 (Unix)" if httpd else "nginx/1.14.2")
        if path.split("?", 1)[0] in ("/", "/index.html"):
            return HttpResponse(200, HTTPD_PAGE if httpd else NGINX_PAGE, (banner, ("Content-Type", "text/html")))
        return HttpResponse(404, HTTPD_404 if httpd else NGINX_404, (banner, ("Content-Type", "text/html")))

    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        return answered(self.page(request.path))
