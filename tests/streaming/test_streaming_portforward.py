"""Port forward over SPDY (kubectl's default) and WebSocket: echo, HTTP and refusal."""
from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from fakecri.engine.errors import InvalidArgument, NotFound
from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend

from .clients import OPEN_TIMEOUT_S, SpdyClient, run, serving, spdy_forward_once, spdy_upgrade, ws_url
from .rig import Rig, port_annotations


def pod_backend(**annotations: str) -> RuntimeStreamingBackend:
    rig = Rig()
    rig.add_sandbox("pod1", port_annotations(**annotations))
    return rig.backend


async def open_session(url: str) -> SpdyClient:
    up = await spdy_upgrade(url, ["portforward.k8s.io"])
    assert up.status == 101, up.body
    assert up.header("x-stream-protocol-version") == "portforward.k8s.io"
    return SpdyClient(up)


def test_spdy_echo_for_sequential_and_concurrent_connections():
    async def main():
        async with serving(pod_backend()) as server:
            url = server.prepare_port_forward("pod1", [8080])
            assert url.startswith(server.base_url + "/portforward/")
            client = await open_session(url)
            try:
                assert await spdy_forward_once(client, 8080, 0, b"hello") == (b"hello", b"")
                assert await spdy_forward_once(client, 8080, 1, b"again") == (b"again", b"")
                results = await asyncio.gather(*(
                    spdy_forward_once(client, 8080, 10 + i, b"conn %d " % i * 1000) for i in range(5)))
                assert results == [(b"conn %d " % i * 1000, b"") for i in range(5)]
            finally:
                await client.close()
    run(main())


def test_spdy_echo_streams_data_before_the_client_half_closes():
    async def main():
        async with serving(pod_backend()) as server:
            client = await open_session(server.prepare_port_forward("pod1", []))
            try:
                headers = {"streamType": "error", "port": "9000", "requestID": "0"}
                await client.open_stream(headers)
                data = await client.open_stream({**headers, "streamType": "data"})
                await client.send(data, b"ping")
                assert await data.wait_for_data(4) == b"ping"
                await client.send(data, b"pong")
                assert await data.wait_for_data(8) == b"pingpong"
            finally:
                await client.close()
    run(main())


def test_spdy_fixed_http_response_and_refusal():
    async def main():
        backend = pod_backend(port_80="http:200:hello from pod", port_5432="refuse:nothing listens")
        async with serving(backend) as server:
            client = await open_session(server.prepare_port_forward("pod1", []))
            try:
                body, err = await spdy_forward_once(
                    client, 80, 0, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", half_close=False)
                assert err == b""
                assert body.startswith(b"HTTP/1.1 200 OK\r\n")
                assert body.endswith(b"\r\n\r\nhello from pod")
                assert b"Content-Length: 14\r\n" in body
                data, err = await spdy_forward_once(client, 5432, 1, b"x")
                assert data == b""
                assert b"nothing listens" in err and b"5432" in err
            finally:
                await client.close()
    run(main())


def test_spdy_port_outside_the_requested_ports_gets_an_error():
    async def main():
        async with serving(pod_backend()) as server:
            client = await open_session(server.prepare_port_forward("pod1", [8080]))
            try:
                data, err = await spdy_forward_once(client, 9090, 0, b"x")
                assert data == b""
                assert b"9090" in err and b"8080" in err
            finally:
                await client.close()
    run(main())


def test_spdy_streams_without_a_valid_port_are_refused():
    async def main():
        async with serving(pod_backend()) as server:
            client = await open_session(server.prepare_port_forward("pod1", []))
            try:
                for headers in ({"streamType": "data", "port": "0", "requestID": "1"},
                                {"streamType": "data", "port": "http", "requestID": "2"},
                                {"streamType": "bogus", "port": "80", "requestID": "3"}):
                    stream = await client.open_stream(headers)
                    assert stream.reset_status is not None
                # The session still works afterwards.
                assert await spdy_forward_once(client, 80, 4, b"ok") == (b"ok", b"")
            finally:
                await client.close()
    run(main())


def test_spdy_unpaired_stream_times_out_with_an_error():
    async def main():
        async with serving(pod_backend(), stream_creation_timeout_s=0.2) as server:
            client = await open_session(server.prepare_port_forward("pod1", []))
            try:
                error = await client.open_stream({"streamType": "error", "port": "80", "requestID": "0"})
                assert b"timed out" in await error.read_until_fin(timeout=3)
            finally:
                await client.close()
    run(main())


async def ws_forward(url: str, ports: str, payloads: dict[int, bytes],
                     protocol: str = "v4.channel.k8s.io") -> dict[int, bytes]:
    """Forward over WebSocket as client-go's websocket port-forwarder lays out channels."""
    got: dict[int, bytes] = {}
    async with ws_connect(ws_url(url) + f"?port={ports}", subprotocols=[protocol],  # type: ignore[list-item]
                          open_timeout=OPEN_TIMEOUT_S, close_timeout=1) as conn:
        assert conn.subprotocol == protocol
        for channel, data in payloads.items():
            await conn.send(bytes([channel]) + data)
        expected = {ch: 2 + len(data) for ch, data in payloads.items()}
        async with asyncio.timeout(3):
            while any(len(got.get(ch, b"")) < n for ch, n in expected.items()):
                message = await conn.recv()
                assert isinstance(message, bytes)
                got[message[0]] = got.get(message[0], b"") + message[1:]
    return got


def test_websocket_port_forward_echoes_per_port_channels():
    async def main():
        async with serving(pod_backend()) as server:
            url = server.prepare_port_forward("pod1", [])
            got = await ws_forward(url, "8080,9090", {0: b"to 8080", 2: b"to 9090"})
            # Each channel starts with its port, little endian, then the echoed bytes.
            assert got[0] == (8080).to_bytes(2, "little") + b"to 8080"
            assert got[2] == (9090).to_bytes(2, "little") + b"to 9090"
    run(main())


def test_websocket_port_forward_refusal_goes_to_the_error_channel():
    async def main():
        backend = pod_backend(default="refuse")
        async with serving(backend) as server:
            url = server.prepare_port_forward("pod1", [])
            async with ws_connect(ws_url(url) + "?port=7000", subprotocols=["v4.channel.k8s.io"],  # type: ignore[list-item]
                                  open_timeout=OPEN_TIMEOUT_S, close_timeout=1) as conn:
                seen: dict[int, bytes] = {}
                async with asyncio.timeout(3):
                    while b"refused" not in seen.get(1, b""):
                        message = await conn.recv()
                        seen[message[0]] = seen.get(message[0], b"") + message[1:]
                assert seen[1].startswith((7000).to_bytes(2, "little"))
    run(main())


@pytest.mark.parametrize("annotation", ["bogus", "http:abc"])
def test_spdy_forward_that_cannot_be_served_ends_with_an_error_not_silence(annotation):
    """A pod whose port-forward annotation does not read (RunPodSandbox will refuse those,
    but a state file or an older server may hold one): the client hears why, on the error
    stream, and both streams end."""
    async def main():
        async with serving(pod_backend(default=annotation)) as server:
            client = await open_session(server.prepare_port_forward("pod1", []))
            try:
                received, message = await spdy_forward_once(client, 8080, 0, b"anyone there?")
                assert received == b""
                assert message.startswith(b"error forwarding port 8080 to pod pod1: ")
                assert b"fakecri.io/port-forward" in message
                # The session is still good for the next connection.
                received, message = await spdy_forward_once(client, 8080, 1, b"again")
                assert received == b"" and message
            finally:
                await client.close()
    run(main())


def test_websocket_forward_that_cannot_be_served_reports_on_the_error_channel():
    async def main():
        async with serving(pod_backend(default="bogus")) as server:
            url = server.prepare_port_forward("pod1", [])
            async with ws_connect(ws_url(url) + "?port=7000",
                                  subprotocols=["v4.channel.k8s.io"],  # type: ignore[list-item]
                                  open_timeout=OPEN_TIMEOUT_S, close_timeout=1) as conn:
                seen: dict[int, bytes] = {}
                async with asyncio.timeout(5):
                    while b"port-forward" not in seen.get(1, b""):
                        message = await conn.recv()
                        seen[message[0]] = seen.get(message[0], b"") + message[1:]
                assert seen[1][2:].startswith(b"error forwarding port 7000 to pod pod1: ")
    run(main())


def test_websocket_port_forward_over_128_ports_is_closed_with_a_reason():
    """Two channels per port and one byte per channel: 128 ports at most. More get a close
    frame saying so (it used to drop the connection with no close frame)."""
    async def main():
        async with serving(pod_backend()) as server:
            url = server.prepare_port_forward("pod1", [])
            ports = ",".join(str(p) for p in range(8000, 8200))
            async with ws_connect(ws_url(url) + f"?port={ports}",
                                  subprotocols=["v4.channel.k8s.io"],  # type: ignore[list-item]
                                  open_timeout=OPEN_TIMEOUT_S, close_timeout=1) as conn:
                with pytest.raises(ConnectionClosed) as closed:
                    async with asyncio.timeout(5):
                        await conn.recv()
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 1008 and "128" in closed.value.rcvd.reason
            # 128 is still fine.
            url = server.prepare_port_forward("pod1", [])
            ports = ",".join(str(p) for p in range(8000, 8128))
            got = await ws_forward(url, ports, {254: b"to the last"})
            assert got[254] == (8127).to_bytes(2, "little") + b"to the last"
    run(main())


def test_port_forward_prepare_checks_pod_and_ports():
    async def main():
        async with serving(pod_backend()) as server:
            with pytest.raises(NotFound):
                server.prepare_port_forward("missing", [80])
            with pytest.raises(InvalidArgument):
                server.prepare_port_forward("pod1", [70000])
    run(main())
