"""Slow, silent or vanishing clients: timeouts fire, connections are cleaned up, others proceed."""
from __future__ import annotations

import asyncio
import struct

from helpers.polling import await_true

from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend

from .clients import SpdyClient, run, serving, spdy_command, spdy_upgrade, ws_command
from .rig import Rig

SPDY = ["v4.channel.k8s.io"]


class RecordingBackend(RuntimeStreamingBackend):
    """Notes when an exec is cancelled because its client went away."""

    def __init__(self, rig: Rig) -> None:
        super().__init__(rig.node)
        self.cancelled = asyncio.Event()

    async def exec(self, container_id, argv, **kw):
        try:
            return await super().exec(container_id, argv, **kw)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


def test_a_stalled_client_does_not_block_others():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        backend = rig.backend
        async with serving(backend, handshake_timeout_s=0.3) as server:
            # One client opens a TCP connection and never sends a request.
            host, port = server.base_url.removeprefix("http://").split(":")
            _, silent = await asyncio.open_connection(host, int(port))
            # Another upgrades to SPDY, runs `cat` and never sends stdin.
            up = await spdy_upgrade(server.prepare_exec("c1", ["cat"], stdin=True), SPDY)
            stalled = SpdyClient(up)
            for kind in ("error", "stdin", "stdout", "stderr"):
                await stalled.open_stream({"streamType": kind})
            # Meanwhile others get served promptly.
            results = await asyncio.wait_for(asyncio.gather(*(
                spdy_command(server.prepare_exec("c1", ["echo", str(i)])) for i in range(5))), 3)
            assert [r.stdout for r in results] == [b"%d\n" % i for i in range(5)]
            await stalled.close()
            silent.close()
    run(main())


def test_client_vanishing_mid_exec_cancels_the_command():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        backend = RecordingBackend(rig)
        async with serving(backend) as server:
            up = await spdy_upgrade(server.prepare_exec("c1", ["sleep", "30"]), SPDY)
            client = SpdyClient(up)
            for kind in ("error", "stdout", "stderr"):
                await client.open_stream({"streamType": kind})
            await await_true(lambda: server.active_connections == 1)
            await client.close()
            await asyncio.wait_for(backend.cancelled.wait(), 3)
            await await_true(lambda: server.active_connections == 0)
    run(main())


def test_stop_ends_live_connections():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        backend = rig.backend
        async with serving(backend) as server:
            ws_client = asyncio.create_task(
                ws_command(server.prepare_exec("c1", ["sleep", "30"]), "v5.channel.k8s.io"))
            spdy_client = asyncio.create_task(spdy_command(server.prepare_attach("c1")))
            await await_true(lambda: server.active_connections == 2)
            await asyncio.wait_for(server.stop(), 3)
            assert server.active_connections == 0
            # Both clients see the connection end instead of hanging.
            await asyncio.wait_for(asyncio.gather(ws_client, spdy_client, return_exceptions=True), 6)
    run(main())


def test_missing_spdy_streams_time_out_with_an_error_status():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        backend = rig.backend
        async with serving(backend, stream_creation_timeout_s=0.3) as server:
            up = await spdy_upgrade(server.prepare_exec("c1", ["echo", "x"]), SPDY)
            client = SpdyClient(up)
            try:
                error = await client.open_stream({"streamType": "error"})
                body = await error.read_until_fin(timeout=3)
                assert b"timed out waiting for streams" in body
                assert b"stdout" in body
                await asyncio.wait_for(client.goaway.wait(), 3)
            finally:
                await client.close()
    run(main())


def test_idle_websocket_is_closed_by_the_server():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        backend = rig.backend
        async with serving(backend, stream_idle_timeout_s=0.3) as server:
            url = server.prepare_exec("c1", ["cat"], stdin=True)
            result, messages = await asyncio.wait_for(ws_command(url, "v4.channel.k8s.io"), 3)
            assert messages == [(1, b"")]  # only the ready message; no status, connection closed
            await await_true(lambda: server.active_connections == 0)
    run(main())


def test_spdy_pings_are_answered_and_garbage_ends_the_session():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        backend = rig.backend
        async with serving(backend) as server:
            up = await spdy_upgrade(server.prepare_attach("c1"), SPDY)
            client = SpdyClient(up)
            try:
                await client.ping(7)
                await asyncio.wait_for(client.pong.wait(), 3)
                assert client.pings == [7]
                # A SPDY/2 control frame is a protocol error: GOAWAY, then the server hangs up.
                client.writer.write(struct.pack("!HHL", 0x8002, 6, 4) + b"\0\0\0\1")
                await client.writer.drain()
                await asyncio.wait_for(client.goaway.wait(), 3)
                await asyncio.wait_for(client.eof.wait(), 3)
            finally:
                await client.close()
            await await_true(lambda: server.active_connections == 0)
    run(main())
