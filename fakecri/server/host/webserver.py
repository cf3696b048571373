"""What comes in on a container's listeners, handed to the simulation to answer.

HTTP: one request per connection (`Connection: close`): the request head and body are read,
bounded in time and size, the container's `Server` (fakecri.sim.programs) answers it, and
the response is written. An answer may take simulated time or the network (netexec's
`/dial` and `/shell`), which `processes.answer` carries out; an answer that ends the program
(`/exit`) makes the container exit. A listener and a forwarded port with no listener behind
it (streaming/portforward.py) answer through the same `respond`. Datagrams, greetings (raw
TCP) and gRPC health checks are answered at once. A listener whose container is gone
answers nothing.
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from fakecri.engine.exits import reason_for
from fakecri.server.host.owner import ListenerOwner
from fakecri.server.host.processes import answer
from fakecri.sim.live import Exited, Wrote
from fakecri.sim.programs.base import UNKNOWN_SERVICE
from fakecri.sim.programs.http import MAX_BODY, MAX_HEAD, HttpRequest, encode_response, parse_request_head

READ_TIMEOUT_S = 30.0  # a client that sends no request head (or body) in this time is dropped
BAD_REQUEST = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def _peer(writer: asyncio.StreamWriter, key: str) -> str:
    name = writer.get_extra_info(key)
    if isinstance(name, tuple) and len(name) >= 2:
        return f"[{name[0]}]:{name[1]}" if ":" in str(name[0]) else f"{name[0]}:{name[1]}"
    return ""


Send = Callable[[bytes], Awaitable[None]]


def content_length(head: bytes) -> int:
    """The body length a request head announces (0 when none, or more than MAX_BODY)."""
    parsed = parse_request_head(head[:MAX_HEAD])
    length = next((v for k, v in parsed[2] if k.lower() == "content-length"), "0") if parsed else "0"
    return int(length) if length.isdigit() and 0 < int(length) <= MAX_BODY else 0


async def respond(owner: ListenerOwner, cid: str, port: int, request: bytes, send: Send, *, peer: str = "",
                  local: str = "") -> None:
    """Answer one HTTP request (its head, a blank line, its body) as the container's server on
    `port` does, through `send`; then the container exits if the answer ended its program."""
    head, _, body = request.partition(b"\r\n\r\n")
    parsed = parse_request_head(head[:MAX_HEAD])
    if parsed is None:
        await send(BAD_REQUEST)
        return
    method, target, headers = parsed
    found = owner.served_by(cid)
    if found is None:
        return
    server, here = found
    req = HttpRequest(method, target, headers, body[:content_length(head)], peer, local)
    said = await answer(server.http(port, req, here), wait=owner.wait,
                        write=lambda stream, text: _log(owner, cid, stream, text), dial=owner.dial)
    if said.response is not None:
        from email.utils import formatdate  # at the first answer, not at every start

        date = formatdate(owner.now_ns() / 1e9, usegmt=True)
        await send(encode_response(said.response, head_only=method == "HEAD", date=date))
    if said.exit_code is not None:
        _exit(owner, cid, said.exit_code)


async def serve(owner: ListenerOwner, cid: str, port: int, reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter) -> None:
    """Answer one HTTP connection, bounded in time and size."""

    async def send(data: bytes) -> None:
        writer.write(data)
        await asyncio.wait_for(writer.drain(), READ_TIMEOUT_S)

    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT_S)
        length = content_length(head)
        body = await asyncio.wait_for(reader.readexactly(length), READ_TIMEOUT_S) if length else b""
        await respond(owner, cid, port, head + body, send, peer=_peer(writer, "peername"),
                      local=_peer(writer, "sockname"))
    except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        pass
    except Exception as exc:  # a connection has no caller to answer: count it, keep serving
        owner.count("listener_errors")
        owner.log.error("request failed", container=cid, port=port, error=repr(exc))
    finally:
        writer.close()


def _log(owner: ListenerOwner, cid: str, stream: str, text: str) -> None:
    """A line the program logged while it answered: into the container's log."""
    owner.apply([Wrote(cid, stream, text, owner.now_ns())])


def _exit(owner: ListenerOwner, cid: str, code: int) -> None:
    """The program ended itself (netexec's /exit, /shutdown): its container exits now."""
    owner.apply([Exited(cid, code, reason_for(code), owner.now_ns())])


async def greet(owner: ListenerOwner, cid: str, port: int, writer: asyncio.StreamWriter) -> None:
    """A raw TCP connection: the program writes its greeting and closes."""
    try:
        found = owner.served_by(cid)
        if found is not None:
            writer.write(found[0].greeting(port, found[1]))
            await asyncio.wait_for(writer.drain(), READ_TIMEOUT_S)
    except (TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()


def datagram(owner: ListenerOwner, cid: str, port: int, data: bytes, client: str) -> bytes | None:
    found = owner.served_by(cid)
    return None if found is None else found[0].datagram(port, data, client, found[1])


def grpc_health(owner: ListenerOwner, cid: str, port: int, service: str) -> str:
    found = owner.served_by(cid)
    return UNKNOWN_SERVICE if found is None else found[0].grpc_health(port, service, found[1])
