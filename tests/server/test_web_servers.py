"""Web-server containers: port mappings open real listeners, closed when the container stops;
ContainerStatus.user reports the effective identity (over the real socket)."""
from __future__ import annotations

import socket
import urllib.request

import pytest
from helpers.cri import container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb

NGINX = "registry.k8s.io/e2e-test-images/nginx:1.14-2"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def refused(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(2)
        return s.connect_ex(("127.0.0.1", port)) != 0


def start(rt, img, image: str, sandbox: pb.PodSandboxConfig, config: pb.ContainerConfig | None = None) -> tuple[str,
                                                                                                                str]:
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=image)))
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox)).pod_sandbox_id
    cfg = config or container_config(image=image)
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=cfg,
                                                       sandbox_config=sandbox)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    return sid, cid


def test_a_web_server_serves_on_its_host_port_until_it_stops(rt, img):
    port = free_port()
    sandbox = sandbox_config()
    sandbox.port_mappings.add(container_port=80, host_port=port)
    _, cid = start(rt, img, NGINX, sandbox)
    status, body = get(f"http://127.0.0.1:{port}/")
    assert status == 200 and b"Welcome to nginx!" in body
    assert get(f"http://127.0.0.1:{port}/missing")[0] == 404
    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
    assert refused(port)


def test_a_container_that_is_no_web_server_opens_nothing(rt, img):
    port = free_port()
    sandbox = sandbox_config()
    sandbox.port_mappings.add(container_port=80, host_port=port)
    start(rt, img, "busybox", sandbox, container_config(command=["sleep", "infinity"]))
    assert refused(port)


def test_a_host_network_web_server_serves_on_the_host(rt, img, srv):
    port = 12003  # the hostnet-nginx image's port
    if not refused(port):
        pytest.skip(f"port {port} is in use on this machine")
    sandbox = sandbox_config()
    sandbox.linux.security_context.namespace_options.network = pb.NamespaceMode.NODE
    _, cid = start(rt, img, "gcr.io/k8s-staging-cri-tools/hostnet-nginx-amd64:latest", sandbox)
    assert get(f"http://127.0.0.1:{port}/")[0] == 200
    rt.RemoveContainer(pb.RemoveContainerRequest(container_id=cid))
    assert refused(port)


def test_status_user_is_the_effective_identity(rt, img):
    cfg = container_config(image="gcr.io/k8s-staging-cri-tools/test-image-predefined-group:latest",
                           command=["sleep", "infinity"])
    cfg.linux.security_context.run_as_user.value = 1000
    cfg.linux.security_context.supplemental_groups.append(1234)
    _, cid = start(rt, img, cfg.image.image, sandbox_config(), cfg)
    user = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.user.linux
    assert (user.uid, user.gid, list(user.supplemental_groups)) == (1000, 1000, [1000, 1234, 50000])


def raw_answer(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(request)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def undated(response: bytes) -> bytes:
    """A response without its Date header (the two requests may fall in different seconds)."""
    return b"\r\n".join(line for line in response.split(b"\r\n") if not line.startswith(b"Date: "))


def test_port_forward_answers_as_the_host_port_does(rt, img):
    """One web server, one answer: the welcome page for /, a 404 for anything else, the
    same bytes whether the request came through a host port or kubectl port-forward."""
    from streaming.clients import SpdyClient, run, spdy_forward_once, spdy_upgrade

    port = free_port()
    sandbox = sandbox_config()
    sandbox.port_mappings.add(container_port=80, host_port=port)
    sid, _ = start(rt, img, NGINX, sandbox)
    url = rt.PortForward(pb.PortForwardRequest(pod_sandbox_id=sid, port=[80])).url
    requests = {path: f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode() for path in ("/", "/nope")}

    async def forwarded() -> dict[str, bytes]:
        up = await spdy_upgrade(url, ["portforward.k8s.io"])
        client = SpdyClient(up)
        try:
            return {path: (await spdy_forward_once(client, 80, i, req, half_close=False))[0]
                    for i, (path, req) in enumerate(requests.items())}
        finally:
            await client.close()

    through_forward = {path: undated(answer) for path, answer in run(forwarded()).items()}
    assert through_forward == {path: undated(raw_answer(port, req)) for path, req in requests.items()}
    assert through_forward["/nope"].startswith(b"HTTP/1.1 404 Not Found")
