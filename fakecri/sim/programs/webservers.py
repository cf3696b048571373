"""The httpd images' own program as their container's command: what it writes when it
starts, then serving until stopped, shutting down at once on SIGTERM (exit 0). What it
answers on its ports is `WebServer` (servers.py).

httpd (the official image's `httpd-foreground`, which execs `httpd -DFOREGROUND`) warns
twice on stderr that it cannot tell the server's fully qualified name, naming the address
it uses instead, as every container of the image without a `ServerName` does; the
time-stamped notices that follow are not written (a command here does not know the time).
nginx 1.14, the version of Kubernetes' test image, writes nothing when it starts, so it
needs nothing here. In an image that is not httpd's, these names stay programs we do not
model.
"""
from __future__ import annotations

from fakecri.sim.shell.io import Command, Io
from fakecri.sim.steps import Process, Sleep, Trap

HTTPD_NAMES = ("httpd", "httpd-foreground", "apache2", "apache2-foreground")


def _httpd(args: list[str], io: Io) -> Process:
    world = io.ctx.userland() if io.ctx.userland is not None else None
    content = getattr(world, "content", None)
    if content is not None and not (content.http_ports and content.http_server == "httpd"):
        if io.ctx.main:  # not httpd's image: a program we cannot see into
            yield Sleep(None)
        return 0
    address = getattr(world, "ip", "") or "127.0.1.1"  # without a pod address: its hostname's
    warning = (f"AH00558: httpd: Could not reliably determine the server's fully qualified domain name, "
               f"using {address}. Set the 'ServerName' directive globally to suppress this message\n")
    yield from io.error(warning)  # once as it reads its configuration, once as it starts for good
    yield from io.error(warning)
    yield Trap(0, 0)  # a graceful stop: exits 0 at once
    yield Sleep(None)
    return 0


WEB_SERVER_COMMANDS: dict[str, Command] = {name: _httpd for name in HTTPD_NAMES}
