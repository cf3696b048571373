"""The steps a simulated process takes, as values its driver carries out.

A process is a generator: it yields a step and is sent the step's answer. `Write` and
`Sleep` are answered with None, `READ` with the next chunk of input (None at its end),
and `Connect` with a `NetResult`: the one step that needs the real network, which only
the server's drivers perform (the simulation opens nothing itself). `LOOK` (a sleep of no
time) marks the moment a command looks at files; `Trap` says how it takes SIGTERM.
"""
from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Write:
    """Write `text` to `stream` ("stdout" or "stderr"; PID1 + one of them: to that stream of the
    container's PID 1, which is the container's log, from another of its processes)."""

    stream: str
    text: str


# A Write's stream with this prefix goes to the container's own command's stream (its log): what an
# exec or a hook writes to /proc/1/fd/1 or /proc/1/fd/2. Drivers that cannot reach the log drop it.
PID1 = "pid1:"


def of_pid1(stream: str) -> str | None:
    """The stream of PID 1's that a Write's `stream` names, None if it is the process's own."""
    return stream[len(PID1):] if stream.startswith(PID1) else None


@dataclass(frozen=True, slots=True)
class Sleep:
    """Let `ns` nanoseconds pass; None: until stopped."""

    ns: int | None


class Read:
    """Ask for input. The driver answers with bytes, or None at the end of the input."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "READ"


READ = Read()
# A command is about to look at files, which change with time: a driver that works a process out
# ahead of time (a container's plan) stops here once time has passed; a live one goes on.
LOOK = Sleep(0)

TCP, UDP = "tcp", "udp"
# What a connection that failed ran into, as `NetResult.error` names it.
REFUSED, TIMEOUT, UNREACHABLE, RESET = "refused", "timeout", "unreachable", "reset"


@dataclass(frozen=True, slots=True)
class Connect:
    """Talk to `host:port` over the network: connect (TCP) or send one datagram (UDP), send
    `data`, then read the answer (TCP: until the peer closes, or until `stop_after` bytes
    came; UDP: one datagram), all within `timeout_s`. `host` is an IP address. The driver
    answers with a `NetResult`."""

    proto: str
    host: str
    port: int
    data: bytes
    timeout_s: float
    stop_after: int = 1 << 20  # bytes read at most (0: none, close once connected and sent)
    source: str = ""  # the address it goes out from (the pod's IP), "" for any
    tls: bool = False  # TLS over the TCP connection (the server's certificate is not verified)


@dataclass(frozen=True, slots=True)
class NetResult:
    """What a `Connect` got: the bytes read, and why it stopped early ("" when it did not)."""

    data: bytes = b""
    error: str = ""  # "", REFUSED, TIMEOUT, UNREACHABLE or RESET
    local: str = ""  # the address:port the connection went out from


NO_NETWORK = NetResult(error=UNREACHABLE)


@dataclass(frozen=True, slots=True)
class Trap:
    """How the process takes SIGTERM from now on: it exits with `exit_code` after `delay_ns`
    (None: it ignores the signal and waits to be killed). `delivered`: it takes the signal
    into itself and what happens is its own doing (a shell's `trap ACTION TERM`): the driver
    throws the signal in (`Delivered`, fakecri.sim.shell.io) and runs it on from there; the
    delay and the code then say nothing. Its driver answers with None. Whether the signal
    reaches it at all, as PID 1, is sim/signals.py's to say."""

    delay_ns: int | None
    exit_code: int | None
    delivered: bool = False


class Delivered(Exception):
    """A signal from outside the process (a runtime's stop, another process's `kill`): a live
    driver throws it into the process where it waits (a sleep, a read, the network).
    `elapsed_ns`: how long of that wait had passed when the signal came."""

    def __init__(self, name: str, number: int, elapsed_ns: int = 0) -> None:
        super().__init__(name)
        self.name, self.number, self.elapsed_ns = name, number, elapsed_ns


Step = Write | Sleep | Read | Connect | Trap
Reply = bytes | None | NetResult  # what a driver sends back for a step
Process = Generator[Step, Reply, int]
