"""Sessions end when what they run in stops, as a real runtime's do: an exec'd process is
killed with its container (exit status 137), an attach ends, a port-forward into a stopped
pod stops, and an ExecSync in flight answers at once with what containerd answers (OK,
exit code 137, the output so far) instead of running on to its end."""
from __future__ import annotations

import asyncio
import threading
import time

import grpc
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from fakecri.api.runtime.v1 import api_pb2 as pb
from streaming.clients import OPEN_TIMEOUT_S, SpdyClient, _decode, _encode, run, spdy_upgrade, ws_url

BOUND = 20.0  # every wait here is bounded; none of these should take more than a second


def run_pod(rt, img, name, command=("sleep", "infinity")):
    if not img.ImageStatus(pb.ImageStatusRequest(image=pb.ImageSpec(image="busybox"))).HasField("image"):
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    cfg = pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name=name, namespace="default", uid=name + "-uid"))
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ccfg = pb.ContainerConfig(metadata=pb.ContainerMetadata(name="app"), image=pb.ImageSpec(image="busybox"),
                              command=list(command))
    req = pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg, sandbox_config=cfg)
    cid = rt.CreateContainer(req).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    return sid, cid


def stop_pod(rt, sid, how):
    if how == "stop":
        rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid))
    else:
        rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid))


STARTED = ["sh", "-c", "echo started; sleep infinity"]


@pytest.mark.parametrize("how", ["stop", "remove"])
def test_a_spdy_exec_of_sleep_infinity_ends_when_its_pod_stops(rt, img, how):
    sid, cid = run_pod(rt, img, f"exec-spdy-{how}")
    url = rt.Exec(pb.ExecRequest(container_id=cid, cmd=STARTED, stdout=True, stderr=True)).url

    async def go():
        up = await spdy_upgrade(url, ["v4.channel.k8s.io"])
        client = SpdyClient(up)
        try:
            error = await client.open_stream({"streamType": "error"})
            out = await client.open_stream({"streamType": "stdout"})
            await client.open_stream({"streamType": "stderr"})
            assert await out.wait_for_data(len(b"started\n"), timeout=BOUND) == b"started\n"
            await asyncio.to_thread(stop_pod, rt, sid, how)
            return await error.read_until_fin(timeout=BOUND)
        finally:
            await client.close()

    status = run(go(), timeout=2 * BOUND)
    assert b"NonZeroExitCode" in status and b"exit code 137" in status


@pytest.mark.parametrize("how", ["stop", "remove"])
def test_a_websocket_exec_ends_when_its_pod_stops(rt, img, how):
    sid, cid = run_pod(rt, img, f"exec-ws-{how}")
    url = rt.Exec(pb.ExecRequest(container_id=cid, cmd=STARTED, stdout=True, stderr=True)).url

    async def go():
        messages = []
        async with ws_connect(ws_url(url), subprotocols=["v5.channel.k8s.io"],  # type: ignore[list-item]
                              open_timeout=OPEN_TIMEOUT_S, close_timeout=2) as conn:
            async with asyncio.timeout(BOUND):
                async for message in conn:
                    messages.append(_decode("v5.channel.k8s.io", message))
                    if (1, b"started\n") in messages:
                        break
                await asyncio.to_thread(stop_pod, rt, sid, how)
                try:
                    async for message in conn:
                        messages.append(_decode("v5.channel.k8s.io", message))
                except ConnectionClosed:
                    pass
        return messages

    messages = run(go(), timeout=2 * BOUND)
    status = b"".join(data for channel, data in messages if channel == 3)
    assert b"exit code 137" in status


def test_an_attach_ends_when_its_pod_is_removed(rt, img):
    sid, cid = run_pod(rt, img, "attach-gone", command=("sh", "-c", "echo up; sleep infinity"))
    url = rt.Attach(pb.AttachRequest(container_id=cid, stdout=True, stderr=True)).url

    async def go():
        async with ws_connect(ws_url(url), subprotocols=["v5.channel.k8s.io"],  # type: ignore[list-item]
                              open_timeout=OPEN_TIMEOUT_S, close_timeout=2) as conn:
            first = _decode("v5.channel.k8s.io", await asyncio.wait_for(conn.recv(), BOUND))
            await asyncio.to_thread(stop_pod, rt, sid, "remove")
            rest = []
            async with asyncio.timeout(BOUND):
                try:
                    async for message in conn:
                        rest.append(_decode("v5.channel.k8s.io", message))
                except ConnectionClosed:
                    pass
            return first, rest

    first, rest = run(go(), timeout=2 * BOUND)
    assert first[0] == 1  # the ready message on stdout
    assert any(channel == 3 and b"Success" in data for channel, data in rest)


@pytest.mark.parametrize("how", ["stop", "remove"])
def test_port_forward_stops_with_its_pod(rt, img, how):
    sid, _ = run_pod(rt, img, f"pf-{how}")
    url = rt.PortForward(pb.PortForwardRequest(pod_sandbox_id=sid, port=[8080])).url

    async def go():
        up = await spdy_upgrade(url, ["portforward.k8s.io"])
        assert up.status == 101
        client = SpdyClient(up)
        try:
            headers = {"streamType": "error", "port": "8080", "requestID": "0"}
            await client.open_stream(headers)
            data = await client.open_stream({**headers, "streamType": "data"})
            await client.send(data, b"ping")
            assert await data.wait_for_data(4, timeout=BOUND) == b"ping"  # the echo: it works
            await asyncio.to_thread(stop_pod, rt, sid, how)
            await asyncio.wait_for(data.fin.wait(), BOUND)  # the forwarded connection ends
            await asyncio.wait_for(client.eof.wait(), BOUND)  # and so does the whole session
            return client.goaway.is_set()
        finally:
            await client.close()

    assert run(go(), timeout=2 * BOUND)


def test_a_websocket_port_forward_stops_with_its_pod(rt, img):
    sid, _ = run_pod(rt, img, "pf-ws")
    url = rt.PortForward(pb.PortForwardRequest(pod_sandbox_id=sid, port=[8080])).url
    protocol = "v4.channel.k8s.io"

    async def go():
        async with ws_connect(ws_url(url) + "?port=8080", subprotocols=[protocol],  # type: ignore[list-item]
                              open_timeout=OPEN_TIMEOUT_S, close_timeout=2) as conn:
            for _ in range(2):  # the port tags on the data and error channels
                await asyncio.wait_for(conn.recv(), BOUND)
            await conn.send(_encode(protocol, 0, b"ping"))
            assert _decode(protocol, await asyncio.wait_for(conn.recv(), BOUND)) == (0, b"ping")
            await asyncio.to_thread(stop_pod, rt, sid, "stop")
            async with asyncio.timeout(BOUND):
                try:
                    async for _ in conn:
                        pass
                except ConnectionClosed:
                    pass
            return conn.close_code

    assert run(go(), timeout=2 * BOUND) is not None


def _exec_sync_in_thread(rt, cid, cmd, out):
    def call():
        started = time.monotonic()
        try:
            out["response"] = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=cmd), timeout=BOUND)
        except grpc.RpcError as exc:
            out["error"] = exc
        out["took"] = time.monotonic() - started

    t = threading.Thread(target=call, daemon=True)
    t.start()
    return t


def _wait_for_exec(srv, cid):
    """Until the ExecSync is in flight: its session watches the container."""
    deadline = time.monotonic() + BOUND
    while srv.call(lambda: srv.node.sessions.watching(cid)) == 0:
        assert time.monotonic() < deadline, "the ExecSync never started"
        time.sleep(0.01)


@pytest.mark.parametrize("how", ["remove-container", "stop-pod"])
def test_exec_sync_sleep_30_answers_when_its_container_goes(srv, rt, img, how):
    sid, cid = run_pod(rt, img, f"execsync-{how}")
    out: dict = {}
    t = _exec_sync_in_thread(rt, cid, ["sh", "-c", "echo before; sleep 30; echo after"], out)
    _wait_for_exec(srv, cid)
    time.sleep(0.5)
    if how == "remove-container":
        rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
    else:
        rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid))
    t.join(BOUND + 5)
    assert "error" not in out, out.get("error")
    resp = out["response"]  # within BOUND (20 s) of a 30 s command: it did not run to its end
    assert (resp.exit_code, resp.stdout, resp.stderr) == (137, b"before\n", b"")
    assert srv.call(lambda: srv.node.sessions.watching(cid)) == 0


def test_exec_sync_that_ends_first_is_unchanged(srv, rt, img):
    _, cid = run_pod(rt, img, "execsync-short")
    resp = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["sh", "-c", "sleep 0.1; echo done"]),
                       timeout=BOUND)
    assert (resp.exit_code, resp.stdout) == (0, b"done\n")
    assert srv.call(lambda: len(srv.node.sessions)) == 0


def test_exec_sync_that_never_ends_on_a_fake_clock_answers_when_its_container_goes():
    """On a fake clock time moves only when told: `sleep infinity` waits (it was INTERNAL, an
    infinite jump of the clock) until its container goes."""
    from fakecri.api.runtime.v1 import api_pb2_grpc
    from fakecri.server.process.app import FakeCRIServer

    with FakeCRIServer(fake_clock=True) as server:
        ch = grpc.insecure_channel(server.endpoint)
        rt, img = api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
        try:
            _, cid = run_pod(rt, img, "fake-clock-exec")
            out: dict = {}
            t = _exec_sync_in_thread(rt, cid, ["sh", "-c", "echo up; sleep infinity"], out)
            _wait_for_exec(server, cid)
            rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
            t.join(BOUND + 5)
            assert "error" not in out, out.get("error")
            assert (out["response"].exit_code, out["response"].stdout) == (137, b"up\n")
            server.check()
        finally:
            ch.close()
