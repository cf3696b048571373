"""The programs the simulation knows by name, beyond the shell's and busybox's commands:
the commands they add to the shell (agnhost, the network clients), and the servers some of
them run. Each is acted out as its source defines it.

`COMMANDS` extends the shell's command table. `server_for` says whether a container's
command is a program that serves, and builds its `Server`: agnhost's serving subcommands,
and an nginx or httpd image's web server (the ports are the image's, see image_content).
A command wrapped in a shell (`sh -c 'echo start; exec /agnhost netexec'`) serves when its
last statement does.
"""
from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence

from fakecri.sim.image_content import SERVER_PROGRAMS, ImageContent
from fakecri.sim.programs import agnhost as _agnhost
from fakecri.sim.programs import mounttest
from fakecri.sim.programs.base import Listen, Server
from fakecri.sim.programs.clients import CLIENT_COMMANDS
from fakecri.sim.programs.netexec import Netexec
from fakecri.sim.programs.servers import (
    FakeGitServer,
    GrpcHealth,
    Liveness,
    Nettest,
    Porter,
    ServeHostname,
    TestWebserver,
    WebServer,
)
from fakecri.sim.programs.webservers import WEB_SERVER_COMMANDS
from fakecri.sim.shell import SHELLS, Command
from fakecri.sim.shell import static as syntax

_agnhost.register("mounttest", _agnhost.Subcommand(run=lambda inv, io: mounttest.run(list(inv.args), io),
                                                   own_command_line=True))
AGNHOST_NAMES = frozenset({"agnhost", "agnhost-2"})
COMMANDS: dict[str, Command] = {**{name: _agnhost.agnhost for name in AGNHOST_NAMES}, **CLIENT_COMMANDS,
                                **WEB_SERVER_COMMANDS}

_AGNHOST_SERVERS: dict[str, Callable[[_agnhost.Invocation, Mapping[str, str]], Server]] = {
    "netexec": lambda inv, env: Netexec(inv),
    "liveness": lambda inv, env: Liveness(),
    "test-webserver": lambda inv, env: TestWebserver(),
    "grpc-health-checking": lambda inv, env: GrpcHealth(inv),
    "serve-hostname": lambda inv, env: ServeHostname(inv),
    "porter": lambda inv, env: Porter(inv, env),
    "nettest": lambda inv, env: Nettest(inv),
    "fake-gitserver": lambda inv, env: FakeGitServer(),
}


def program_argv(argv: Sequence[str]) -> tuple[str, ...]:
    """The program a command line ends up running: itself, or the last statement of a
    `sh -c SCRIPT` (prefixes such as `exec` dropped)."""
    words = syntax.strip_prefixes([str(a) for a in argv])
    for _ in range(3):  # sh -c "sh -c '...'" at most this deep
        if len(words) < 3 or posixpath.basename(words[0]) not in SHELLS or not words[1].startswith("-") \
                or "c" not in words[1]:
            break
        node = syntax.tree(words[2])
        last = syntax.last_simple(node) if node is not None else None
        if last is None:
            return ()
        words = syntax.strip_prefixes(syntax.argv_of(last))
    return tuple(words)


def may_serve(argv: tuple[str, ...], content: ImageContent) -> bool:
    """False when `server_for` is sure to answer None: an image without a web server of its
    own, and a command line that runs no serving agnhost subcommand."""
    return bool(content.http_ports) or _serving_agnhost(argv)


@functools.lru_cache(maxsize=1024)
def _serving_agnhost(argv: tuple[str, ...]) -> bool:
    words = program_argv(argv)
    if not words or posixpath.basename(words[0]) not in AGNHOST_NAMES:
        return False
    inv = _agnhost.invocation(words)
    return isinstance(inv, _agnhost.Invocation) and inv.sub in _AGNHOST_SERVERS


def server_for(argv: Sequence[str], env: Mapping[str, str], content: ImageContent) -> Server | None:
    """The server the command line `argv` (of an image with `content`) runs; None when it
    serves nothing."""
    if content.http_ports and tuple(argv) == content.entrypoint + content.cmd:
        return WebServer(content.http_server, content.http_ports)  # the image's own web server
    words = program_argv(argv)
    if not words:
        return None
    name = posixpath.basename(words[0])
    if name in AGNHOST_NAMES:
        inv = _agnhost.invocation(words)
        if not isinstance(inv, _agnhost.Invocation) or inv.sub not in _AGNHOST_SERVERS:
            return None
        server = _AGNHOST_SERVERS[inv.sub](inv, env)
        server.listens = _agnhost.listens(words, env)
        return server
    if name in SERVER_PROGRAMS and content.http_ports:
        return WebServer(content.http_server, content.http_ports)
    return None


# Tools that need the container's userland: its privileges (ip), its address and /etc/hosts (the clients,
# httpd's start-up warning), its image (pause, httpd).
USERLAND_TOOLS = frozenset({"ip", "wget", "curl", "nc", "pause", *WEB_SERVER_COMMANDS})
_WORD = re.compile(r"[\w.-]+")


def reads_userland(argv: Sequence[str]) -> bool:
    """Whether the command line runs a program of this table that looks into the container
    (its files, privileges or address), so that its plan must be built with its userland."""
    if any(w in USERLAND_TOOLS for w in _WORD.findall(" ".join(argv).replace("/", " "))):
        return True
    words = program_argv(argv)
    if not words or posixpath.basename(words[0]) not in AGNHOST_NAMES:
        return False
    inv = _agnhost.invocation(words)
    return isinstance(inv, _agnhost.Invocation) and inv.sub in _agnhost.READS_USERLAND


__all__ = ["COMMANDS", "Listen", "Server", "may_serve", "program_argv", "reads_userland", "server_for"]
