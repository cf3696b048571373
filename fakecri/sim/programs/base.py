"""What a serving program is to the rest of the simulation: the sockets it listens on, and
how it answers what comes in on them.

A container whose program serves (agnhost netexec, nginx...) gets one `Server` while it
runs. The server's listeners (fakecri/server/host/listeners.py) open the real sockets its `listens`
names on the pod's addresses and hand each request to it. Answers are decided here, from
the request, the program's flags and state, and `Here` (the time, the container's hostname,
a shell inside it); an answer that needs time or the network is a process that yields
`Sleep` and `Connect` steps, which the server carries out.
"""
from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from fakecri.sim.programs.http import HttpRequest, HttpResponse, error
from fakecri.sim.steps import Process, Read, Reply, Step, Write

HTTP, GRPC_HEALTH, GREETING, DATAGRAM = "http", "grpc-health", "greeting", "datagram"
SERVING, NOT_SERVING, UNKNOWN_SERVICE = "SERVING", "NOT_SERVING", "NOT_FOUND"


@dataclass(frozen=True, slots=True)
class Listen:
    """One socket a program listens on: `proto` "tcp" or "udp" (or "sctp", not opened), its
    port, and what it speaks there: HTTP (over TLS with `tls`), gRPC health, a greeting
    written to each connection (raw TCP), or datagrams."""

    proto: str
    port: int
    kind: str
    tls: bool = False  # HTTP over TLS (HTTPS)


@dataclass(frozen=True, slots=True)
class Here:
    """Where a request is answered: the moment, the container and the means to look into it."""

    container_id: str
    now_ns: int
    started_ns: int  # when the container started
    hostname: str
    pod_ip: str
    shell: Callable[[Sequence[str]], Process]  # a command run inside the container
    userland: Callable[[], Any]  # the container's Userland (fakecri.sim.userland)

    @property
    def running_s(self) -> float:
        return (self.now_ns - self.started_ns) / 1e9


@dataclass(frozen=True, slots=True)
class Answer:
    """What a request gets: a response (None: the connection is dropped unanswered), and the
    container's exit when the request made the program exit (its exit code)."""

    response: HttpResponse | None
    exit_code: int | None = None


Handler = Generator[Step, Reply, Answer]


def answered(resp: HttpResponse | None, exit_code: int | None = None) -> Handler:
    """A handler that answers at once."""
    return Answer(resp, exit_code)
    yield  # a generator that yields nothing


class Server:
    """A serving program's state while its container runs; the defaults answer nothing."""

    listens: tuple[Listen, ...] = ()

    def http(self, port: int, request: HttpRequest, here: Here) -> Handler:
        return answered(error("404 page not found", 404))

    def datagram(self, port: int, data: bytes, client: str, here: Here) -> bytes | None:
        return None

    def greeting(self, port: int, here: Here) -> bytes:
        return b""

    def grpc_health(self, port: int, service: str, here: Here) -> str:
        return UNKNOWN_SERVICE


def capture(proc: Process, output: list[str]) -> Generator[Step, Reply, int]:
    """Run `proc` with its output (both streams, in order) collected into `output` and no
    input; its other steps (sleeping, the network) pass through to the driver."""
    reply: Reply = None
    try:
        step = proc.send(None)
        while True:
            if isinstance(step, Write):
                output.append(step.text)
                reply = None
            elif isinstance(step, Read):
                reply = None  # no input: its end
            else:
                reply = yield step
            step = proc.send(reply)
    except StopIteration as done:
        return int(done.value or 0) & 0xFF
