"""What a container sees of its image: default command, user and groups, setuid programs,
memory limit and listening sockets (no gRPC)."""
from __future__ import annotations

import socket

import pytest
from helpers.core_pods import Joined

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.images import ImageStore
from fakecri.server.codec import decode
from fakecri.server.codec.decode import resources_from_pb
from fakecri.server.host.host import LocalHost
from fakecri.sim.catalog import Catalog
from fakecri.sim.image_content import ImageContent
from fakecri.sim.userland.identity import identity

PREDEFINED = "gcr.io/k8s-staging-cri-tools/test-image-predefined-group:latest"
NNP = "registry.k8s.io/e2e-test-images/nonewprivs:1.3"


@pytest.fixture
def joined(clock):
    host = LocalHost()  # the host's sockets, processes and IPC segments
    yield Joined(clock, host=host)
    host.close()


@pytest.fixture
def run(joined):
    """`run(c, *argv)`: ExecSync in container `c`."""
    return lambda c, *argv: joined.exec_sync(c.id, list(argv))


def start(runtime, pods, image: str, config: pb.ContainerConfig, sandbox: pb.PodSandboxConfig | None = None,
          name: str = "app"):
    """Pull `image` and start a container of it, its config decoded as the server decodes it;
    returns its record after the start."""
    sb = pods.sandbox(spec=decode.sandbox_spec(sandbox or pb.PodSandboxConfig()))
    runtime.images.pull(image)
    resources = resources_from_pb(config.linux.resources) if config.linux.HasField("resources") else None
    c = runtime.create_container(sb.id, name=name, image=image, command=tuple(config.command),
                                 args=tuple(config.args), log_path=f"{name}.log", resources=resources,
                                 spec=decode.container_spec(config))
    runtime.start_container(c.id)
    return runtime.get_container(c.id)


def security(**kw) -> pb.LinuxContainerConfig:
    return pb.LinuxContainerConfig(security_context=pb.LinuxContainerSecurityContext(**kw))


def test_groups_from_the_image_are_merged_unless_the_policy_is_strict(runtime, pods, sink, run):
    for policy, groups in ((pb.SupplementalGroupsPolicy.Merge, "1000 1234 50000"),
                           (pb.SupplementalGroupsPolicy.Strict, "1000 1234")):
        cfg = pb.ContainerConfig(command=["sh", "-c", "id -G; sleep infinity"], linux=security(
            run_as_user=pb.Int64Value(value=1000), supplemental_groups=[1234], supplemental_groups_policy=policy))
        c = start(runtime, pods, PREDEFINED, cfg, name=f"p{policy}")
        assert sink.lines(c.log_path) == [groups]
        assert run(c, "id", "-G").stdout.decode() == groups + "\n"
        assert run(c, "id", "-un").stdout.decode() == "default-user\n"


def test_identity_is_what_status_reports():
    content = Catalog().content_of_reference(PREDEFINED)
    who = identity(content, run_as_user=1000, run_as_group=None, run_as_username="", supplemental_groups=(1234,),
                   strict=False)
    assert (who.uid, who.gid, who.supplemental) == (1000, 1000, (1000, 1234, 50000))
    image_user = identity(content, run_as_user=None, run_as_group=None, run_as_username="", supplemental_groups=(),
                          strict=True)
    assert (image_user.uid, image_user.gid, image_user.supplemental) == (1000, 1000, (1000,))
    busybox = identity(ImageContent(), run_as_user=None, run_as_group=None, run_as_username="",
                       supplemental_groups=(), strict=False)
    assert (busybox.uid, busybox.gid, busybox.supplemental) == (0, 0, (0, 10))


def test_the_image_default_command_runs_and_a_setuid_program_follows_no_new_privs(runtime, pods, sink):
    for nnp, euid in ((True, 1000), (False, 0)):
        c = start(runtime, pods, NNP, pb.ContainerConfig(linux=security(
            no_new_privs=nnp, run_as_user=pb.Int64Value(value=1000))), name=f"nnp{nnp}")
        assert c.state.name == "EXITED" and c.exit_code == 0
        assert sink.lines(c.log_path) == [f"Effective uid: {euid}"]
    other = start(runtime, pods, "busybox", pb.ContainerConfig(command=["nnp"]), name="elsewhere")
    assert other.exit_code == 127  # busybox ships no such program


def test_allocating_beyond_the_memory_limit_is_an_oom_kill(runtime, pods, clock):
    limit = pb.LinuxContainerResources(memory_limit_in_bytes=15 * 1024 * 1024)
    cfg = pb.ContainerConfig(command=["sh", "-c", "sleep 5 && dd if=/dev/zero of=/dev/null bs=20M"],
                             linux=pb.LinuxContainerConfig(resources=limit))
    c = start(runtime, pods, "busybox", cfg, name="oom")
    assert c.state.name == "RUNNING" and c.resources.memory_limit_in_bytes == 15 * 1024 * 1024
    clock.advance(5)
    runtime.tick()
    c = runtime.get_container(c.id)
    assert (c.state.name, c.exit_code, c.reason) == ("EXITED", 137, "OOMKilled")
    roomy = pb.ContainerConfig(command=["sh", "-c", "dd if=/dev/zero of=/dev/null bs=1M count=3"],
                               linux=pb.LinuxContainerConfig(resources=limit))
    fits = start(runtime, pods, "busybox", roomy, name="fits")
    assert (fits.exit_code, fits.reason) == (0, "Completed")
    unlimited = start(runtime, pods, "busybox", pb.ContainerConfig(
        command=["sh", "-c", "dd if=/dev/zero of=/dev/null bs=20M"]), name="unlimited")
    assert unlimited.state.name == "RUNNING"  # copies from an endless source until stopped


def test_netstat_shows_the_host_sockets_only_on_the_host_network(runtime, pods, run):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        host = pb.PodSandboxConfig(linux=pb.LinuxPodSandboxConfig(security_context=pb.LinuxSandboxSecurityContext(
            namespace_options=pb.NamespaceOption(network=pb.NamespaceMode.NODE))))
        on_host = start(runtime, pods, "busybox", pb.ContainerConfig(command=["sleep", "infinity"]), host, "host")
        in_pod = start(runtime, pods, "busybox", pb.ContainerConfig(command=["sleep", "infinity"]), name="pod")
        assert f"127.0.0.1:{port} " in run(on_host, "netstat", "-ln").stdout.decode()
        assert f":{port} " not in run(in_pod, "netstat", "-ln").stdout.decode()


def _pid_sandbox(mode: int, ipc: int = pb.NamespaceMode.POD) -> pb.PodSandboxConfig:
    return pb.PodSandboxConfig(linux=pb.LinuxPodSandboxConfig(security_context=pb.LinuxSandboxSecurityContext(
        namespace_options=pb.NamespaceOption(pid=mode, ipc=ipc))))


def test_processes_follow_the_pid_namespace(runtime, pods, run, joined):
    nginx = "registry.k8s.io/e2e-test-images/nginx:1.14-2"
    own = start(runtime, pods, nginx, pb.ContainerConfig(), _pid_sandbox(pb.NamespaceMode.CONTAINER), "own")
    # its title, written over its argv
    assert run(own, "cat", "/proc/1/cmdline").stdout == b"nginx: master process nginx -g daemon off;\0"
    assert run(own, "cat", "/var/run/nginx.pid").stdout == b"1\n"
    assert run(own, "ps").stdout.decode().splitlines() == [
        "PID   USER     TIME  COMMAND", "    1 root      0:00 nginx: master process nginx -g daemon off;",
        "    2 root      0:00 ps"]

    shared = start(runtime, pods, nginx, pb.ContainerConfig(), _pid_sandbox(pb.NamespaceMode.POD), "shared")
    assert run(shared, "cat", "/proc/1/cmdline").stdout == b"/pause\0"

    host = _pid_sandbox(pb.NamespaceMode.NODE)
    web = start(runtime, pods, nginx, pb.ContainerConfig(), host, "web")
    other = start(runtime, pods, "busybox", pb.ContainerConfig(command=["sh", "-c", "sleep 1000"]), host, "other")
    nginx_pid = run(web, "cat", "/var/run/nginx.pid").stdout.decode().strip()
    seen = run(other, "pidof", "nginx").stdout.decode().split()
    assert nginx_pid in seen and len(seen) == 3  # every nginx on the node, this one among them
    assert run(other, "pidof", "nosuch").exit_code == 1
    # What ps shows comes from the simulation's view of the node, through the engine's records.
    sim = joined.sim
    assert sim.title(own) == "nginx: master process nginx -g daemon off;" and sim.title(other) == "sh -c sleep 1000"
    assert sum(sim.argv_of(own), ()) == ("nginx", "-g", "daemon off;") and own.command == ()  # the image's default
    assert sim.processes_seen_from(own.id) == [(1, sim.title(own))]
    assert sim.processes_seen_from(shared.id) == [(1, "/pause"), (2, sim.title(shared))]
    assert sorted(sim.processes_seen_from(other.id))[0] == (1, "/sbin/init")
    assert [lis.port for lis in sim.listeners(web)] == [80] and sim.listeners(other) == ()
    runtime.stop_container(web.id, 0)
    assert sim.listeners(runtime.get_container(web.id)) == ()  # no server once it stopped
    assert len(run(other, "pidof", "nginx").stdout.split()) == 2


def test_host_ipc_shows_the_host_segments(runtime, pods, run):
    try:
        with open("/proc/sysvipc/shm") as f:
            rows = f.read().splitlines()[1:]
    except OSError:
        rows = []
    host = start(runtime, pods, "busybox", pb.ContainerConfig(command=["sleep", "infinity"]),
                 _pid_sandbox(pb.NamespaceMode.POD, pb.NamespaceMode.NODE), "host")
    pod = start(runtime, pods, "busybox", pb.ContainerConfig(command=["sleep", "infinity"]), name="pod")
    on_host = run(host, "ipcs", "-m").stdout.decode()
    in_pod = run(pod, "ipcs", "-m").stdout.decode()
    assert "Shared Memory Segments" in in_pod and len(in_pod.strip().splitlines()) == 2  # no segments
    assert len(on_host.strip().splitlines()) == 2 + len(rows)
    for row in rows:
        assert f" {row.split()[1]} " in on_host


def test_image_status_reports_the_image_user():
    store = ImageStore(Catalog())
    prefix = "gcr.io/k8s-staging-cri-tools/test-image-user-"
    got = {name: (store.pull(prefix + name).uid, store.pull(prefix + name).username)
           for name in ("uid", "username", "uid-group", "username-group")}
    assert got == {"uid": (1002, ""), "username": (None, "www-data"), "uid-group": (1003, ""),
                   "username-group": (None, "www-data")}
    assert (store.pull("busybox").uid, store.pull("busybox").username) == (None, "")
