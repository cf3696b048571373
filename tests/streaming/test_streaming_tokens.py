"""Token URLs: single use, expiring, bound to their kind; bad upgrades answered plainly."""
from __future__ import annotations

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from fakecri.engine.errors import ResourceExhausted
from fakecri.server.exceptions import Unavailable
from fakecri.server.streaming import StreamingServer
from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend
from fakecri.server.streaming.tokens import TokenCache

from .clients import OPEN_TIMEOUT_S, http_upgrade, run, serving, spdy_command, spdy_upgrade, ws_url
from .rig import Rig

SPDY = ["v4.channel.k8s.io"]


class ManualTime:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def backend() -> RuntimeStreamingBackend:
    rig = Rig()
    rig.add_container("c1")
    rig.add_sandbox("pod1")
    return rig.backend


def test_unknown_token_is_refused_over_both_protocols():
    async def main():
        async with serving(backend()) as server:
            for kind in ("exec", "attach", "portforward"):
                up = await spdy_upgrade(f"{server.base_url}/{kind}/not-a-token", SPDY)
                assert up.status == 404
                assert b"token" in up.body
            with pytest.raises(InvalidStatus) as info:
                async with ws_connect(ws_url(server.base_url + "/exec/bogus"),
                                      subprotocols=["v5.channel.k8s.io"], open_timeout=OPEN_TIMEOUT_S):  # type: ignore[list-item]
                    pass
            assert info.value.response.status_code == 404
    run(main())


def test_a_token_works_once():
    async def main():
        async with serving(backend()) as server:
            url = server.prepare_exec("c1", ["echo", "once"])
            assert (await spdy_command(url)).stdout == b"once\n"
            again = await spdy_upgrade(url, SPDY)
            assert again.status == 404
    run(main())


def test_an_expired_token_is_refused():
    async def main():
        clock = ManualTime()
        async with serving(backend(), token_ttl_s=30.0, now=clock) as server:
            late = server.prepare_exec("c1", ["echo", "late"])
            fresh = server.prepare_exec("c1", ["echo", "fresh"])
            clock.t += 29.0
            assert (await spdy_command(fresh)).stdout == b"fresh\n"
            clock.t += 1.0
            assert (await spdy_upgrade(late, SPDY)).status == 404
    run(main())


def test_a_token_only_opens_its_own_kind_of_endpoint():
    async def main():
        async with serving(backend()) as server:
            token = server.prepare_exec("c1", ["true"]).rsplit("/", 1)[1]
            up = await spdy_upgrade(f"{server.base_url}/attach/{token}", SPDY)
            assert up.status == 404
    run(main())


def test_plain_http_errors_for_bad_requests():
    async def main():
        async with serving(backend()) as server:
            base = server.base_url
            assert (await http_upgrade(base + "/nope/x", [])).status == 404
            url = server.prepare_exec("c1", ["true"])
            assert (await http_upgrade(url, [], method="DELETE")).status == 405
            # No upgrade headers at all: a plain POST cannot stream.
            url = server.prepare_exec("c1", ["true"])
            assert (await http_upgrade(url, [])).status == 400
            # SPDY with only versions the server does not speak.
            url = server.prepare_exec("c1", ["true"])
            up = await spdy_upgrade(url, ["v9.channel.k8s.io"])
            assert up.status == 403
            assert "v4.channel.k8s.io" in up.header("x-accepted-stream-protocol-versions")
            # WebSocket with an unknown subprotocol.
            url = server.prepare_exec("c1", ["true"])
            with pytest.raises(InvalidStatus) as info:
                async with ws_connect(ws_url(url), subprotocols=["chat"], open_timeout=OPEN_TIMEOUT_S):  # type: ignore[list-item]
                    pass
            assert info.value.response.status_code == 400
            # Port forward over WebSocket needs ports.
            url = server.prepare_port_forward("pod1", [])
            with pytest.raises(InvalidStatus) as info:
                async with ws_connect(ws_url(url), subprotocols=["v4.channel.k8s.io"], open_timeout=OPEN_TIMEOUT_S):  # type: ignore[list-item]
                    pass
            assert info.value.response.status_code == 400
    run(main())


def test_prepare_before_start_is_unavailable():
    server = StreamingServer(backend())
    with pytest.raises(Unavailable):
        server.prepare_exec("c1", ["true"])


def test_token_cache_expiry_and_limit():
    clock = ManualTime()
    cache: TokenCache[str] = TokenCache(10.0, clock, max_entries=2)
    a, b = cache.insert("a"), cache.insert("b")
    assert a != b and len(a) >= 16
    with pytest.raises(ResourceExhausted):
        cache.insert("c")
    assert cache.consume(a) == "a"
    assert cache.consume(a) is None
    clock.t += 10.0
    assert cache.consume(b) is None  # expired
    assert len(cache) == 0
    cache.insert("d")
    cache.insert("e")
    clock.t += 11.0
    cache.insert("f")  # expired entries no longer count against the limit
    assert len(cache) == 1
