"""agnhost netexec's servers: its HTTP endpoints and its UDP commands.

As its source defines them: `/` (the time), `/clientip`, `/serverport`, `/header`, `/dial`
(requests to another server over HTTP or UDP, `tries` times), `/echo`, `/exit`, `/healthz`,
`/readyz`, `/hostname` (and `/hostName`), `/redirect`, `/shell`, `/shutdown`, `/upload`;
`--http-override` answers every request as that path would. Its mux is Go's: `/` catches
every path no other pattern names, and a path that is not clean is redirected (301) to
its clean form. The UDP server answers `hostname`, `echo MSG`, `clientip` and `serverport`
(lower-cased, trimmed). `/healthz` says 200 once the UDP (or SCTP) server runs, so with
`--udp-port=-1` it stays 412, as agnhost's does.
"""
from __future__ import annotations

import posixpath
from collections.abc import Generator

from fakecri.sim.programs import netclient
from fakecri.sim.programs.agnhost import Invocation
from fakecri.sim.programs.base import Answer, Handler, Here, Server, answered, capture
from fakecri.sim.programs.flags import go_duration
from fakecri.sim.programs.gofmt import canonical_header, go_json, go_time
from fakecri.sim.programs.http import HttpRequest, HttpResponse, error, parse_url, redirect, text
from fakecri.sim.steps import NO_NETWORK, UDP, Connect, NetResult, Reply, Sleep, Step, Write

DIAL_TIMEOUT_S = 5.0  # netexec's client and UDP read timeouts
UDP_COMMANDS = ("hostname", "echo ", "clientip", "serverport")


def clean_path(path: str) -> str:
    """Go's path.Clean for a URL path, keeping a trailing slash as the mux does."""
    if not path:
        return "/"
    cleaned = posixpath.normpath("/" + path.lstrip("/")) if path != "/" else "/"
    cleaned = "/" + cleaned.lstrip("/")
    if path.endswith("/") and cleaned != "/":
        cleaned += "/"
    return cleaned


class Netexec(Server):
    def __init__(self, inv: Invocation) -> None:
        self.inv = inv
        self.http_port = inv.number("http-port")
        self.ready = inv.number("udp-port") != -1 or inv.number("sctp-port") != -1
        self.uploads = 0

    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        override = self.inv.text("http-override")
        if override:
            request = HttpRequest("GET", override, request.headers, b"", request.client, request.local)
        path = request.path
        if clean_path(path) != path:
            query = request.target.partition("?")[2]
            return (yield from answered(redirect(clean_path(path) + (f"?{query}" if query else ""), 301, request)))
        line = request_log(path, request)
        if line:
            yield Write("stderr", line + "\n")  # netexec logs every request it handles
        route = _ROUTES.get(path)
        if route is None:
            return (yield from answered(text("NOW: " + go_time(here.now_ns, here.started_ns))))
        return (yield from route(self, request, here))

    def datagram(self, port: int, data: bytes, client: str, here: Here) -> bytes | None:
        said = data.decode("utf-8", "replace").strip().lower()
        if said == "hostname":
            return here.hostname.encode()
        if said.startswith("echo "):
            return said.split(" ", 1)[1].encode()
        if said == "clientip":
            return client.encode()
        if said == "serverport":
            return str(port).encode()
        return None

    # ------------------------------------------------------------ endpoints

    def on_clientip(self, req: HttpRequest, here: Here) -> Handler:
        return answered(text(req.client))

    def on_serverport(self, req: HttpRequest, here: Here) -> Handler:
        return answered(text(str(self.http_port)))

    def on_header(self, req: HttpRequest, here: Here) -> Handler:
        key = req.form("key")
        if key:
            return answered(text(req.header(key)))
        headers: dict[str, list[str]] = {}
        for name, value in req.headers:
            if name.lower() != "host":  # Go keeps the Host header apart from the others
                headers.setdefault(canonical_header(name), []).append(value)
        return answered(text(go_json(headers)))

    def on_echo(self, req: HttpRequest, here: Here) -> Handler:
        msg, code = req.form("msg"), req.form("code")
        if code:
            try:
                status = int(code)
            except ValueError:
                return answered(text(f"argument 'code' must be an integer or empty, got \"{code}\"\n"))
            return answered(text(msg, status) if 100 <= status <= 999 else text(msg))
        return answered(text(msg))

    def on_exit(self, req: HttpRequest, here: Here) -> Handler:
        wait_s, timeout_s = 0.0, 0.0
        for name in ("timeout", "wait"):
            value = req.form(name)
            try:
                seconds = go_duration(value) if value else 0.0
            except ValueError:
                return answered(text(f"argument '{name}' must be a valid golang duration or empty, got \"{value}\"\n"))
            wait_s, timeout_s = (wait_s, seconds) if name == "timeout" else (seconds, timeout_s)
        code_text = req.form("code")
        try:
            code = int(code_text) if code_text else 0
        except ValueError:
            return answered(text(f"argument 'code' must be an integer [0-127] or empty, got \"{code_text}\"\n"))
        return self.exit_after(wait_s, timeout_s, code)

    def exit_after(self, wait_s: float, timeout_s: float, code: int) -> Handler:
        if wait_s > 0:
            yield Sleep(round(wait_s * 1e9))
        # Without a timeout the process exits at once, the request unanswered; with one, the
        # server shuts down gracefully: this request is answered first.
        return Answer(None if timeout_s <= 0 else HttpResponse(200), code & 0xFF)

    def on_healthz(self, req: HttpRequest, here: Here) -> Handler:
        return answered(HttpResponse(200 if self.ready else 412))

    def on_readyz(self, req: HttpRequest, here: Here) -> Handler:
        return answered(text("ok") if self.ready else HttpResponse(412))

    def on_hostname(self, req: HttpRequest, here: Here) -> Handler:
        return answered(text(here.hostname))

    def on_redirect(self, req: HttpRequest, here: Here) -> Handler:
        code_text = req.form("code")
        status = 302
        if code_text:
            try:
                status = int(code_text)
            except ValueError:
                return answered(text(f"argument 'code' must be an integer or empty, got \"{code_text}\"\n"))
        return answered(redirect(req.form("location"), status, req))

    def on_shell(self, req: HttpRequest, here: Here) -> Handler:
        cmd = req.form("shellCommand") or req.form("cmd")
        output: list[str] = []
        code = yield from capture(here.shell(["/bin/sh", "-c", cmd]), output)
        result: dict[str, str] = {}
        if "".join(output):
            result["output"] = "".join(output)
        if code:
            result["error"] = f"exit status {code}"
        return Answer(text(go_json(result)))

    def on_shutdown(self, req: HttpRequest, here: Here) -> Handler:
        return answered(None, 0)

    def on_upload(self, req: HttpRequest, here: Here) -> Handler:
        data = _form_file(req)
        if data is None:
            return answered(text(go_json({"error": "Unable to upload file."})))
        self.uploads += 1
        name = f"/uploads/upload{self.uploads:09d}"
        try:
            here.userland().write(name, data)
        except Exception:  # the userland's FileError: /uploads cannot be written
            return answered(text(go_json({"error": "Unable to open file for write"})))
        return answered(text(go_json({"output": name}), 201))

    def on_dial(self, req: HttpRequest, here: Here) -> Handler:
        q = req.query

        def one(name: str) -> str:
            return q.get(name, [""])[0]

        host, port, request, protocol, tries_text = one("host"), one("port"), one("request"), one("protocol"), \
            one("tries")
        tries = 1
        if tries_text:
            try:
                tries = int(tries_text)
            except ValueError:
                return Answer(error(f"tries parameter is invalid. strconv.Atoi: parsing \"{tries_text}\": "
                                      "invalid syntax", 400))
        if not request:
            return Answer(error("request parameter not specified. <nil>", 400))
        proto = protocol.lower()
        if proto not in ("", "http", "udp", "sctp"):
            return Answer(error(f"unsupported protocol. {protocol}", 400))
        ip = netclient.resolve(host, here.userland) if host else "0.0.0.0"
        if ip is None or not port.isdigit() or int(port) > 65535:
            why = f"lookup {host}: no such host" if ip is None else f"address {port}: invalid port"
            return Answer(error(f"host and/or port param are invalid. {why}", 400))
        if proto == "sctp":
            return Answer(error("host and/or port param are invalid. SCTP is not modelled", 400))
        address = f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"
        responses: list[str] = []
        errors: list[str] = []
        last = ""
        for _ in range(max(0, tries)):
            if proto == "udp":
                last, err = yield from _dial_udp(request, ip, int(port), address, netclient.source_ip(here.userland))
            else:
                last, err = yield from _dial_http(request, address, here)
            if err:
                errors.append(err)
            else:
                responses.append(last)
        output: dict[str, list[str]] = {}
        if last:
            output["responses"] = responses
        if errors:
            output["errors"] = errors
        return Answer(text(go_json(output)))


def request_log(path: str, req: HttpRequest) -> str:
    """The line netexec's handler for `path` logs (without Go's timestamp)."""
    f = req.form
    q = req.query
    if path not in _ROUTES:
        return "GET /"
    if path == "/echo":
        return f"GET /echo?msg={f('msg')}&code={f('code')}"
    if path == "/header":
        return f"GET /header?key={f('key')}" if f("key") else "GET /header"
    if path == "/dial":
        def one(name: str) -> str:
            return q.get(name, [""])[0]
        return (f"GET /dial?host={one('host')}&protocol={one('protocol')}&port={one('port')}"
                f"&request={one('request')}&tries={one('tries')}")
    if path == "/exit":
        return f"GET /exit?code={f('code')}&timeout={f('timeout')}&wait={f('wait')}"
    if path == "/redirect":
        return f"{req.method} /redirect?msg={f('location')}&code={f('code')}"
    if path == "/shell":
        return f"GET /shell?cmd={f('shellCommand') or f('cmd')}"
    return f"GET {path}"


def _dial_http(request: str, address: str, here: Here) -> Generator[Step, Reply, tuple[str, str]]:
    url_text = f"http://{address}/{request}"
    url = parse_url(url_text)
    if url is None:
        return "", f"parse \"{url_text}\": invalid URL"
    got = yield from netclient.fetch("GET", url, here.userland, timeout_s=DIAL_TIMEOUT_S,
                                     agent="Go-http-client/1.1", redirects=netclient.MAX_REDIRECTS)
    if got.response is not None:
        return got.response.body.decode("utf-8", "replace"), ""
    dialed = f"{url.host}:{url.port}" if got.url is None else f"{got.url.host}:{got.url.port}"
    why = {"refused": f"dial tcp {dialed}: connect: connection refused",
           "timeout": "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
           "reset": "read: connection reset by peer", "malformed": "malformed HTTP response",
           "redirects": "stopped after 10 redirects"}.get(
        got.error, f"dial tcp {dialed}: connect: network is unreachable")
    return "", f"Get \"{url_text}\": {why}"


def _dial_udp(request: str, ip: str, port: int, address: str, source: str) -> Generator[Step, Reply, tuple[str, str]]:
    result = yield Connect(UDP, ip, port, request.encode(), DIAL_TIMEOUT_S, stop_after=2048, source=source)
    if not isinstance(result, NetResult):
        result = NO_NETWORK
    if result.data and not result.error:
        return result.data.decode("utf-8", "replace"), ""
    local = result.local or "0.0.0.0:0"
    why = {"timeout": "i/o timeout", "refused": "read: connection refused"}.get(result.error, "network is unreachable")
    return "", f"reading from udp connection failed. err:'read udp {local}->{address}: {why}'"


def _form_file(req: HttpRequest) -> bytes | None:
    """The content of the multipart form field `file`; None when there is none."""
    kind = req.header("content-type")
    if not kind.startswith("multipart/form-data"):
        return None
    from email.parser import BytesParser  # only for an upload: it costs 4 ms at every start
    from email.policy import HTTP as HTTP_POLICY

    message = BytesParser(policy=HTTP_POLICY).parsebytes(b"Content-Type: " + kind.encode() + b"\r\n\r\n" + req.body)
    if not message.is_multipart():
        return None
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            payload = part.get_payload(decode=True)
            return payload if isinstance(payload, bytes) else None
    return None


_ROUTES = {
    "/clientip": Netexec.on_clientip, "/serverport": Netexec.on_serverport, "/header": Netexec.on_header,
    "/dial": Netexec.on_dial, "/echo": Netexec.on_echo, "/exit": Netexec.on_exit, "/healthz": Netexec.on_healthz,
    "/readyz": Netexec.on_readyz, "/hostname": Netexec.on_hostname, "/hostName": Netexec.on_hostname,
    "/redirect": Netexec.on_redirect, "/shell": Netexec.on_shell, "/shutdown": Netexec.on_shutdown,
    "/upload": Netexec.on_upload,
}
