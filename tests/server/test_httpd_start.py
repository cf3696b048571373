"""What the web-server images write when they start, as their container's log shows it:
httpd warns twice that it cannot tell its fully qualified name, naming the pod's address
(critest's multi-container log check reads "httpd" there); nginx 1.14 writes nothing."""
from __future__ import annotations

import time

from helpers.cri import container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb

HTTPD = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4"
NGINX = "registry.k8s.io/e2e-test-images/nginx:1.14-2"


def _log_of(rt, img, tmp_path, image: str, command=()):
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=image)))
    cfg = sandbox_config("web", log_directory=str(tmp_path))
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ctr = container_config("server", image=image, command=list(command), log_path="server.log")
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ctr, sandbox_config=cfg)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    time.sleep(0.3)
    ip = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid)).status.network.ip
    lines = [line.split(" ", 3)[1:] for line in (tmp_path / "server.log").read_text().splitlines()]
    state = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status.state
    return ip, lines, state


def test_httpd_warns_about_its_name_with_the_pod_address(rt, img, tmp_path):
    ip, lines, state = _log_of(rt, img, tmp_path, HTTPD)
    warning = (f"AH00558: httpd: Could not reliably determine the server's fully qualified domain name, "
               f"using {ip}. Set the 'ServerName' directive globally to suppress this message")
    assert ip and lines == [["stderr", "F", warning]] * 2
    assert state == pb.CONTAINER_RUNNING


def test_nginx_starts_silently(rt, img, tmp_path):
    _, lines, state = _log_of(rt, img, tmp_path, NGINX)
    assert lines == [] and state == pb.CONTAINER_RUNNING


def test_httpd_in_another_image_is_not_apache(rt, img, tmp_path):
    _, lines, state = _log_of(rt, img, tmp_path, "busybox", command=["httpd", "-f"])
    assert lines == [] and state == pb.CONTAINER_RUNNING
