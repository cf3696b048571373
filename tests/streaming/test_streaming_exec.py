"""Exec over SPDY/3.1 and WebSocket, spoken by independent test clients."""
from __future__ import annotations

import asyncio
import json

import pytest

from fakecri.engine.errors import FailedPrecondition, InvalidArgument, NotFound
from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend

from .clients import CommandResult, SpdyClient, run, serving, spdy_command, spdy_upgrade, ws_command
from .rig import Rig

TRANSPORTS = ["spdy", "ws-v5", "ws-v5-base64", "ws-v4", "ws-v4-base64"]
WS_PROTOCOLS = {"ws-v5": "v5.channel.k8s.io", "ws-v5-base64": "v5.base64.channel.k8s.io",
                "ws-v4": "v4.channel.k8s.io", "ws-v4-base64": "v4.base64.channel.k8s.io"}


def rig_with(*containers: str) -> Rig:
    rig = Rig()
    for cid in containers:
        rig.add_container(cid)
    return rig


def backend_with(*containers: str) -> RuntimeStreamingBackend:
    return rig_with(*containers).backend


async def exec_over(transport: str, url: str, stdin: bytes | None = None, **kw) -> CommandResult:
    if transport == "spdy":
        return await spdy_command(url, stdin=stdin, **kw)
    protocol = WS_PROTOCOLS[transport]
    if stdin is not None and protocol.startswith("v4"):
        # v4 has no way to close stdin: hang up once the echo had time to come back.
        result, _ = await ws_command(url, protocol, stdin=stdin, hang_up_after=0.5)
    else:
        result, _ = await ws_command(url, protocol, stdin=stdin, **kw)
    assert result.protocol == protocol
    return result


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_echo_returns_stdout_and_success(transport):
    async def main():
        async with serving(backend_with("c1")) as server:
            url = server.prepare_exec("c1", ["echo", "hi"])
            assert url.startswith(server.base_url + "/exec/")
            result = await exec_over(transport, url)
            assert result.stdout == b"hi\n"
            assert result.stderr == b""
            assert result.status == {"metadata": {}, "status": "Success"}
            assert result.exit_code == 0
    run(main())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_nonzero_exit_code_arrives_on_the_error_channel(transport):
    async def main():
        async with serving(backend_with("c1")) as server:
            url = server.prepare_exec("c1", ["sh", "-c", "echo oops >&2; exit 3"])
            result = await exec_over(transport, url)
            assert result.exit_code == 3
            assert result.status["status"] == "Failure"
            assert result.status["details"]["causes"] == [{"reason": "ExitCode", "message": "3"}]
            assert "exit code 3" in result.status["message"]
            assert result.stderr == b"oops\n"
            assert result.stdout == b""
    run(main())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_cat_echoes_stdin(transport):
    async def main():
        async with serving(backend_with("c1")) as server:
            url = server.prepare_exec("c1", ["cat"], stdin=True)
            payload = b"line one\nline two\n" * 50
            result = await exec_over(transport, url, stdin=payload)
            assert result.stdout == payload
            if transport.startswith("ws-v4"):
                # The client hung up; the server must drop the connection and the command.
                for _ in range(100):
                    if server.active_connections == 0:
                        break
                    await asyncio.sleep(0.02)
                assert server.active_connections == 0
            else:
                assert result.exit_code == 0
    run(main())


def test_large_stdin_over_spdy_is_not_truncated():
    async def main():
        async with serving(backend_with("c1")) as server:
            payload = bytes(range(256)) * 4096  # 1 MiB, more than any per-stream buffer
            result = await spdy_command(server.prepare_exec("c1", ["cat"], stdin=True), stdin=payload)
            assert result.stdout == payload
    run(main())


def test_old_spdy_versions_report_failure_as_text():
    async def main():
        async with serving(backend_with("c1")) as server:
            url = server.prepare_exec("c1", ["sh", "-c", "exit 5"])
            result = await spdy_command(url, versions=("v2.channel.k8s.io", "channel.k8s.io"))
            assert result.protocol == "v2.channel.k8s.io"
            assert b"exit code 5" in result.error and not result.error.startswith(b"{")
            ok = await spdy_command(server.prepare_exec("c1", ["true"]), versions=("channel.k8s.io",))
            assert ok.error == b"" and ok.protocol == "channel.k8s.io"
    run(main())


@pytest.mark.parametrize("transport", ["spdy", "ws-v5"])
def test_tty_merges_stderr_and_accepts_resize(transport):
    async def main():
        rig = rig_with("c1")
        backend = rig.backend
        async with serving(backend) as server:
            url = server.prepare_exec("c1", ["sh", "-c", "sleep 0.2; echo out; echo err >&2"], tty=True,
                                      stdin=False, stdout=True, stderr=False)
            sizes = [{"Width": 80, "Height": 24}, {"Width": 120, "Height": 40}]
            if transport == "spdy":
                result = await spdy_command(url, stderr=False, tty=True, resize=sizes)
            else:
                result, _ = await ws_command(url, "v5.channel.k8s.io", resize=sizes)
            assert result.stdout == b"out\r\nerr\r\n"  # a terminal turns newlines into CR LF
            assert result.exit_code == 0
        # Resize messages are parsed and handed to the backend, in order: the last one holds.
        assert rig.counters["tty_resizes"] == 2
        assert backend.terminal_size("c1") == (120, 40)
    run(main())


def test_resize_reaches_backend_before_a_slow_command_ends():
    async def main():
        backend = backend_with("c1")
        async with serving(backend) as server:
            url = server.prepare_exec("c1", ["sleep", "0.3"], tty=True, stderr=False)
            result = await spdy_command(url, stderr=False, tty=True,
                                        resize=[{"Width": 100, "Height": 30}])
            assert result.exit_code == 0
        assert backend.terminal_size("c1") == (100, 30)
    run(main())


def test_websocket_sends_an_empty_ready_message_first():
    async def main():
        async with serving(backend_with("c1")) as server:
            url = server.prepare_exec("c1", ["echo", "x"], stdout=False, stderr=True)
            _, messages = await ws_command(url, "v4.channel.k8s.io")
            assert messages[0] == (2, b"")  # stderr is the first writable channel
            assert json.loads(messages[-1][1])["status"] == "Success"
            assert messages[-1][0] == 3
    run(main())


def test_exec_refused_at_prepare_time_for_missing_or_stopped_container():
    async def main():
        rig = rig_with("c1")
        backend = rig.backend
        rig.add_container("stopped", running=False)
        async with serving(backend) as server:
            with pytest.raises(NotFound):
                server.prepare_exec("nope", ["true"])
            with pytest.raises(FailedPrecondition):
                server.prepare_exec("stopped", ["true"])
            with pytest.raises(InvalidArgument):
                server.prepare_exec("c1", [])
            with pytest.raises(InvalidArgument):
                server.prepare_exec("c1", ["true"], tty=True, stderr=True)
            with pytest.raises(InvalidArgument):
                server.prepare_exec("c1", ["true"], stdout=False, stderr=False)
    run(main())


@pytest.mark.parametrize("transport", ["spdy", "ws-v5"])
def test_container_stopping_after_prepare_reports_internal_error(transport):
    async def main():
        rig = rig_with("c1")
        backend = rig.backend
        async with serving(backend) as server:
            url = server.prepare_exec("c1", ["echo", "hi"])
            rig.stop("c1")
            result = await exec_over(transport, url)
            assert result.stdout == b""
            assert result.status["status"] == "Failure"
            assert result.status["reason"] == "InternalError"
            assert "not running" in result.status["message"].lower()
    run(main())


def test_a_tty_command_waits_for_the_resize_stream_before_it_may_end():
    async def main():
        async with serving(backend_with("c1")) as server:
            url = server.prepare_exec("c1", ["echo", "hello"], tty=True, stdin=True, stderr=False)
            client = SpdyClient(await spdy_upgrade(url, ["v4.channel.k8s.io"]))
            try:
                error = await client.open_stream({"streamType": "error"})
                await client.open_stream({"streamType": "stdin"})
                out = await client.open_stream({"streamType": "stdout"})
                await asyncio.sleep(0.3)
                assert not error.fin.is_set()  # not over: a TTY client still has its resize stream to open
                await client.open_stream({"streamType": "resize"})  # answered, not left to time out
                assert json.loads(await error.read_until_fin())["status"] == "Success"
                assert await out.wait_for_data(7) == b"hello\r\n"
            finally:
                await client.close()
    run(main())
