"""The host fails under the state file: a full disk, a file system gone read-only.

The promise (docs/guarantees.md, "Hosts that fail"): a change whose state write fails is
undone and its call answers UNAVAILABLE naming the state file, so what the runtime holds is
always what the file holds; calls that change nothing go on answering; a change a timer
made is retried until a write succeeds; and no id anyone saw is ever handed out again,
whatever kill -9 does meanwhile (the file keeps the id sequence ahead of use).

These need a small file system of their own (a tmpfs), so they run as root and skip
otherwise.
"""
from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import grpc
import pytest
from helpers.cri import EventCollector, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.engine.clock import RandomIds
from fakecri.server.process.app import FakeCRIServer, short_socket_path

UNAVAILABLE = grpc.StatusCode.UNAVAILABLE
BOUND = 30.0


@pytest.fixture
def small_disk():
    """A 2 MiB tmpfs, mounted for the test and gone after it."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    where = tempfile.mkdtemp(prefix="fc-disk-")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", where],
                          capture_output=True, text=True)
    if done.returncode != 0:
        os.rmdir(where)
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", where], capture_output=True)
        os.rmdir(where)


def fill(where: str) -> None:
    """Fill the file system until not one more byte fits."""
    for name, piece in (("filler", 1 << 16), ("filler2", 512), ("filler3", 1)):
        fd = os.open(os.path.join(where, name), os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b"\0" * piece)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
        finally:
            os.close(fd)


def free(where: str) -> None:
    for name in ("filler", "filler2", "filler3"):
        with_path = os.path.join(where, name)
        if os.path.exists(with_path):
            os.unlink(with_path)


def code_and_details(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except grpc.RpcError as exc:
        return exc.code(), exc.details()
    return grpc.StatusCode.OK, ""


class Served:
    """A real `fakecri serve --state-file` child process."""

    def __init__(self, state_file: str, root: str) -> None:
        self.sock = short_socket_path()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "fakecri.cli", "serve", "--socket", self.sock, "--state-file", state_file,
             "--root", root, "--log-level", "error", "--seed", "3", "--deterministic-ids"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.channel = grpc.insecure_channel("unix:" + self.sock)
        self.rt = api_pb2_grpc.RuntimeServiceStub(self.channel)
        self.img = api_pb2_grpc.ImageServiceStub(self.channel)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"fakecri serve exited: {self.proc.stderr.read().decode()[-2000:]}")
            try:
                self.rt.Version(pb.VersionRequest(), timeout=2)
                return
            except grpc.RpcError:
                assert time.monotonic() < deadline, "fakecri serve did not answer within 60 s"
                time.sleep(0.05)

    def kill9(self) -> None:
        self.channel.close()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)
        self.proc.stderr.close()
        shutil.rmtree(os.path.dirname(self.sock), ignore_errors=True)


def test_a_full_disk_undoes_the_change_keeps_reads_and_never_repeats_an_id(small_disk, tmp_path):
    state = os.path.join(small_disk, "state.json")
    root = str(tmp_path / "root")
    server = Served(state, root)
    seen: set[str] = set()
    events = EventCollector("unix:" + server.sock)
    try:
        server.img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=BOUND)
        first = server.rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("a")), timeout=BOUND)
        seen.add(first.pod_sandbox_id)
        assert events.wait_for(2, timeout=BOUND)  # its CREATED and STARTED

        fill(small_disk)
        code, details = code_and_details(server.rt.RunPodSandbox,
                                         pb.RunPodSandboxRequest(config=sandbox_config("b")), timeout=BOUND)
        assert code == UNAVAILABLE, details
        assert state in details and "No space left on device" in details
        code, details = code_and_details(server.img.PullImage,
                                         pb.PullImageRequest(image=pb.ImageSpec(image="nginx")), timeout=BOUND)
        assert code == UNAVAILABLE and state in details

        # Reads go on, and show what the file holds: the refused changes are not there.
        for _ in range(3):
            assert server.rt.Version(pb.VersionRequest(), timeout=BOUND).runtime_name == "fakecri"
            pods = server.rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=BOUND).items
            assert [p.id for p in pods] == [first.pod_sandbox_id]
            images = server.img.ListImages(pb.ListImagesRequest(), timeout=BOUND).images
            assert not any("nginx" in t for i in images for t in i.repo_tags)
        # A call that changes nothing writes nothing, and fails nothing.
        server.rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id="0" * 64), timeout=BOUND)

        server.kill9()  # with the disk still full
        free(small_disk)
        seen |= {e.container_id for e in events.events}
    finally:
        events.close()
        if server.proc.poll() is None:
            server.kill9()

    server = Served(state, root)
    try:
        pods = server.rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=BOUND).items
        assert [p.id for p in pods] == [first.pod_sandbox_id]
        again = server.rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("b")), timeout=BOUND)
        assert again.pod_sandbox_id not in seen
        # Nor the id the refused RunPodSandbox drew: the file kept the sequence ahead of it.
        ids = RandomIds(3)
        drawn = [ids.new_id() for _ in range(2)]
        assert drawn[0] == first.pod_sandbox_id and again.pod_sandbox_id != drawn[1]
    finally:
        server.kill9()


def read_only(directory: str) -> None:
    """Make `directory` read-only from now on: a read-only bind mount over it (files opened for
    writing before, as the state file's lock is, keep the mount they were opened on)."""
    subprocess.run(["mount", "--bind", directory, directory], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", directory], check=True)


def writable(directory: str) -> None:
    subprocess.run(["umount", directory], check=True)


def test_a_file_system_gone_read_only_holds_a_timers_change_until_it_can_be_written(small_disk):
    data = os.path.join(small_disk, "data")
    os.mkdir(data)
    state = os.path.join(data, "state.json")
    root = tempfile.mkdtemp(prefix="fc-root-")
    with FakeCRIServer(seed=4, state_file=state, state_root=root) as server:
        ch = grpc.insecure_channel(server.endpoint)
        rt = api_pb2_grpc.RuntimeServiceStub(ch)
        img = api_pb2_grpc.ImageServiceStub(ch)
        events = EventCollector(server.endpoint)
        try:
            img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=BOUND)
            cfg = sandbox_config("ro")
            sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=BOUND).pod_sandbox_id
            ccfg = pb.ContainerConfig(metadata=pb.ContainerMetadata(name="app"), image=pb.ImageSpec(image="busybox"),
                                      command=["sleep", "infinity"],
                                      annotations={"fakecri.io/exit-after": "300ms"})
            cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg, sandbox_config=cfg),
                                     timeout=BOUND).container_id
            read_only(data)
            try:
                code, details = code_and_details(rt.StartContainer, pb.StartContainerRequest(container_id=cid),
                                                 timeout=BOUND)
                assert code == UNAVAILABLE and "Read-only file system" in details and state in details
                status = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid), timeout=BOUND).status
                assert status.state == pb.CONTAINER_CREATED  # the start was undone
            finally:
                writable(data)
            rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=BOUND)
            read_only(data)
            try:
                deadline = time.monotonic() + BOUND  # the exit is due at 300 ms; its write fails
                while server.call(lambda: server.node.counters["state_write_failures"]) == 0:
                    assert time.monotonic() < deadline, "the timer's change was never written"
                    time.sleep(0.02)
                status = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid), timeout=BOUND).status
                assert status.state == pb.CONTAINER_RUNNING
                assert rt.Version(pb.VersionRequest(), timeout=BOUND).runtime_name == "fakecri"
                assert not any(e.container_event_type == pb.CONTAINER_STOPPED_EVENT for e in events.events)
            finally:
                writable(data)
            deadline = time.monotonic() + BOUND
            while rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid),
                                     timeout=BOUND).status.state != pb.CONTAINER_EXITED:
                assert time.monotonic() < deadline, "the held exit was never written"
                time.sleep(0.05)
            assert any(e.container_event_type == pb.CONTAINER_STOPPED_EVENT
                       for e in events.wait_for(4, timeout=BOUND))
            server.check()
        finally:
            events.close()
            ch.close()
    shutil.rmtree(root, ignore_errors=True)
