"""Exec, Attach and PortForward end to end: the CRI RPC hands out a URL, a client speaks
SPDY or WebSocket to it the way kubectl/crictl do (issue 7)."""
from __future__ import annotations

import asyncio
import time

import grpc
import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb

from crihelpers import run_pod
from streaming.clients import SpdyClient, run, spdy_command, spdy_forward_once, spdy_upgrade, ws_command


def exec_url(rt, cid, cmd, stdin=False):
    return rt.Exec(pb.ExecRequest(container_id=cid, cmd=cmd, stdin=stdin, stdout=True, stderr=True)).url


@pytest.mark.parametrize("transport", ["spdy", "websocket"])
def test_exec_echo_exit_code_and_stdin(rt, img, transport):
    _, cid = run_pod(rt, img, "exec-" + transport)

    def go(cmd, stdin=None):
        url = exec_url(rt, cid, cmd, stdin=stdin is not None)
        if transport == "spdy":
            return run(spdy_command(url, stdin=stdin))
        return run(ws_command(url, stdin=stdin))[0]

    res = go(["echo", "hi"])
    assert (res.stdout, res.exit_code) == (b"hi\n", 0)
    assert go(["sh", "-c", "exit 3"]).exit_code == 3
    assert go(["cat"], stdin=b"fed through stdin\n").stdout == b"fed through stdin\n"


def test_exec_url_is_single_use(rt, img):
    _, cid = run_pod(rt, img, "once")
    url = exec_url(rt, cid, ["true"])
    assert run(spdy_command(url)).exit_code == 0
    up = run(spdy_upgrade(url, ["v4.channel.k8s.io"]))
    assert up.status == 404


def test_exec_on_stopped_container_is_refused(rt, img):
    _, cid = run_pod(rt, img, "stopped")
    rt.StopContainer(pb.StopContainerRequest(container_id=cid))
    with pytest.raises(grpc.RpcError) as info:
        exec_url(rt, cid, ["true"])
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION and cid[:12] in info.value.details()


def test_attach_receives_what_the_container_writes(rt, img, tmp_path):
    _, cid = run_pod(rt, img, "attach", log_directory=str(tmp_path),
                     annotations={"fakecri.io/log-every": "50ms", "fakecri.io/log-every-line": "line {n}",
                                  "fakecri.io/exit-after": "600ms"})
    url = rt.Attach(pb.AttachRequest(container_id=cid, stdout=True, stderr=True)).url
    res = run(spdy_command(url))
    assert b"line " in res.stdout


def test_port_forward_echoes_bytes(rt, img):
    sid, _ = run_pod(rt, img, "pf")
    url = rt.PortForward(pb.PortForwardRequest(pod_sandbox_id=sid, port=[8080])).url

    async def go():
        up = await spdy_upgrade(url, ["portforward.k8s.io"])
        assert up.status == 101
        client = SpdyClient(up)
        try:
            return await spdy_forward_once(client, 8080, 0, b"ping over the tunnel")
        finally:
            await client.close()

    received, message = run(go())
    assert received == b"ping over the tunnel" and message == b""
