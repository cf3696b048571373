"""Attach: the client receives what the container writes and its input reaches the container's command."""
from __future__ import annotations

import asyncio

import pytest
from helpers.polling import await_true

from fakecri.engine.errors import FailedPrecondition
from fakecri.engine.records import ContainerState

from .clients import run, serving, spdy_command, ws_command
from .rig import Rig


@pytest.mark.parametrize("transport", ["spdy", "ws-v5", "ws-v4-base64"])
def test_attach_receives_container_output_until_it_exits(transport):
    async def main():
        rig = Rig()
        rig.add_container("c1", ("sh",), stdin=True)
        backend = rig.backend
        async with serving(backend) as server:
            url = server.prepare_attach("c1", stdout=True, stderr=True)
            assert url.startswith(server.base_url + "/attach/")
            if transport == "spdy":
                client = asyncio.create_task(spdy_command(url))
            else:
                protocol = {"ws-v5": "v5.channel.k8s.io", "ws-v4-base64": "v4.base64.channel.k8s.io"}[transport]
                client = asyncio.create_task(ws_command(url, protocol))
            await await_true(lambda: backend.attached_count("c1") == 1)
            rig.feed("c1", b"echo line 1; echo warning >&2; echo line 2; exit\n")
            result = await client
            result = result if transport == "spdy" else result[0]
            assert result.stdout == b"line 1\nline 2\n"
            assert result.stderr == b"warning\n"
            assert result.exit_code == 0
            assert backend.attached_count("c1") == 0
    run(main())


def test_attach_feeds_stdin_to_the_command_and_cleans_up_when_the_client_leaves():
    async def main():
        rig = Rig()
        rig.add_container("c1", ("cat",), stdin=True)
        backend = rig.backend
        async with serving(backend) as server:
            url = server.prepare_attach("c1", stdin=True, stdout=True, stderr=False)
            result, _ = await ws_command(url, "v4.channel.k8s.io", stdin=b"typed input\n", hang_up_after=0.5)
            assert result.stdout == b"typed input\n"  # cat read it and wrote it back
            # The client hung up: the attach ends and the connection is gone; the container runs on.
            await await_true(lambda: backend.attached_count("c1") == 0)
            await await_true(lambda: server.active_connections == 0)
            assert rig.runtime.get_container("c1").state == ContainerState.RUNNING
    run(main())


def test_spdy_attach_with_stdin_and_two_clients_at_once():
    async def main():
        rig = Rig()
        rig.add_container("c1", ("cat",), stdin=True)
        backend = rig.backend
        async with serving(backend) as server:
            second = asyncio.create_task(spdy_command(server.prepare_attach("c1")))
            await await_true(lambda: backend.attached_count("c1") == 1)
            first = asyncio.create_task(spdy_command(server.prepare_attach("c1", stdin=True), stdin=b"to everyone"))
            await await_true(lambda: backend.attached_count("c1") == 2)
            await asyncio.sleep(0.3)  # the first client's input reaches cat
            rig.stop("c1")
            one, two = await asyncio.gather(first, second)
            assert one.stdout == two.stdout == b"to everyone"
    run(main())


def test_stdin_once_ends_the_command_when_the_first_client_closes_its_input():
    async def main():
        rig = Rig()
        rig.add_container("c1", ("/bin/sh",), stdin=True, stdin_once=True)
        async with serving(rig.backend) as server:
            result = await spdy_command(server.prepare_attach("c1", stdin=True), stdin=b"echo hello\n")
            assert (result.stdout, result.stderr) == (b"hello\n", b"")
            c = rig.runtime.get_container("c1")
            assert (c.state, c.exit_code) == (ContainerState.EXITED, 0)
    run(main())


def test_input_to_a_container_created_without_stdin_goes_nowhere():
    async def main():
        rig = Rig()
        rig.add_container("c1", ("cat",), stdin=False)
        async with serving(rig.backend) as server:
            result, _ = await ws_command(server.prepare_attach("c1", stdin=True), "v4.channel.k8s.io",
                                         stdin=b"ignored\n", hang_up_after=0.3)
            assert result.stdout == b""
    run(main())


def test_attach_to_stopped_container_is_refused_at_prepare_time():
    async def main():
        rig = Rig()
        rig.add_container("c1", running=False)
        async with serving(rig.backend) as server:
            with pytest.raises(FailedPrecondition):
                server.prepare_attach("c1")
    run(main())
