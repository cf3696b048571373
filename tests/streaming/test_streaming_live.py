"""Exec, Attach and PortForward end to end: the CRI RPC hands out a URL, a client speaks
SPDY or WebSocket to it the way kubectl and crictl do."""
from __future__ import annotations

import time

import grpc
import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from streaming.clients import SpdyClient, run, spdy_command, spdy_forward_once, spdy_upgrade, ws_command


def run_pod(rt, img, name, command=None, log_directory="", stdin=False, annotations=None):
    """Pull busybox if needed, run a sandbox and one started container; (sandbox id, container id)."""
    if not img.ImageStatus(pb.ImageStatusRequest(image=pb.ImageSpec(image="busybox"))).HasField("image"):
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
    cfg = pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name=name, namespace="default", uid=name + "-uid"),
                              log_directory=log_directory)
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ccfg = pb.ContainerConfig(metadata=pb.ContainerMetadata(name="app"), image=pb.ImageSpec(image="busybox"),
                              command=command or [], log_path="app/0.log", stdin=stdin,
                              annotations=annotations or {})
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg,
                                                       sandbox_config=cfg)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    return sid, cid


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


def test_attach_input_reaches_a_shell_started_with_stdin(rt, img, tmp_path):
    _, cid = run_pod(rt, img, "attach-sh", command=["/bin/sh"], log_directory=str(tmp_path), stdin=True)
    url = rt.Attach(pb.AttachRequest(container_id=cid, stdin=True, stdout=True, stderr=True)).url
    res = run(ws_command(url, "v5.channel.k8s.io", stdin=b"echo hello; exit 4\n"))[0]
    assert res.stdout == b"hello\n"
    status = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert (status.state, status.exit_code) == (pb.CONTAINER_EXITED, 4)
    assert b"hello" in (tmp_path / "app" / "0.log").read_bytes()  # the container's log has it too


def test_exec_of_a_command_that_does_not_read_returns_before_its_input_ends(rt, img):
    _, cid = run_pod(rt, img, "no-read")
    url = exec_url(rt, cid, ["echo", "hi"], stdin=True)

    async def go():
        up = await spdy_upgrade(url, ["v4.channel.k8s.io"])
        client = SpdyClient(up)
        try:
            error = await client.open_stream({"streamType": "error"})
            await client.open_stream({"streamType": "stdin"})  # opened, never written to or closed
            out = await client.open_stream({"streamType": "stdout"})
            await client.open_stream({"streamType": "stderr"})
            started = time.monotonic()
            status = await error.read_until_fin(timeout=5)
            return time.monotonic() - started, await out.wait_for_data(3), status
        finally:
            await client.close()

    took, out, status = run(go())
    assert out == b"hi\n" and b"Success" in status
    assert took < 2
