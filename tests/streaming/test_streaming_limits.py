"""Hostile streaming clients against the limits in docs/guarantees.md: memory is bounded in
bytes (per stream, per connection, per command's input), and streams, connections and
prepared URLs in number. Each test counts what the server holds, never how long it took."""
from __future__ import annotations

import asyncio
import os
import signal
import socket
import struct
import subprocess
import sys

import grpc
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer, short_socket_path
from fakecri.server.streaming.limits import MIB, StreamingLimits
from fakecri.server.streaming.remotecommand import StdinPipe

from .clients import SpdyClient, run, serving, spdy_command, spdy_upgrade, ws_url
from .hostile import _hang_up, _push, flood_exec_stdin, flood_unpaired_port_forward
from .rig import Rig

LIMITS = StreamingLimits()


async def settle(predicate, rounds: int = 2000) -> None:
    """Let the loop run until `predicate()` holds (counted in loop turns, not seconds)."""
    for _ in range(rounds):
        if predicate():
            return
        await asyncio.sleep(0.005)
    assert predicate(), "the server never got there"


def sleeping_container(rt, img) -> tuple[str, str]:
    """Pull busybox and start `sleep 3600` in a new sandbox, each call with a 10 s deadline:
    (sandbox id, container id)."""
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=10)
    cfg = pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name="p", namespace="default", uid="u"))
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=10).pod_sandbox_id
    ccfg = pb.ContainerConfig(metadata=pb.ContainerMetadata(name="c"), image=pb.ImageSpec(image="busybox"),
                              command=["sleep", "3600"])
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg, sandbox_config=cfg),
                             timeout=10).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=10)
    return sid, cid


def peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def test_served_fakecri_keeps_its_memory_under_streaming_floods():
    """The two floods of issue 22 against a real `fakecri serve`: 200 unpaired port-forward
    streams with a 16 MiB frame each (3.3 GiB of peak RSS before), and 100 frames of 16 MiB
    to an exec that never reads its input (+1.6 GiB). Now each costs about a megabyte."""
    sock = short_socket_path()
    proc = subprocess.Popen([sys.executable, "-m", "fakecri.cli", "serve", "--socket", sock, "--log-level", "warning"],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert "serving on" in proc.stderr.readline()
        with grpc.insecure_channel("unix:" + sock) as ch:
            rt, img = api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
            sid, cid = sleeping_container(rt, img)
            before = peak_rss_kib(proc.pid)
            url = rt.PortForward(pb.PortForwardRequest(pod_sandbox_id=sid, port=[80]), timeout=10).url
            forwarded = asyncio.run(flood_unpaired_port_forward(url, streams=200))
            url = rt.Exec(pb.ExecRequest(container_id=cid, cmd=["sleep", "3600"], stdin=True, stdout=True,
                                         stderr=True), timeout=10).url
            fed = asyncio.run(flood_exec_stdin(url, frames=100))
            grown_mib = (peak_rss_kib(proc.pid) - before) / 1024
            # The server stopped reading long before the floods were through, and it is fine.
            assert forwarded.stalled and fed.stalled, (forwarded, fed)
            assert rt.Version(pb.VersionRequest(), timeout=10).runtime_name == "fakecri"
        assert grown_mib < 64, f"peak RSS grew {grown_mib:.0f} MiB under the floods"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)


def test_input_spread_over_many_streams_is_bounded_per_connection():
    """Just under the per-stream bound on each of 300 unpaired streams: the connection's own
    bound stops the reader, and what was held is let go when the client leaves."""
    async def main():
        rig = Rig()
        rig.add_sandbox("pod1")
        async with serving(rig.backend) as server:
            up = await spdy_upgrade(server.prepare_port_forward("pod1", [80]), ["portforward.k8s.io"])
            client = SpdyClient(up)
            result = None
            try:
                from .hostile import Pushed
                result = Pushed()
                for i in range(300):
                    stream = await client.open_stream({"streamType": "data", "port": "80", "requestID": str(i)},
                                                      wait_reply=False)
                    if not await _push(client, stream.sid, bytes(LIMITS.stream_buffer - 1), result):
                        break
                assert result.stalled
                assert server.meter.peak <= LIMITS.connection_buffer + LIMITS.data_piece, server.meter.peak
            finally:
                await _hang_up(client)
            await settle(lambda: server.meter.held == 0 and server.active_connections == 0)
    run(main(), timeout=60)


def test_streams_past_the_per_connection_limit_are_refused():
    async def main():
        rig = Rig()
        rig.add_sandbox("pod1")
        async with serving(rig.backend, limits=StreamingLimits(max_streams=8)) as server:
            up = await spdy_upgrade(server.prepare_port_forward("pod1", [80]), ["portforward.k8s.io"])
            client = SpdyClient(up)
            try:
                streams = [await client.open_stream({"streamType": "data", "port": "80", "requestID": str(i)})
                           for i in range(20)]
                refused = [s for s in streams if s.reset_status is not None]
                assert len(refused) == 12 and {s.reset_status for s in refused} == {3}  # REFUSED_STREAM
            finally:
                await client.close()
    run(main())


def test_connections_past_the_limit_get_503_and_the_rest_are_served():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        async with serving(rig.backend, limits=StreamingLimits(max_connections=3),
                           handshake_timeout_s=60) as server:
            host, port = server.base_url.removeprefix("http://").split(":")
            idle = [await asyncio.open_connection(host, int(port)) for _ in range(3)]
            await settle(lambda: server.active_connections == 3)
            reader, writer = await asyncio.open_connection(host, int(port))
            answer = await reader.read()
            assert answer.startswith(b"HTTP/1.1 503 ") and b"too many streaming connections" in answer
            writer.close()
            for _, w in idle:
                w.close()
            await settle(lambda: server.active_connections == 0)
            assert (await spdy_command(server.prepare_exec("c1", ["echo", "ok"]))).stdout == b"ok\n"
    run(main())


def test_prepared_urls_are_bounded_in_bytes_and_argv_like_linux():
    with FakeCRIServer() as server, grpc.insecure_channel(server.endpoint) as ch:
        rt, img = api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
        sid, cid = sleeping_container(rt, img)

        def exec_(*argv: str) -> grpc.StatusCode:
            try:
                rt.Exec(pb.ExecRequest(container_id=cid, cmd=list(argv), stdout=True), timeout=10)
                return grpc.StatusCode.OK
            except grpc.RpcError as exc:
                return exc.code()

        assert exec_("echo", "x" * LIMITS.max_argv_bytes) == grpc.StatusCode.INVALID_ARGUMENT
        big = "x" * (LIMITS.max_argv_bytes - 16)
        codes = [exec_("echo", big) for _ in range(LIMITS.token_bytes // len(big) + 2)]
        granted = codes.index(grpc.StatusCode.RESOURCE_EXHAUSTED)
        assert set(codes[:granted]) == {grpc.StatusCode.OK} and granted * len(big) <= LIMITS.token_bytes
        # Many ports, one of each kept: a port list costs at most 65535 entries.
        url = rt.PortForward(pb.PortForwardRequest(pod_sandbox_id=sid, port=[80] * 500_000), timeout=10).url
        assert url
        server.check()


def test_a_command_that_does_not_read_holds_a_bounded_input_pipe():
    async def main():
        pipe = StdinPipe(LIMITS.stdin_buffer, LIMITS.stdin_piece)
        feeder = asyncio.ensure_future(pipe.feed(bytes(10 * MIB)))
        await settle(lambda: pipe.buffered >= LIMITS.stdin_buffer)
        for _ in range(20):
            await asyncio.sleep(0)
        assert not feeder.done() and pipe.buffered == LIMITS.stdin_buffer
        got = bytearray()
        async for piece in pipe:
            assert len(piece) <= LIMITS.stdin_piece
            got += piece
            if len(got) == 10 * MIB:
                break
        assert feeder.done()
    run(main())


def test_exec_input_arrives_whole_through_the_pieces():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        async with serving(rig.backend) as server:
            data = os.urandom(300_000).hex().encode() + b"\n"
            result = await spdy_command(server.prepare_exec("c1", ["cat"], stdin=True), stdin=data)
            assert result.stdout == data
    run(main(), timeout=30)


def test_websocket_message_over_the_limit_is_closed_with_1009():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        async with serving(rig.backend) as server:
            url = ws_url(server.prepare_exec("c1", ["sleep", "30"], stdin=True))
            async with ws_connect(url, subprotocols=["v5.channel.k8s.io"], max_size=None,  # type: ignore[list-item]
                                  open_timeout=5, close_timeout=2) as conn:
                with pytest.raises(ConnectionClosed) as closed:
                    await conn.send(bytes([0]) + bytes(LIMITS.max_ws_message + 1))
                    async with asyncio.timeout(5):
                        while True:
                            await conn.recv()
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    run(main())


def test_an_oversized_control_frame_ends_the_connection_with_goaway():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        async with serving(rig.backend) as server:
            up = await spdy_upgrade(server.prepare_exec("c1", ["sleep", "30"]), ["v4.channel.k8s.io"])
            client = SpdyClient(up)
            try:
                client.writer.write(struct.pack("!HHL", 0x8003, 1, LIMITS.max_control_frame + 1))
                await client.writer.drain()
                await asyncio.wait_for(client.goaway.wait(), 5)
                assert server.meter.held == 0
            finally:
                await client.close()
    run(main())


def test_a_client_that_hangs_up_while_held_back_is_let_go():
    """An exec whose command never reads: the server stops reading the flooding client, and
    still notices at once when it resets the connection (the command is not left holding it)."""
    async def main():
        rig = Rig()
        rig.add_container("c1")
        async with serving(rig.backend) as server:
            pushed = await flood_exec_stdin(server.prepare_exec("c1", ["sleep", "3600"], stdin=True), frames=4)
            assert pushed.stalled
            assert server.meter.peak <= LIMITS.connection_buffer + LIMITS.data_piece
            await settle(lambda: server.active_connections == 0 and server.meter.held == 0)
    run(main(), timeout=30)


def test_a_websocket_client_that_hangs_up_while_held_back_is_let_go():
    async def main():
        rig = Rig()
        rig.add_container("c1")
        async with serving(rig.backend) as server:
            url = ws_url(server.prepare_exec("c1", ["sleep", "3600"], stdin=True))
            conn = await ws_connect(url, subprotocols=["v5.channel.k8s.io"],  # type: ignore[list-item]
                                    open_timeout=5, close_timeout=1)
            message = bytes([0]) + bytes(LIMITS.max_ws_message - 1)
            try:
                for _ in range(200):  # far more than the pipe and the socket buffers take
                    await asyncio.wait_for(conn.send(message), 1.5)
                raise AssertionError("the server read 200 MiB for a command that reads nothing")
            except TimeoutError:
                pass  # held back
            sock = conn.transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset
            conn.transport.abort()
            await settle(lambda: server.active_connections == 0)
    run(main(), timeout=60)


def test_a_terminal_line_holds_at_most_4095_bytes_like_linux():
    """Typing without Enter on a TTY exec: the line stops growing where Linux's does."""
    from fakecri.server.streaming.runtime_backend import Terminal

    terminal = Terminal()
    echo, lines = terminal.keys(b"a" * 100_000)
    assert len(terminal.line) == 4095 and len(echo) == 4095 and lines == []
    echo, lines = terminal.keys(b"\r")
    assert lines == [b"a" * 4095 + b"\n"]


def test_the_input_pipe_knows_when_a_feed_would_wait():
    async def main():
        pipe = StdinPipe(4 * 1024, 1024)
        assert not pipe.would_wait(4 * 1024) and pipe.would_wait(4 * 1024 + 1)
        for _ in range(4):
            await pipe.feed(b"x")  # one byte still takes one of the four places
        assert pipe.would_wait(1) and pipe.buffered == 4
    run(main())
