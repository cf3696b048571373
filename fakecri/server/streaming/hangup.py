"""Noticing that a client hung up while the server is not reading from it.

When a connection holds as much unread input as it may, the server stops reading the
socket so that TCP holds the client back; but then it cannot see the client leave either,
and a session whose command never reads would keep its connection forever. While it waits,
a second epoll set watches the socket for a hang-up (a reset or the peer's shutdown) only,
not for data, so the wait ends as soon as the client is gone. Elsewhere than Linux the wait
simply lasts until there is room.
"""
from __future__ import annotations

import asyncio
import contextlib
import select
from collections.abc import Awaitable
from typing import Any


class PeerGone(ConnectionError):
    """The client hung up while the server waited to read more of its input."""


async def wait_unless_hung_up(waiter: Awaitable[Any], writer: asyncio.StreamWriter) -> None:
    """Await `waiter`; raise PeerGone (cancelling it) if the peer hangs up first."""
    task = asyncio.ensure_future(waiter)
    sock = writer.get_extra_info("socket")
    epoll_cls = getattr(select, "epoll", None)
    if sock is None or epoll_cls is None:
        await task
        return
    loop = asyncio.get_running_loop()
    gone = loop.create_future()
    watch = epoll_cls()
    try:
        watch.register(sock.fileno(), select.EPOLLRDHUP)  # EPOLLHUP and EPOLLERR come anyway
        loop.add_reader(watch.fileno(), _settle, gone)
        try:
            await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            loop.remove_reader(watch.fileno())
    except OSError:  # the socket is already closed: nothing to watch
        await asyncio.wait({task})
    finally:
        watch.close()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if not task.done() or task.cancelled():
        raise PeerGone("the client hung up")
    task.result()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
