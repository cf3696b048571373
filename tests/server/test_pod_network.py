"""The pod network on loopback pod IPs, over a real server and real sockets: the listeners of
serving programs (HTTP, UDP, gRPC health), commands inside containers reaching them, and
ExecSync's timeouts as the kubelet's exec probes see them. The server runs on a fake clock,
so simulated time (liveness's 10 s, a sleeping exec) passes at once when asked."""
from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from helpers.cri import code_of, container_config, sandbox_config

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.control_client import ControlClient
from fakecri.server.process.app import FakeCRIServer

AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.63.0"
# One /24 per xdist worker, so two workers' pods never share an address.
WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
CIDR = f"127.71.{WORKER}.0/24"


@pytest.fixture(scope="module")
def server():
    with FakeCRIServer(pod_cidr=CIDR, fake_clock=True, quiet=True) as srv:
        yield srv


@pytest.fixture(scope="module")
def rt(server):
    with grpc.insecure_channel("unix:" + server.config.socket) as ch:
        img = api_pb2_grpc.ImageServiceStub(ch)
        for image in (AGNHOST, "busybox"):
            img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=image)))
        yield api_pb2_grpc.RuntimeServiceStub(ch)


@pytest.fixture(scope="module")
def clock(server):
    with ControlClient(server.endpoint) as control:
        yield control.advance_clock


def pod(rt, name: str, image: str, *, command=None, args=None) -> tuple[str, str]:
    """(container id, pod IP) of a started pod of one container (its log under the server's root)."""
    cfg = sandbox_config(name, log_directory=f"pods/{name}-{time.monotonic_ns()}")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    ccfg = container_config(image=image, command=command, args=args)
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=ccfg,
                                                       sandbox_config=cfg)).container_id
    rt.StartContainer(pb.StartContainerRequest(container_id=cid))
    ip = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid)).status.network.ip
    return cid, ip


def get(url: str) -> tuple[int, bytes]:
    deadline = time.monotonic() + 5
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()
        except urllib.error.URLError:  # the listener is being set up on the loop: a moment
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def refused(ip: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(2)
        return s.connect_ex((ip, port)) != 0


def exec_sync(rt, cid: str, *argv: str, timeout: int = 10) -> pb.ExecSyncResponse:
    return rt.ExecSync(pb.ExecSyncRequest(container_id=cid, cmd=list(argv), timeout=timeout))


def test_netexec_serves_http_and_udp_on_its_pod_ip_until_it_stops(rt):
    cid, ip = pod(rt, "netexec-a", AGNHOST, args=["netexec", "--http-port=8080", "--udp-port=8081"])
    assert get(f"http://{ip}:8080/hostname") == (200, b"netexec-a")
    assert get(f"http://{ip}:8080/echo?msg=hi&code=202") == (202, b"hi")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(5)
        s.sendto(b"echo Hello", (ip, 8081))
        assert s.recvfrom(100)[0] == b"hello"
    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0))
    assert refused(ip, 8080)


def test_a_busybox_wget_and_nc_reach_another_pod(rt):
    _, server_ip = pod(rt, "netexec-b", AGNHOST, args=["netexec"])
    client, client_ip = pod(rt, "client-b", "busybox", command=["sleep", "3600"])
    get(f"http://{server_ip}:8080/healthz")  # listening
    r = exec_sync(rt, client, "wget", "-qO-", f"http://{server_ip}:8080/clientip")
    assert r.exit_code == 0 and r.stdout.decode().startswith(client_ip + ":")  # the peer sees the pod's own IP
    r = exec_sync(rt, client, "sh", "-c", f"echo hostname | nc -u -w 2 {server_ip} 8081")
    assert r.stdout == b"netexec-b"
    r = exec_sync(rt, client, "wget", "-qO-", f"http://{server_ip}:9999/")
    assert r.exit_code == 1 and b"Connection refused" in r.stderr


def test_netexec_dial_and_shell(rt):
    _, a = pod(rt, "netexec-c", AGNHOST, args=["netexec"])
    _, b = pod(rt, "netexec-d", AGNHOST, args=["netexec"])
    get(f"http://{b}:8080/healthz")
    status, body = get(f"http://{a}:8080/dial?request=hostname&protocol=http&host={b}&port=8080&tries=2")
    assert status == 200 and json.loads(body) == {"responses": ["netexec-d", "netexec-d"]}
    status, body = get(f"http://{a}:8080/dial?request=hostname&protocol=udp&host={b}&port=8081")
    assert json.loads(body) == {"responses": ["netexec-d"]}
    status, body = get(f"http://{a}:8080/shell?cmd=hostname")
    assert json.loads(body) == {"output": "netexec-c\n"}


def test_netexec_exit_makes_the_container_exit(rt):
    cid, ip = pod(rt, "netexec-e", AGNHOST, args=["netexec"])
    get(f"http://{ip}:8080/healthz")
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        urllib.request.urlopen(f"http://{ip}:8080/exit?code=3", timeout=5).read()
    deadline = time.monotonic() + 5
    while (st := rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status).state != pb.CONTAINER_EXITED:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert (st.exit_code, st.reason) == (3, "Error")
    assert refused(ip, 8080)


def test_liveness_fails_ten_seconds_after_the_start(rt, clock):
    _, ip = pod(rt, "liveness-a", AGNHOST, args=["liveness"])
    assert get(f"http://{ip}:8080/healthz") == (200, b"ok")
    clock(11)
    status, body = get(f"http://{ip}:8080/healthz")
    assert status == 500 and body.startswith(b"error: 11")


def test_grpc_health_checking_is_a_real_grpc_server(rt):
    _, ip = pod(rt, "grpc-a", AGNHOST, args=["grpc-health-checking", "--port=5000", "--service=svc"])
    deadline = time.monotonic() + 5
    with grpc.insecure_channel(f"{ip}:5000") as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        while True:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service="svc"), timeout=2)
                break
            except grpc.RpcError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as info:
            stub.Check(health_pb2.HealthCheckRequest(service="other"), timeout=2)
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
        get(f"http://{ip}:8080/make-not-serving")
        assert stub.Check(health_pb2.HealthCheckRequest(service="svc"), timeout=2).status == \
            health_pb2.HealthCheckResponse.NOT_SERVING


def test_an_exec_that_outlasts_its_timeout_is_deadline_exceeded(rt):
    cid, _ = pod(rt, "busy-a", "busybox", command=["sleep", "3600"])
    code, details = code_of(lambda: exec_sync(rt, cid, "sh", "-c", "sleep 10", timeout=1))
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED and "timeout 1s exceeded" in details
    code, _ = code_of(lambda: exec_sync(rt, cid, "sh", "-c", "sleep 10 & exit 1", timeout=1))
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED  # its job holds the output open past the timeout
    assert exec_sync(rt, cid, "sh", "-c", "sleep 10 & exit 1", timeout=20).exit_code == 1


def test_a_containers_own_command_reaches_the_network(rt, server, clock):
    """A busybox container whose command fetches from another pod: taken on live where it
    reaches the network, it logs what it got and exits as its script says."""
    _, ip = pod(rt, "netexec-f", AGNHOST, args=["netexec"])
    get(f"http://{ip}:8080/healthz")
    script = f"wget -qO- http://{ip}:8080/hostname; echo; sleep 5; wget -qO- http://{ip}:8080/echo?msg=late; exit 4"
    cid, _ = pod(rt, "fetcher", "busybox", command=["sh", "-c", script])

    def state():
        return rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status

    deadline = time.monotonic() + 5
    while not server.call(lambda: server.node.sim.live.get(cid) is not None and
                          server.node.sim.live.get(cid).due_ns is not None):
        assert time.monotonic() < deadline  # asleep after its first fetch
        time.sleep(0.05)
    assert state().state == pb.CONTAINER_RUNNING
    clock(5)
    while state().state != pb.CONTAINER_EXITED:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    path = os.path.join(server.call(lambda: server.node.log_files.base), state().log_path)
    with open(path, encoding="utf-8") as f:
        log = f.read()
    assert [line.split(" ", 3)[3] for line in log.splitlines()] == ["netexec-f", "late"]
    assert state().exit_code == 4


def test_https_servers_present_fakecris_certificate(rt):
    """netexec with a TLS certificate serves HTTPS (with fakecri's own self-signed certificate:
    the kubelet's https probes and hooks do not verify); curl -k in another pod reaches it."""
    import ssl

    _, ip = pod(rt, "netexec-tls", AGNHOST, args=["netexec", "--tls-cert-file=/localhost.crt",
                                                 "--tls-private-key-file=/localhost.key"])
    client, _ = pod(rt, "curler", AGNHOST)
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    deadline = time.monotonic() + 5
    while True:
        try:
            with urllib.request.urlopen(f"https://{ip}:8080/hostname", timeout=5, context=ctx) as resp:
                assert resp.read() == b"netexec-tls"
                break
        except urllib.error.URLError:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    r = exec_sync(rt, client, "curl", "-sk", f"https://{ip}:8080/echo?msg=secure")
    assert (r.exit_code, r.stdout) == (0, b"secure")
    r = exec_sync(rt, client, "curl", "-sS", f"https://{ip}:8080/")
    assert r.exit_code == 60 and b"self-signed certificate" in r.stderr


def test_a_sigterm_trap_runs_inside_when_the_stop_begins(rt, server, short_traces):
    """The e2e readiness-while-terminating pod: its trap removes /tmp/ready as the stop begins
    (so an exec probe fails from then on), and the stop takes the handler's 30 s (at once on
    this fake clock) and exits 0."""
    script = ("_term() {\n\trm -f /tmp/ready\n\tsleep 30\n\texit 0\n}\ntrap _term SIGTERM\n\ntouch /tmp/ready\n\n"
              "while true; do\n  echo hello\n  sleep 10\ndone\n")
    cid, _ = pod(rt, "trapper", AGNHOST, command=["/bin/bash"], args=["-c", script])
    assert exec_sync(rt, cid, "cat", "/tmp/ready").exit_code == 0
    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=60))
    assert not server.call(lambda: server.node.sim.userland_of(cid).exists("/tmp/ready"))
    st = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert (st.state, st.exit_code, st.reason) == (pb.CONTAINER_EXITED, 0, "Completed")
    assert st.finished_at - st.started_at >= 30 * 10**9
