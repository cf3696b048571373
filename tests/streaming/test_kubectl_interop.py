"""The real kubectl drives exec, attach and port-forward through a fake apiserver.

Skipped when no kubectl binary is installed. KUBECTL_REMOTE_COMMAND_WEBSOCKETS and
KUBECTL_PORT_FORWARD_WEBSOCKETS pick the transport kubectl uses.
"""
from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess

import pytest

from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend

from .clients import run, serving
from .fake_apiserver import FakeApiServer
from .rig import Rig


def _find_kubectl() -> str | None:
    path = shutil.which("kubectl")
    if path is None:
        return None
    try:
        ok = subprocess.run([path, "version", "--client"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if ok.returncode == 0 else None


KUBECTL = _find_kubectl()
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
TRANSPORTS = {"spdy": "false", "websocket": "true"}


def _env(tmp_path, transport: str) -> dict[str, str]:
    env = dict(os.environ, HOME=str(tmp_path), KUBECONFIG=str(tmp_path / "none"))
    env["KUBECTL_REMOTE_COMMAND_WEBSOCKETS"] = TRANSPORTS[transport]
    env["KUBECTL_PORT_FORWARD_WEBSOCKETS"] = "false"
    return env


async def kubectl(api: str, env: dict[str, str], *args: str, stdin: bytes = b"",
                  timeout: float = 8.0) -> tuple[int, bytes, bytes]:
    proc = await asyncio.create_subprocess_exec(
        KUBECTL, "--server", api, "--cache-dir", env["HOME"] + "/cache", *args,  # type: ignore[arg-type]
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out, err


def rig_with(command=("sleep", "infinity"), **kw) -> Rig:
    rig = Rig()
    rig.add_container("c1", command, **kw)
    rig.add_sandbox("pod1")
    return rig


def backend(command=("sleep", "infinity"), **kw) -> RuntimeStreamingBackend:
    return rig_with(command, **kw).backend


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_kubectl_exec(transport, tmp_path):
    async def main():
        async with serving(backend()) as server:
            fake = FakeApiServer(server)
            api = await fake.start()
            env = _env(tmp_path, transport)
            try:
                code, out, err = await kubectl(api, env, "exec", "p1", "--", "echo", "hi")
                assert (code, out) == (0, b"hi\n"), err
                code, out, err = await kubectl(api, env, "exec", "p1", "--", "sh", "-c",
                                               "echo oops >&2; exit 3")
                assert code == 3, err
                assert b"oops" in err
                payload = b"piped through cat\n" * 1000
                code, out, err = await kubectl(api, env, "exec", "-i", "p1", "--", "cat", stdin=payload)
                assert (code, out) == (0, payload), err
            finally:
                await fake.stop()
            want = "spdy/3.1" if transport == "spdy" else "websocket"
            assert {u.lower() for u in fake.upgrades} == {want}
    run(main(), timeout=30)


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_kubectl_attach(transport, tmp_path):
    async def main():
        rig = rig_with(("sh",), stdin=True)
        b = rig.backend
        async with serving(b) as server:
            fake = FakeApiServer(server)
            api = await fake.start()
            try:
                client = asyncio.create_task(kubectl(api, _env(tmp_path, transport), "attach", "p1"))
                for _ in range(400):
                    if b.attached_count("c1") or client.done():
                        break
                    await asyncio.sleep(0.02)
                assert b.attached_count("c1") == 1
                rig.feed("c1", b"echo from the container\nexit\n")
                code, out, err = await client
                assert code == 0, err
                assert b"from the container\n" in out
            finally:
                await fake.stop()
    run(main(), timeout=30)


def test_kubectl_port_forward_over_spdy(tmp_path):
    async def main():
        async with serving(backend()) as server:
            fake = FakeApiServer(server)
            api = await fake.start()
            env = _env(tmp_path, "spdy")
            proc = await asyncio.create_subprocess_exec(
                KUBECTL, "--server", api, "--cache-dir", str(tmp_path / "cache"),  # type: ignore[arg-type]
                "port-forward", "--address", "127.0.0.1", "pod/p1", ":8080",
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            try:
                assert proc.stdout is not None
                line = await asyncio.wait_for(proc.stdout.readline(), 8)
                match = re.search(rb"127\.0\.0\.1:(\d+) -> 8080", line)
                assert match, line
                for i in range(3):
                    reader, writer = await asyncio.open_connection("127.0.0.1", int(match.group(1)))
                    writer.write(b"hello %d" % i)
                    await writer.drain()
                    assert await asyncio.wait_for(reader.readexactly(7), 5) == b"hello %d" % i
                    writer.close()
            finally:
                proc.terminate()
                await asyncio.wait_for(proc.wait(), 5)
                await fake.stop()
            assert fake.upgrades == ["SPDY/3.1"]
    run(main(), timeout=30)
