"""Over a real socket: a tmpfs mounted inside a container under a BIDIRECTIONAL mount reaches
the host path and the other containers mounting it with HOST_TO_CONTAINER or BIDIRECTIONAL
propagation, not a PRIVATE one started before; the node e2e "Mount recursive read-only" pod,
its init containers run as their own commands; with --mount-propagation-check, containerd's
refusal of a propagating mount whose host mount does not propagate."""
from __future__ import annotations

import os
import shutil
import subprocess
import time

import grpc
import pytest
from helpers.cri import container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer


class Pod:
    def __init__(self, rt, img, tmp_path, name: str) -> None:
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
        self.rt = rt
        self.cfg = sandbox_config(name, log_directory=str(tmp_path / f"logs-{name}"))
        self.sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=self.cfg)).pod_sandbox_id

    def container(self, name, mounts, *, command=None, privileged=False) -> str:
        cfg = container_config(name, command=command or ["sleep", "3600"])
        cfg.linux.security_context.privileged = privileged
        for m in mounts:
            cfg.mounts.add(**m)
        cid = self.rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=self.sid, config=cfg,
                                                                sandbox_config=self.cfg)).container_id
        self.rt.StartContainer(pb.StartContainerRequest(container_id=cid))
        return cid

    def run(self, cid, *argv) -> tuple[str, str, int]:
        r = self.rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=list(argv), timeout=10))
        return r.stdout.decode(), r.stderr.decode(), r.exit_code

    def exited(self, cid) -> pb.ContainerStatus:
        deadline = time.monotonic() + 10
        while True:
            status = self.rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
            if status.state == pb.CONTAINER_EXITED:
                return status
            assert time.monotonic() < deadline, "the container did not finish"
            time.sleep(0.05)


def test_a_tmpfs_mounted_under_a_bidirectional_mount_reaches_the_other_containers(rt, img, tmp_path):
    volume = tmp_path / "shared"
    volume.mkdir()
    pod = Pod(rt, img, tmp_path, "propagation")
    host = str(volume)
    master = pod.container("master", [dict(container_path="/mnt/test", host_path=host,
                                           propagation=pb.PROPAGATION_BIDIRECTIONAL)], privileged=True)
    slave = pod.container("slave", [dict(container_path="/mnt/test", host_path=host,
                                         propagation=pb.PROPAGATION_HOST_TO_CONTAINER)])
    private = pod.container("private", [dict(container_path="/mnt/test", host_path=host)])
    assert pod.run(master, "sh", "-c", "mkdir /mnt/test/master && mount -t tmpfs master /mnt/test/master && "
                                       "echo master > /mnt/test/master/file") == ("", "", 0)
    assert (volume / "master" / "file").read_text() == "master\n"  # on the host path
    assert pod.run(slave, "cat", "/mnt/test/master/file") == ("master\n", "", 0)
    assert "master on /mnt/test/master type tmpfs (rw,relatime)\n" in pod.run(slave, "mount")[0]
    assert pod.run(private, "cat", "/mnt/test/master/file") == (
        "", "cat: can't open '/mnt/test/master/file': No such file or directory\n", 1)
    assert "/mnt/test/master" not in pod.run(private, "cat", "/proc/mounts")[0]
    # a slave's own mount stays its own; an unprivileged container may not mount
    assert pod.run(slave, "mount", "-t", "tmpfs", "x", "/mnt/test/master") == (
        "", "mount: permission denied (are you root?)\n", 1)
    assert pod.run(master, "umount", "/mnt/test/master") == ("", "", 0)
    assert list((volume / "master").iterdir()) == []
    assert pod.run(slave, "ls", "-A", "/mnt/test/master") == ("", "", 0)


def test_the_node_e2e_recursive_read_only_pod_runs_to_completion(rt, img, tmp_path):
    volume = tmp_path / "empty-dir"
    volume.mkdir()
    host = str(volume)
    pod = Pod(rt, img, tmp_path, "mount-rro")
    bidirectional = [dict(container_path="/mnt", host_path=host, propagation=pb.PROPAGATION_BIDIRECTIONAL)]
    mount = pod.container("mount", bidirectional, privileged=True,
                          command=["sh", "-euxc", "mkdir -p /mnt/tmpfs && mount -t tmpfs none /mnt/tmpfs"])
    assert pod.exited(mount).exit_code == 0
    test = pod.container("test", [
        dict(container_path="/mnt-rro", host_path=host, readonly=True, recursive_read_only=True),
        dict(container_path="/mnt-rro-if-possible", host_path=host, readonly=True, recursive_read_only=True),
        dict(container_path="/mnt-rro-disabled", host_path=host, readonly=True),
        dict(container_path="/mnt-ro", host_path=host, readonly=True),
        dict(container_path="/mnt-rw", host_path=host),
    ], command=["sh", "-euxc", 'for f in rro rro-if-possible; do touch /mnt-$f/tmpfs/foo 2>&1 | grep "Read-only"; '
                               'done\nfor f in rro-disabled ro rw; do touch /mnt-$f/tmpfs/foo; done\n'])
    status = pod.exited(test)
    assert (status.exit_code, status.reason) == (0, "Completed")
    assert [p.name for p in volume.joinpath("tmpfs").iterdir()] == ["foo"]
    unmount = pod.container("unmount", bidirectional, privileged=True, command=["umount", "/mnt/tmpfs"])
    assert pod.exited(unmount).exit_code == 0
    assert list(volume.joinpath("tmpfs").iterdir()) == []


def _mount(*argv: str) -> None:
    subprocess.run(["mount", *argv], check=True)


@pytest.fixture
def propagations(tmp_path):
    """Three host directories bind-mounted on themselves: a shared one, a slave of it and a
    private one (as root: bind mounts of the real host)."""
    made = []
    dirs = {name: tmp_path / name for name in ("shared", "slave", "private")}
    for d in dirs.values():
        d.mkdir()
    try:
        for name in ("shared", "private"):
            _mount("--bind", str(dirs[name]), str(dirs[name]))
            made.append(dirs[name])
            _mount(f"--make-{name}", str(dirs[name]))
        _mount("--bind", str(dirs["shared"]), str(dirs["slave"]))
        made.append(dirs["slave"])
        _mount("--make-slave", str(dirs["slave"]))
        yield {name: str(d) for name, d in dirs.items()}
    finally:
        for d in reversed(made):
            subprocess.run(["umount", str(d)], check=False)


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None,
                    reason="making shared, slave and private mounts of the host needs root and mount(8)")
def test_with_the_check_propagation_needs_a_shared_or_slave_host_mount(tmp_path, propagations):
    with FakeCRIServer(mount_propagation_check=True, state_root=str(tmp_path / "root")) as server, \
            grpc.insecure_channel("unix:" + server.config.socket) as channel:
        rt, img = api_pb2_grpc.RuntimeServiceStub(channel), api_pb2_grpc.ImageServiceStub(channel)
        pod = Pod(rt, img, tmp_path, "checked")

        def create(name, where, propagation):
            return pod.container(name, [dict(container_path="/v", host_path=propagations[where],
                                             propagation=propagation)], privileged=True)
        assert create("shared-both", "shared", pb.PROPAGATION_BIDIRECTIONAL)
        assert create("shared-in", "shared", pb.PROPAGATION_HOST_TO_CONTAINER)
        assert create("slave-in", "slave", pb.PROPAGATION_HOST_TO_CONTAINER)
        assert create("private", "private", pb.PROPAGATION_PRIVATE)
        for name, where, propagation, words in (
                ("slave-both", "slave", pb.PROPAGATION_BIDIRECTIONAL, "a shared mount"),
                ("private-both", "private", pb.PROPAGATION_BIDIRECTIONAL, "a shared mount"),
                ("private-in", "private", pb.PROPAGATION_HOST_TO_CONTAINER, "a shared or slave mount")):
            with pytest.raises(grpc.RpcError) as info:
                create(name, where, propagation)
            assert info.value.code() == grpc.StatusCode.UNKNOWN
            assert info.value.details() == (
                f"CreateContainer {name!r}: failed to generate container spec: failed to generate spec: path "
                f'"{propagations[where]}" is mounted on "{propagations[where]}" but it is not {words}')


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None,
                    reason="the host's own tmpfs mount needs root and mount(8)")
def test_the_e2e_mount_propagation_spec(rt, img, tmp_path):
    """The e2e "Mount propagation should propagate mounts to the host" spec: four pods share a
    host directory with Bidirectional, HostToContainer, None and default propagation; each
    mounts a tmpfs in it, and so does the host; each sees only what propagates to it."""
    host_dir = tmp_path / "host-dir"
    host_dir.mkdir()
    names = {"master": pb.PROPAGATION_BIDIRECTIONAL, "slave": pb.PROPAGATION_HOST_TO_CONTAINER,
             "private": pb.PROPAGATION_PRIVATE, "default": None}
    pods = {}
    for name, propagation in names.items():
        pod = Pod(rt, img, tmp_path, name)
        mount = dict(container_path="/mnt/test", host_path=str(host_dir))
        if propagation is not None:
            mount["propagation"] = propagation
        pods[name] = (pod, pod.container("cntr", [mount], privileged=True,
                                         command=["sh", "-c", f"mkdir /mnt/test/{name}; sleep 3600"]))
    for pod, cid in pods.values():
        for other in names:
            assert pod.run(cid, "sh", "-c", f"test -d /mnt/test/{other}")[2] == 0
    for name, (pod, cid) in pods.items():
        assert pod.run(cid, "sh", "-c", f"mount -t tmpfs e2e-mount-propagation-{name} /mnt/test/{name}; "
                                        f"echo {name} > /mnt/test/{name}/file")[1:] == ("", 0)
    (host_dir / "host").mkdir()
    _mount("-t", "tmpfs", "e2e-mount-propagation-host", str(host_dir / "host"))
    try:
        (host_dir / "host" / "file").write_text("host\n")
        expected = {"master": {"master", "host"}, "slave": {"master", "slave", "host"}, "private": {"private"},
                    "default": {"default"}}
        for name, (pod, cid) in pods.items():
            for other in [*names, "host"]:
                out, _, code = pod.run(cid, "sh", "-c", f"cat /mnt/test/{other}/file")
                assert (code == 0 and out == f"{other}\n") is (other in expected[name]), (name, other, out)
        assert (host_dir / "master" / "file").read_text() == "master\n"
        assert not (host_dir / "slave" / "file").exists()
    finally:
        subprocess.run(["umount", str(host_dir / "host")], check=False)
    for name, (pod, cid) in pods.items():
        assert pod.run(cid, "sh", "-c", f"umount /mnt/test/{name}")[1:] == ("", 0)
    assert not (host_dir / "master" / "file").exists()
