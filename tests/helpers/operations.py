"""Helpers for the operations tests: a kubelet-shaped pod lifecycle and a metrics scrape."""
from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from fakecri.api.runtime.v1 import api_pb2 as pb
from helpers.polling import first_true

TIMEOUT = 30


def pod_config(name: str, uid: str) -> pb.PodSandboxConfig:
    return pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name=name, namespace="default", uid=uid),
                               hostname=name)


def run_pod(rt, img, name: str, uid: str, command=("sleep", "3600")) -> tuple[str, str]:
    """RunPodSandbox, PullImage, CreateContainer, StartContainer: (sandbox id, container id)."""
    config = pod_config(name, uid)
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=config), timeout=TIMEOUT).pod_sandbox_id
    img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox:latest")), timeout=TIMEOUT)
    ctr = pb.ContainerConfig(metadata=pb.ContainerMetadata(name="app"), image=pb.ImageSpec(image="busybox:latest"),
                             command=list(command), log_path="app/0.log")
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ctr, sandbox_config=config),
                             timeout=TIMEOUT).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=TIMEOUT)
    return sid, cid


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    """Every sample as {(name, sorted labels): value}."""
    with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/plain")
        text = resp.read().decode("utf-8")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def sample(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def wait_for(predicate, timeout: float = 30.0, what: str = "condition"):
    """Poll `predicate` until it returns something truthy (bounded; never asserts on timing)."""
    value = first_true(predicate, timeout, 0.02)
    if value is None:
        raise AssertionError(f"timed out after {timeout}s waiting for {what}")
    return value


def scrape_until(url: str, name: str, value: float, **labels: str) -> dict:
    """Scrape until the sample `name{labels}` equals `value`; returns that scrape."""
    def attempt():
        samples = scrape(url)
        return samples if sample(samples, name, **labels) == value else None

    return wait_for(attempt, what=f"{name}{labels or ''} == {value}")
