"""The network tools inside a container (wget, curl, nc, ip), pipelines and background jobs,
run by the interpreter with a scripted network (no server, no sockets)."""
from __future__ import annotations

from fakecri.sim.image_content import BUSYBOX, KNOWN
from fakecri.sim.recording import record
from fakecri.sim.shell import Context, spawn, trace
from fakecri.sim.simulation import INSIDE_COMMANDS as COMMANDS
from fakecri.sim.steps import Connect, NetResult
from fakecri.sim.userland import Userland, UserlandSpec

S = 1_000_000_000
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
AGNHOST = KNOWN["registry.k8s.io/e2e-test-images/agnhost"]


def world(content=BUSYBOX, *, ip="127.70.0.3", net_admin=False):
    """A container's userland (hostname `client`), as the clients see it."""
    return Userland(UserlandSpec(hostname="client", privileged=net_admin), ip=ip, content=content)


def run(script: str, answers=(), **kw):
    """(trace, the Connect steps asked for) of `sh -c script` in a container."""
    asked: list[Connect] = []
    replies = list(answers)
    box = world(**kw)

    def net(c: Connect) -> NetResult:
        asked.append(c)
        return replies.pop(0) if replies else NetResult(error="refused")

    done = record(spawn(["sh", "-c", script], Context(userland=lambda: box, commands=COMMANDS)), b"", net)
    return done, asked, box


def out(done, stream="stdout") -> str:
    return "".join(t for _, s, t in done.outputs if s == stream)


def test_wget_to_stdout_and_to_a_file():
    done, asked, box = run("wget -qO- http://127.70.0.2:8080/hostname", [NetResult(OK)])
    assert out(done) == "hello" and done.exit_code == 0
    assert asked[0].host == "127.70.0.2" and asked[0].port == 8080 and asked[0].source == "127.70.0.3"
    assert asked[0].data.startswith(b"GET /hostname HTTP/1.1\r\nHost: 127.70.0.2:8080\r\n")
    done, _, box = run("wget http://127.70.0.2/x/page.txt", [NetResult(OK)])
    assert box.read("/page.txt") == b"hello" and "saved" in out(done, "stderr")


def test_wget_failures_as_busybox_words_them():
    done, _, _ = run("wget -q -O- http://127.70.0.2:81/")
    assert (done.exit_code, out(done, "stderr")) == (1, "wget: can't connect to remote host (127.70.0.2): "
                                                        "Connection refused\n")
    done, _, _ = run("wget -qO- http://127.70.0.2/", [NetResult(b"HTTP/1.1 404 Not Found\r\n\r\n")])
    assert (done.exit_code, out(done, "stderr")) == (1, "wget: server returned error: HTTP/1.1 404 Not Found\n")
    done, _, _ = run("wget -T 1 -qO- http://127.70.0.2/", [NetResult(error="timeout")])
    assert out(done, "stderr") == "wget: download timed out\n"
    done, asked, _ = run("wget -qO- http://no-such-name/")
    assert out(done, "stderr") == "wget: bad address 'no-such-name'\n" and not asked


def test_names_resolve_through_etc_hosts_and_localhost_is_the_pod():
    _, asked, _ = run("wget -qO- http://client:8080/", ip="127.70.0.9")
    assert asked[0].host == "127.70.0.9"  # the pod's own line in its /etc/hosts
    _, asked, _ = run("wget -qO- http://localhost:8080/")
    assert asked[0].host == "127.70.0.3"  # the pod's own address: its loopback is its own namespace


def test_curl_where_the_image_ships_it():
    done, _, _ = run("curl -s http://127.70.0.2/")
    assert (done.exit_code, out(done, "stderr")) == (127, "sh: curl: not found\n")  # busybox has none
    done, _, _ = run("curl -s -w ' %{http_code}' http://127.70.0.2/", [NetResult(OK)], content=AGNHOST)
    assert out(done) == "hello 200"
    done, _, _ = run("curl -sS http://127.70.0.2:9/", content=AGNHOST)
    assert done.exit_code == 7 and "Failed to connect to 127.70.0.2 port 9" in out(done, "stderr")
    done, _, _ = run("curl -f http://127.70.0.2/", [NetResult(b"HTTP/1.1 500 Oops\r\n\r\n")], content=AGNHOST)
    assert (done.exit_code, out(done, "stderr")) == (22, "curl: (22) The requested URL returned error: 500\n")


def test_nc_sends_its_input_and_prints_the_answer():
    done, asked, _ = run("echo hostname | nc -u -w 1 127.70.0.2 8081", [NetResult(b"web-0")])
    assert out(done) == "web-0" and asked[0].proto == "udp" and asked[0].data == b"hostname\n"
    done, asked, _ = run("nc -z -v -w 2 127.70.0.2 8080", [NetResult()])
    assert done.exit_code == 0 and asked[0].stop_after == 0 and asked[0].timeout_s == 2.0
    done, _, _ = run("nc 127.70.0.2 1 </dev/null")
    assert done.exit_code == 1 and "Connection refused" in out(done, "stderr")


def test_ip_link_add_needs_net_admin():
    done, _, _ = run("ip link add dummy0 type dummy || true")
    assert (done.exit_code, out(done, "stderr")) == (0, "ip: RTNETLINK answers: Operation not permitted\n")
    done, _, _ = run("ip link add dummy0 type dummy", net_admin=True)
    assert (done.exit_code, out(done, "stderr")) == (0, "")
    done, _, _ = run("ip -4 addr")
    assert "inet 127.70.0.3/24" in out(done)


def test_pipelines_feed_each_stage_the_output_of_the_one_before():
    assert trace(["sh", "-c", "echo hi | cat"]).outputs == ((0, "stdout", "hi\n"),)
    assert trace(["sh", "-c", "sleep 1 | cat"]).end_ns == S
    done, _, _ = run("echo a b | grep b")
    assert out(done) == "a b\n"


def test_background_jobs_hold_an_execs_output_open():
    bg = trace(["sh", "-c", "sleep 10 & exit 1"])
    assert (bg.end_ns, bg.exit_code) == (10 * S, 1)  # the exec returns when the job's output closes
    main = trace(["sh", "-c", "sleep 10 & exit 1"], main=True)
    assert (main.end_ns, main.exit_code) == (0, 1)  # a container ends when its first process does
    assert trace(["sh", "-c", "echo x & echo y"]).outputs == ((0, "stdout", "x\n"), (0, "stdout", "y\n"))
