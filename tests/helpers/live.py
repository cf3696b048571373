"""Helpers for live tests: a real fakecri on a real unix socket, and pod scripting
through CRIClient."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time

import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient
from helpers.polling import first_true

IMAGE = "busybox:latest"


@contextlib.contextmanager
def fakecri(faults=(), **config):
    """Start fakecri (skipping the test if the server package is not usable yet)."""
    app = pytest.importorskip("fakecri.server.process.app", reason="fakecri.server.process.app is not there yet")
    try:
        from fakecri.server.config import ServerConfig

        path = os.path.join(tempfile.mkdtemp(prefix="fc-"), "cri.sock")
        server = app.FakeCRIServer(ServerConfig(socket=path, seed=0, faults=list(faults), **{"log_rpcs": False,
                                                                                             **config}))
        server.start()
    except (ImportError, AttributeError) as exc:
        pytest.skip(f"fakecri server not usable yet: {exc}")
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)


def fault(type_, *, name=None, toxicity=1.0, count=0, **attributes):
    from fakecri.faults.model import Fault

    return Fault(name=name or type_, type=type_, toxicity=toxicity, count=count,
                 attributes={k: str(v) for k, v in attributes.items()})


class Pods:
    """Runs pods and containers the way a kubelet would, through the typed client."""

    def __init__(self, client: CRIClient) -> None:
        self.client = client
        client.pull_image(IMAGE)

    def run(self, uid: str, name: str | None = None) -> str:
        return self.client.run_pod_sandbox(
            pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name=name or f"pod-{uid}", namespace="default",
                                                               uid=uid, attempt=0),
                                labels={"io.kubernetes.pod.uid": uid}))

    def container(self, sid: str, name: str, command=("sleep", "3600"), start: bool = True) -> str:
        cid = self.client.create_container(
            sid,
            pb.ContainerConfig(metadata=pb.ContainerMetadata(name=name), image=pb.ImageSpec(image=IMAGE),
                               command=list(command)),
        )
        if start:
            self.client.start_container(cid)
        return cid


def wait_for(cond, timeout=10.0, step=0.01):
    """Whether `cond()` held within `timeout` seconds."""
    return first_true(cond, timeout, step) is not None


def quiet(counter, settle=0.25, timeout=10.0):
    """Wait until counter() stops changing for `settle` seconds."""
    deadline = time.monotonic() + timeout
    last, since = counter(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.02)
        now = counter()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= settle:
            return
