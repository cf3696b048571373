"""--host-root DIR: callers name only host paths under DIR. A mount's host path, a log
directory or path, a checkpoint archive or a Localhost seccomp profile elsewhere, with '..',
or by a symlink out is refused with PERMISSION_DENIED naming the field and the path; and a
container reaches nothing of the host outside DIR, even through a symlink planted inside."""
from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import tarfile
import threading

import grpc
import pytest
from helpers.cri import container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer, short_socket_path

DENIED = grpc.StatusCode.PERMISSION_DENIED
T = 30


@pytest.fixture
def confined(tmp_path):
    allowed = tmp_path / "allowed"
    outside = tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    (outside / "secret").write_text("root:x:0:0\n")
    (allowed / "data").mkdir()
    (allowed / "data" / "hello").write_text("hello from inside\n")
    (allowed / "data" / "escape").symlink_to(outside)  # planted inside, pointing out
    (allowed / "out").symlink_to(outside)
    with FakeCRIServer(seed=12, host_root=str(allowed), state_root=str(tmp_path / "root")) as server:
        ch = grpc.insecure_channel(server.endpoint)
        rt, img = api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=T)
        yield server, rt, allowed, outside
        ch.close()
        server.check()


def denied(fn, request):
    with pytest.raises(grpc.RpcError) as err:
        fn(request, timeout=T)
    assert err.value.code() == DENIED, err.value.details()
    return err.value.details()


def pods(rt):
    return [p.metadata.name for p in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=T).items]


def test_log_directories_outside_with_dotdot_or_through_a_symlink_are_refused(confined):
    _, rt, allowed, outside = confined
    for name, directory, said in (("elsewhere", str(outside), "outside"),
                                  ("climbs", f"{allowed}/../outside", "'..'"),
                                  ("linked", f"{allowed}/out/logs", "symlink"),
                                  ("relative-up", "../../logs", "'..'")):
        details = denied(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=sandbox_config(name,
                                                                                         log_directory=directory)))
        assert "log_directory" in details and directory in details and said in details
    assert pods(rt) == []
    rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("fine", log_directory=f"{allowed}/logs")),
                     timeout=T)
    # A relative one is fakecri's own (under its --root, as containerd takes it from its working directory).
    rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config("own", log_directory="logs")), timeout=T)
    assert sorted(pods(rt)) == ["fine", "own"]


def test_mounts_log_paths_and_seccomp_profiles_outside_are_refused(confined):
    _, rt, allowed, outside = confined
    cfg = sandbox_config("p", log_directory=f"{allowed}/logs")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=T).pod_sandbox_id

    def create(ccfg):
        return pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg, sandbox_config=cfg)

    ccfg = container_config("m")
    ccfg.mounts.add(container_path="/host", host_path="/etc")
    details = denied(rt.CreateContainer, create(ccfg))
    assert "mounts[0].host_path" in details and "'/etc'" in details
    ccfg = container_config("l", log_path="../../outside/app.log")
    assert "log_path" in denied(rt.CreateContainer, create(ccfg))
    ccfg = container_config("s")
    ccfg.linux.security_context.seccomp.profile_type = pb.SecurityProfile.Localhost
    ccfg.linux.security_context.seccomp.localhost_ref = str(outside / "secret")
    assert "seccomp.localhost_ref" in denied(rt.CreateContainer, create(ccfg))
    assert rt.ListContainers(pb.ListContainersRequest(), timeout=T).containers == []
    bad = sandbox_config("seccomp-pod")
    bad.linux.security_context.seccomp.profile_type = pb.SecurityProfile.Localhost
    bad.linux.security_context.seccomp.localhost_ref = "/etc/passwd"
    assert "seccomp.localhost_ref" in denied(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=bad))


def test_a_container_reads_inside_but_not_through_a_symlink_out(confined):
    """The attack of issue 22: a root-only file read through a host-path mount and ExecSync."""
    _, rt, allowed, _ = confined
    cfg = sandbox_config("reader")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=T).pod_sandbox_id
    ccfg = container_config("app", command=["sleep", "infinity"])
    ccfg.mounts.add(container_path="/data", host_path=str(allowed / "data"))
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg, sandbox_config=cfg),
                             timeout=T).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=T)

    def run(*cmd):
        return rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=list(cmd)), timeout=T)

    assert run("cat", "/data/hello").stdout == b"hello from inside\n"
    escaped = run("cat", "/data/escape/secret")
    assert escaped.exit_code != 0 and b"root:" not in escaped.stdout
    # The link's absolute target is resolved inside the container, as the kernel does there,
    # where that host directory does not exist.
    assert b"No such file or directory" in escaped.stderr
    wrote = run("sh", "-c", "echo owned > /data/escape/planted")
    assert wrote.exit_code != 0
    assert not (allowed.parent / "outside" / "planted").exists()


def test_checkpoint_archives_stay_inside_and_an_archive_cannot_smuggle_a_mount_out(confined):
    server, rt, allowed, outside = confined
    cfg = sandbox_config("cp")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=T).pod_sandbox_id
    ccfg = container_config("app", command=["sleep", "infinity"])
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg, sandbox_config=cfg),
                             timeout=T).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=T)
    assert "checkpoint location" in denied(rt.CheckpointContainer, pb.CheckpointContainerRequest(
        container_id=cid, location=str(outside / "c.tar")))
    assert not (outside / "c.tar").exists()
    denied(rt.CheckpointPod, pb.CheckpointPodRequest(pod_sandbox_id=sid, output_path=f"{allowed}/../outside/p.tar"))
    archive = allowed / "pod.tar"
    rt.CheckpointPod(pb.CheckpointPodRequest(pod_sandbox_id=sid, output_path=str(archive)), timeout=T)
    assert "checkpoint_path" in denied(rt.RestorePod, pb.RestorePodRequest(checkpoint_path="/etc/passwd"))

    # The same archive, edited to mount /etc into the restored container.
    with tarfile.open(archive) as tar:
        member = tar.getmembers()[0]
        doc = json.loads(tar.extractfile(member).read())
    doc["pod"]["containers"][0]["spec"]["mounts"] = [{"container_path": "/host", "host_path": "/etc"}]
    data = json.dumps(doc).encode()
    smuggler = allowed / "smuggler.tar"
    with tarfile.open(smuggler, "w") as tar:
        info = tarfile.TarInfo(member.name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    before = pods(rt)
    details = denied(rt.RestorePod, pb.RestorePodRequest(
        checkpoint_path=str(smuggler), config=pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(
            name="restored", namespace="default", uid="r-1"))))
    assert "mounts[0].host_path" in details and "'/etc'" in details
    assert pods(rt) == before  # nothing was made, not even for a moment
    restored = rt.RestorePod(pb.RestorePodRequest(checkpoint_path=str(archive), config=pb.PodSandboxConfig(
        metadata=pb.PodSandboxMetadata(name="restored", namespace="default", uid="r-2"))), timeout=T)
    assert restored.pod_sandbox_id


def test_the_host_outside_is_not_seen_from_a_host_network_pod(confined):
    _, rt, _, _ = confined
    cfg = sandbox_config("hostnet")
    cfg.linux.security_context.namespace_options.network = pb.NODE
    cfg.linux.security_context.namespace_options.pid = pb.NODE
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=T).pod_sandbox_id
    cid = rt.CreateContainer(pb.CreateContainerRequest(
        pod_sandbox_id=sid, config=container_config("app", command=["sleep", "infinity"]), sandbox_config=cfg),
        timeout=T).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=T)
    listening = rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=["cat", "/proc/net/tcp"]), timeout=T)
    assert listening.stdout.count(b"\n") <= 1  # no socket of the host's listed


def test_a_host_root_that_is_not_a_directory_is_one_line_naming_the_option(tmp_path):
    sock = short_socket_path()
    done = subprocess.run([sys.executable, "-m", "fakecri.cli", "serve", "--socket", sock, "--host-root",
                           str(tmp_path / "missing"), "--root", str(tmp_path / "root")],
                          capture_output=True, text=True, timeout=60)
    if os.path.isdir(os.path.dirname(sock)):
        os.rmdir(os.path.dirname(sock))
    assert done.returncode == 2 and "--host-root" in done.stderr and "Traceback" not in done.stderr


def _served_on(address: str) -> tuple[socket.socket, int]:
    """A host service: a listener on `address` that answers one HTTP request."""
    listener = socket.socket()
    listener.bind((address, 0))
    listener.listen(4)

    def serve():
        with contextlib.suppress(OSError):
            conn, _ = listener.accept()
            with conn:
                conn.recv(4096)
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 11\r\n\r\nhost secret")

    threading.Thread(target=serve, daemon=True).start()
    return listener, listener.getsockname()[1]


@pytest.mark.parametrize("confine", [False, True])
def test_a_confined_nodes_pods_reach_each_other_and_no_host_service(tmp_path, confine):
    """Programs in containers dial for real, loopback only. With --host-root a pod reaches the
    pod network (its CIDR) and nothing else the host serves on loopback."""
    (tmp_path / "allowed").mkdir()
    settings = {"host_root": str(tmp_path / "allowed")} if confine else {}
    host, port = _served_on("127.0.0.2")
    with host, FakeCRIServer(seed=5, pod_cidr="127.77.0.0/16", state_root=str(tmp_path / "root"),
                             **settings) as server:
        ch = grpc.insecure_channel(server.endpoint)
        rt, img = api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
        image = "registry.k8s.io/e2e-test-images/agnhost:2.63.0"
        img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=image)), timeout=T)
        ids = {}
        for name, args in (("server", ["netexec", "--http-port=8080"]), ("client", ["pause"])):
            cfg = sandbox_config(name)
            sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=T).pod_sandbox_id
            ccfg = container_config(name, image=image, args=args)
            cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg, sandbox_config=cfg),
                                     timeout=T).container_id
            rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=T)
            ip = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid), timeout=T).status.network.ip
            ids[name] = (cid, ip)

        def fetch(url):
            r = rt.ExecSync(pb.ExecSyncRequest(container_id=ids["client"][0], cmd=["curl", "-s", "-m", "3", url],
                                               timeout=10), timeout=T)
            return r.exit_code, r.stdout

        assert fetch(f"http://{ids['server'][1]}:8080/hostname") == (0, b"server")
        code, out = fetch(f"http://127.0.0.2:{port}/")
        if confine:
            assert code != 0 and out == b""
        else:
            assert (code, out) == (0, b"host secret")
