"""Attach: the client receives what the container writes and may send stdin."""
from __future__ import annotations

import asyncio

import pytest

from fakecri.core.errors import FailedPrecondition
from fakecri.server.streaming.backend import InMemoryBackend

from .clients import run, serving, spdy_command, ws_command


async def wait_until(predicate, timeout: float = 3.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


@pytest.mark.parametrize("transport", ["spdy", "ws-v5", "ws-v4-base64"])
def test_attach_receives_container_output_until_it_exits(transport):
    async def main():
        backend = InMemoryBackend()
        backend.add_container("c1")
        async with serving(backend) as server:
            url = server.prepare_attach("c1", stdout=True, stderr=True)
            assert url.startswith(server.base_url + "/attach/")
            if transport == "spdy":
                client = asyncio.create_task(spdy_command(url))
            else:
                protocol = {"ws-v5": "v5.channel.k8s.io", "ws-v4-base64": "v4.base64.channel.k8s.io"}[transport]
                client = asyncio.create_task(ws_command(url, protocol))
            await wait_until(lambda: backend.attached_count("c1") == 1)
            backend.emit("c1", b"line 1\n")
            backend.emit("c1", b"warning\n", stderr=True)
            backend.emit("c1", b"line 2\n")
            backend.exit("c1")
            result = await client
            result = result if transport == "spdy" else result[0]
            assert result.stdout == b"line 1\nline 2\n"
            assert result.stderr == b"warning\n"
            assert result.exit_code == 0
            assert backend.attached_count("c1") == 0
    run(main())


def test_attach_forwards_stdin_and_cleans_up_when_the_client_leaves():
    async def main():
        backend = InMemoryBackend()
        backend.add_container("c1")
        async with serving(backend) as server:
            url = server.prepare_attach("c1", stdin=True, stdout=True, stderr=False)
            client = asyncio.create_task(
                ws_command(url, "v4.channel.k8s.io", stdin=b"typed input\n", hang_up_after=0.3))
            await wait_until(lambda: backend.attached_count("c1") == 1)
            backend.emit("c1", b"prompt> ")
            result, _ = await client
            assert result.stdout == b"prompt> "
            assert backend.attach_input("c1") == b"typed input\n"
            # The client hung up: the attach ends and the connection is gone.
            await wait_until(lambda: backend.attached_count("c1") == 0)
            await wait_until(lambda: server.active_connections == 0)
    run(main())


def test_spdy_attach_with_stdin_and_two_clients_at_once():
    async def main():
        backend = InMemoryBackend()
        backend.add_container("c1")
        async with serving(backend) as server:
            first = asyncio.create_task(spdy_command(server.prepare_attach("c1", stdin=True), stdin=b"a"))
            second = asyncio.create_task(spdy_command(server.prepare_attach("c1")))
            await wait_until(lambda: backend.attached_count("c1") == 2)
            await wait_until(lambda: backend.attach_input("c1") == b"a")
            backend.emit("c1", b"to everyone\n")
            backend.exit("c1")
            one, two = await asyncio.gather(first, second)
            assert one.stdout == two.stdout == b"to everyone\n"
    run(main())


def test_attach_to_stopped_container_is_refused_at_prepare_time():
    async def main():
        backend = InMemoryBackend()
        backend.add_container("c1", running=False)
        async with serving(backend) as server:
            with pytest.raises(FailedPrecondition):
                server.prepare_attach("c1")
    run(main())
