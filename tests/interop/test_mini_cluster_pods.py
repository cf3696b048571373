"""Kubernetes' own test images on fakecri, through a real control plane and a real kubelet
(the tool kit's mini cluster, started here and stopped at the end): agnhost's subcommands,
busybox, nginx and httpd pods, what they print and how they exit, the kubelet's probes and
lifecycle hooks against their servers, and the pod network seen from the host and from
other pods. Slow (about three minutes); `--run-slow`."""
from __future__ import annotations

import json
import socket
import time
import urllib.request

import pytest

from interop.mini_cluster import MiniCluster, running

pytestmark = pytest.mark.slow

AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.63.0"
BUSYBOX = "registry.k8s.io/e2e-test-images/busybox:1.37.0-1"


@pytest.fixture(scope="module")
def mc():
    with running() as cluster:
        yield cluster


def pod(name: str, *containers: str, init: str = "", never: bool = True, extra: str = "") -> str:
    """A pod manifest; `containers` and `init` are YAML list items, indented by four."""
    lines = ["apiVersion: v1", "kind: Pod", f"metadata: {{name: {name}}}", "spec:"]
    if never:
        lines.append("  restartPolicy: Never")
    if extra:
        lines.append(extra)
    if init:
        lines += ["  initContainers:", init]
    lines += ["  containers:", *containers]
    return "\n".join(lines) + "\n"


def get(url: str, timeout: float = 5) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def restarts(mc: MiniCluster, name: str) -> int:
    return int(mc.status(name).get("restartCount", 0))


# ---------------------------------------------------------------- what the programs print and how they end


def test_agnhost_entrypoints_commands_and_outputs(mc):
    mc.apply(pod("ep-default", f"  - {{name: c, image: {AGNHOST}}}", never=False))
    mc.apply(pod("ep-args", f"  - {{name: c, image: {AGNHOST}, args: [entrypoint-tester, override, arguments]}}"))
    mc.apply(pod("ep-cmd", f"  - {{name: c, image: {AGNHOST}, command: [/agnhost-2], args: [entrypoint-tester]}}"))
    mc.apply(pod("etc-hosts", f"  - {{name: c, image: {AGNHOST}, args: [etc-hosts]}}"))
    mc.apply(pod("unknown-sub", f"  - {{name: c, image: {AGNHOST}, args: [no-such-subcommand]}}"))
    mc.wait_ready("ep-default")
    assert mc.logs("ep-default") == "Paused\nSignals registered\n"
    for name, line in (("ep-args", "[/agnhost entrypoint-tester override arguments]\n"),
                       ("ep-cmd", "[/agnhost-2 entrypoint-tester]\n")):
        mc.wait_phase(name, "Succeeded")
        assert mc.logs(name) == line
    hosts = mc.wait_phase("etc-hosts", "Succeeded")
    assert "# Kubernetes-managed hosts file." in mc.logs("etc-hosts")
    assert f"{hosts['status']['podIP']}\tetc-hosts" in mc.logs("etc-hosts")
    mc.wait_phase("unknown-sub", "Failed")
    term = mc.status("unknown-sub")["state"]["terminated"]
    assert term["exitCode"] == 1 and mc.logs("unknown-sub").startswith('Error: unknown command "no-such-subcommand"')
    # containerStatuses[].image reads the image's tag, as containerd reports it (the kubelet creates by id)
    assert mc.status("ep-default")["image"] == AGNHOST
    mc.kubectl("delete", "pod", "ep-default", "--wait=false")


def test_privileges_users_and_termination_messages(mc):
    nnp = "registry.k8s.io/e2e-test-images/nonewprivs:1.4"
    mc.apply(pod("nnp-false", f"  - {{name: c, image: {nnp}, securityContext: {{allowPrivilegeEscalation: false, "
                              "runAsUser: 1000}}"))
    mc.apply(pod("nnp-nil", f"  - {{name: c, image: {nnp}, securityContext: {{runAsUser: 1000}}}}"))
    for name, privileged in (("priv-false", "false"), ("priv-true", "true")):
        mc.apply(pod(name, f"  - {{name: c, image: {BUSYBOX}, command: [sh, -c, 'ip link add dummy0 type dummy || "
                           f"true'], securityContext: {{privileged: {privileged}}}}}"))
    mc.apply(pod("nonroot-image", "  - {name: c, image: registry.k8s.io/e2e-test-images/nonroot:1.5, "
                                  "command: [id, -u], securityContext: {runAsNonRoot: true}}"))
    mc.apply(pod("root-refused", f"  - {{name: c, image: {BUSYBOX}, command: [id, -u], "
                                 "securityContext: {runAsNonRoot: true}}"))
    mc.apply(pod("fallback", f"  - {{name: c, image: {BUSYBOX}, command: [/bin/sh, -c], args: ['/bin/echo -n DONE; "
                             "/bin/false'], terminationMessagePolicy: FallbackToLogsOnError}"))
    expected = {"nnp-false": "Effective uid: 1000\n", "nnp-nil": "Effective uid: 0\n", "nonroot-image": "1234\n",
                "priv-true": ""}
    for name, out in expected.items():
        mc.wait_phase(name, "Succeeded")
        assert mc.logs(name) == out, name
    mc.wait_phase("priv-false", "Succeeded")
    assert "Operation not permitted" in mc.logs("priv-false")
    mc.wait("root-refused", lambda p: any(
        s.get("state", {}).get("waiting", {}).get("reason") == "CreateContainerConfigError"
        for s in p.get("status", {}).get("containerStatuses", [])), "refused to run as root")  # busybox's user is root
    mc.wait_phase("fallback", "Failed")
    assert mc.status("fallback")["state"]["terminated"]["message"] == "DONE"


# ---------------------------------------------------------------- the pod network


def test_netexec_answers_the_host_and_other_pods(mc):
    for name in ("netexec-a", "netexec-b"):
        mc.apply(pod(name, f"  - name: c\n    image: {AGNHOST}\n    args: [netexec, --http-port=8080, "
                           "--udp-port=8081]\n"
                           "    readinessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 1}",
                     never=False))
    mc.apply(pod("client", f"  - {{name: c, image: {BUSYBOX}, command: [sleep, '3600']}}", never=False))
    a = mc.wait_ready("netexec-a")["status"]["podIP"]
    b = mc.wait_ready("netexec-b")["status"]["podIP"]
    client_ip = mc.wait_ready("client")["status"]["podIP"]
    assert get(f"http://{a}:8080/hostname") == (200, b"netexec-a")
    assert get(f"http://{a}:8080/echo?msg=hi&code=201") == (201, b"hi")
    status, body = get(f"http://{a}:8080/dial?request=hostname&protocol=http&host={b}&port=8080&tries=2")
    assert (status, json.loads(body)) == (200, {"responses": ["netexec-b", "netexec-b"]})
    status, body = get(f"http://{a}:8080/dial?request=hostname&protocol=udp&host={b}&port=8081")
    assert json.loads(body) == {"responses": ["netexec-b"]}
    assert json.loads(get(f"http://{a}:8080/shell?cmd=hostname")[1]) == {"output": "netexec-a\n"}
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(5)
        s.sendto(b"hostname", (b, 8081))
        assert s.recvfrom(100)[0] == b"netexec-b"
    r = mc.exec("client", "wget", "-qO-", f"http://{a}:8080/clientip")
    assert r.returncode == 0 and r.stdout.startswith(client_ip + ":"), r
    r = mc.exec("client", "sh", "-c", f"echo hostname | nc -u -w 2 {b} 8081")
    assert r.stdout == "netexec-b"
    r = mc.exec("client", "wget", "-qO-", f"http://{a}:9/")
    assert r.returncode != 0 and "Connection refused" in r.stderr
    assert "GET /dial?host=" in mc.logs("netexec-a")  # it logs what it handled


def test_web_server_images_and_small_servers(mc):
    mc.apply(pod("nginx", "  - {name: c, image: registry.k8s.io/e2e-test-images/nginx:1.15-4, "
                          "readinessProbe: {httpGet: {path: /, port: 80}}}", never=False))
    mc.apply(pod("httpd", "  - {name: c, image: registry.k8s.io/e2e-test-images/httpd:2.4.38-4, "
                          "readinessProbe: {tcpSocket: {port: 80}}}", never=False))
    mc.apply(pod("servers", f"  - {{name: sh, image: {AGNHOST}, args: [serve-hostname, --port=9376]}}\n"
                            f"  - {{name: porter, image: {AGNHOST}, args: [porter], env: [{{name: SERVE_PORT_9001, "
                            "value: foo}]}\n"
                            f"  - {{name: web, image: {AGNHOST}, args: [test-webserver, --port=81]}}\n"
                            f"  - {{name: git, image: {AGNHOST}, args: [fake-gitserver]}}", never=False))
    status, body = get(f"http://{mc.wait_ready('nginx')['status']['podIP']}:80/")
    assert status == 200 and b"Welcome to nginx!" in body
    status, body = get(f"http://{mc.wait_ready('httpd')['status']['podIP']}:80/")
    assert status == 200 and b"It works!" in body
    sip = mc.wait_ready("servers")["status"]["podIP"]
    deadline = time.monotonic() + 10
    while get(f"http://{sip}:9376/")[1] != b"servers":
        assert time.monotonic() < deadline
        time.sleep(0.5)
    assert get(f"http://{sip}:9001/") == (200, b"foo")
    assert get(f"http://{sip}:81/etc/hostname") == (200, b"servers\n")
    assert get(f"http://{sip}:8000/") == (200, b"I am a fake git server")


# ---------------------------------------------------------------- probes


def test_probes_restart_and_gate_readiness(mc):
    mc.apply(pod("liveness-http", f"  - name: c\n    image: {AGNHOST}\n    args: [liveness]\n"
                                  "    livenessProbe: {httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 11, "
                                  "periodSeconds: 1, failureThreshold: 1}", never=False))
    mc.apply(pod("liveness-redirect", f"  - name: c\n    image: {AGNHOST}\n    args: [liveness]\n"
                                      "    livenessProbe: {httpGet: {path: '/redirect?loc=%2Fhealthz', port: 8080}, "
                                      "initialDelaySeconds: 11, periodSeconds: 1, failureThreshold: 1}", never=False))
    mc.apply(pod("exec-timeout", f"  - name: c\n    image: {BUSYBOX}\n    command: [/bin/sh, -c, sleep 600]\n"
                                 "    livenessProbe: {exec: {command: [/bin/sh, -c, sleep 10]}, "
                                 "initialDelaySeconds: 2, timeoutSeconds: 1, failureThreshold: 1}", never=False))
    mc.apply(pod("grpc", f"  - name: c\n    image: {AGNHOST}\n    command: [/agnhost, grpc-health-checking]\n"
                         "    livenessProbe: {grpc: {port: 5000}, periodSeconds: 1, failureThreshold: 1}\n"
                         "    readinessProbe: {grpc: {port: 5000}, periodSeconds: 1}", never=False))
    mc.apply(pod("not-ready", f"  - name: c\n    image: {AGNHOST}\n    args: [netexec, --udp-port=-1]\n"
                              "    readinessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 1}",
                 never=False))
    for name in ("liveness-http", "liveness-redirect", "exec-timeout"):
        mc.wait(name, lambda p: restarts_of(p) >= 1, "restarted by its liveness probe", timeout=120)
    mc.wait_ready("grpc")
    time.sleep(3)
    assert restarts(mc, "grpc") == 0 and mc.status("grpc")["ready"]
    # netexec with --udp-port=-1 never starts its UDP server, so its /healthz says 412 for good
    assert not mc.status("not-ready")["ready"] and mc.pod("not-ready")["status"]["phase"] == "Running"


def restarts_of(p: dict) -> int:
    return sum(int(s.get("restartCount", 0)) for s in p.get("status", {}).get("containerStatuses", []))


# ---------------------------------------------------------------- lifecycle hooks


def test_lifecycle_hooks_reach_the_handler_pod(mc):
    mc.apply(pod("hook-handler", f"  - {{name: c, image: {AGNHOST}, args: [netexec]}}", never=False))
    target = mc.wait_ready("hook-handler")["status"]["podIP"]

    def dial(msg: str) -> str:
        return f"/dial?host={target}&port=8080&request=echo%3Fmsg%3D{msg}"

    sidecar = (f"  - name: redirect\n    image: {AGNHOST}\n    args: [netexec, --udp-port, '-1']\n"
               "    restartPolicy: Always\n    startupProbe: {httpGet: {path: '/echo?msg=startup', port: 8080}}")
    mc.apply(pod("http-hooks", "  - name: c\n    image: registry.k8s.io/pause:3.10.2\n    lifecycle:\n"
                               f"      postStart: {{httpGet: {{path: '{dial('poststart')}', port: 8080}}}}\n"
                               f"      preStop: {{httpGet: {{path: '{dial('prestop')}', port: 8080}}}}",
                 init=sidecar, never=False))
    mc.apply(pod("exec-hooks", f"  - name: c\n    image: {AGNHOST}\n    lifecycle:\n"
                               f"      postStart: {{exec: {{command: [sh, -c, 'curl http://{target}:8080/echo?msg="
                               "poststart-exec']}}\n"
                               f"      preStop: {{exec: {{command: [sh, -c, 'curl http://{target}:8080/echo?msg="
                               "prestop-exec']}}", never=False))
    mc.wait_ready("http-hooks")
    mc.wait_ready("exec-hooks")
    log = mc.logs("hook-handler")
    assert "GET /echo?msg=poststart&code=" in log and "GET /echo?msg=poststart-exec&code=" in log
    mc.kubectl("delete", "pod", "http-hooks", "exec-hooks", "--timeout=90s", timeout=120)
    log = mc.logs("hook-handler")
    assert "GET /echo?msg=prestop&code=" in log and "GET /echo?msg=prestop-exec&code=" in log


def test_port_forward_reaches_the_programs_listener(mc):
    import re
    import subprocess

    mc.apply(pod("pf", f"  - {{name: c, image: {AGNHOST}, args: [netexec]}}", never=False))
    mc.wait_ready("pf")
    proc = subprocess.Popen([mc.kubectl_bin, "--kubeconfig", str(mc.kubeconfig), "port-forward", "pod/pf", ":8080"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = ""
        deadline = time.monotonic() + 30
        while "Forwarding from 127.0.0.1:" not in line:
            assert time.monotonic() < deadline and proc.poll() is None, line
            line = proc.stdout.readline()
        port = int(re.search(r"127\.0\.0\.1:(\d+)", line).group(1))
        assert get(f"http://127.0.0.1:{port}/hostname") == (200, b"pf")
        assert get(f"http://127.0.0.1:{port}/echo?msg=through") == (200, b"through")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
