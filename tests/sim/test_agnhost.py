"""agnhost as the simulation runs it (no server): its command line as cobra reads it, what
each subcommand prints and how it ends, which sockets the servers open, and how they
answer (the handlers driven here with a scripted network)."""
from __future__ import annotations

import json

import pytest

from fakecri.sim.behaviour import build_plan
from fakecri.sim.image_content import KNOWN
from fakecri.sim.programs import server_for
from fakecri.sim.programs.agnhost import Invocation, Refused, invocation
from fakecri.sim.programs.base import DATAGRAM, GRPC_HEALTH, HTTP, NOT_SERVING, SERVING, UNKNOWN_SERVICE, Here, Listen
from fakecri.sim.programs.http import HttpRequest
from fakecri.sim.shell import Context, spawn
from fakecri.sim.steps import Connect, NetResult, Sleep, Write

S = 1_000_000_000
AGNHOST = KNOWN["registry.k8s.io/e2e-test-images/agnhost"]


def plan(*argv: str):
    return build_plan(list(argv), [], {})


def here(running_s: float = 1.0, shell=None) -> Here:
    return Here("c" * 64, int(running_s * S) + 5 * S, 5 * S, "web-0", "127.70.0.2",
                shell=shell or (lambda argv: spawn(argv, Context())), userland=lambda: None)


def drive(handler, net=None):
    """Run a handler to its answer: sleeps pass, network steps go to `net` (or fail)."""
    reply, steps = None, []
    try:
        step = handler.send(None)
        while True:
            steps.append(step)
            reply = (net or (lambda c: NetResult(error="refused")))(step) if isinstance(step, Connect) else None
            step = handler.send(reply)
    except StopIteration as done:
        return done.value, steps


def get(server, target: str, port: int = 8080, **kw):
    answer, _ = drive(server.http(port, HttpRequest("GET", target, client="127.70.0.9:4242"), here(**kw)))
    return answer


# ---------------------------------------------------------------- the command line


def test_unknown_subcommand_fails_as_cobra_does():
    got = invocation(["/agnhost", "netexce"])
    assert isinstance(got, Refused) and got.exit_code == 1
    assert got.message == 'Error: unknown command "netexce" for "app"\n\nDid you mean this?\n\tnetexec\n\n'
    p = plan("/agnhost", "no-such-thing")
    assert (p.end_ns, p.exit_code) == (0, 1)
    assert p.outputs == ((0, "stderr", 'Error: unknown command "no-such-thing" for "app"\n'),)


@pytest.mark.parametrize("argv,message", [
    (["netexec", "--bogus"], "Error: unknown flag: --bogus\n"),
    (["netexec", "--http-port=abc"], 'Error: invalid argument "abc" for "--http-port" flag: strconv.ParseInt: '
                                     'parsing "abc": invalid syntax\n'),
    (["pause", "extra"], "Error: accepts at most 0 arg(s), received 1\n"),
    (["connect"], "Error: accepts 1 arg(s), received 0\n"),
    (["netexec", "--http-port"], "Error: flag needs an argument: --http-port\n"),
])
def test_bad_command_lines(argv, message):
    assert invocation(["/agnhost", *argv]) == Refused(message)


def test_flags_as_pflag_reads_them():
    inv = invocation(["/agnhost", "netexec", "--http_port", "9000", "--udp-port=-1", "-v=4", "--sctp-port=7"])
    assert isinstance(inv, Invocation)
    assert (inv.number("http-port"), inv.number("udp-port"), inv.number("sctp-port")) == (9000, -1, 7)
    assert invocation(["/agnhost", "serve-hostname", "--tcp", "--http=false"]).flags["http"] is False


def test_no_subcommand_prints_help_and_exits_0():
    p = plan("/agnhost")
    assert (p.end_ns, p.exit_code) == (0, 0) and "Available Commands:" in p.outputs[0][2]


# ---------------------------------------------------------------- what the subcommands do as processes


def test_pause_prints_and_runs_until_sigterm_then_exits_2():
    p = plan("/agnhost", "pause")
    assert p.outputs == ((0, "stdout", "Paused\nSignals registered\n"),) and p.end_ns is None
    assert p.stop_outcome(30 * S) == (0, 2, "Error")


@pytest.mark.parametrize("argv,line", [
    (["/agnhost", "entrypoint-tester", "override", "arguments"], "[/agnhost entrypoint-tester override arguments]\n"),
    (["/agnhost-2", "entrypoint-tester"], "[/agnhost-2 entrypoint-tester]\n"),
])
def test_entrypoint_tester_prints_its_argv(argv, line):
    p = plan(*argv)
    assert p.outputs == ((0, "stdout", line),) and (p.end_ns, p.exit_code) == (0, 0)


def test_the_image_default_is_agnhost_pause():
    assert AGNHOST.argv((), ()) == (("/agnhost",), ("pause",))
    assert AGNHOST.argv((), ("netexec",)) == (("/agnhost",), ("netexec",))
    assert AGNHOST.argv(("/agnhost-2",), ("entrypoint-tester",)) == (("/agnhost-2",), ("entrypoint-tester",))


def test_servers_log_and_take_sigterm_as_their_source_says():
    netexec = plan("/agnhost", "netexec", "--http-port=8080", "--delay-shutdown=5")
    assert [t for _, _, t in netexec.outputs] == ["Started UDP server on port  8081\n",
                                                  "Started HTTP server on port 8080\n"]
    assert netexec.end_ns is None and netexec.stop_outcome(30 * S) == (5 * S, 0, "Completed")
    assert plan("/agnhost", "liveness").stop_outcome(30 * S) == (0, 2, "Error")  # Go's default for SIGTERM as pid 1
    assert plan("/agnhost", "serve-hostname").stop_outcome(30 * S) == (30 * S, 137, "Error")  # waits 60 s: killed
    bad = plan("/agnhost", "serve-hostname", "--tcp")
    assert (bad.end_ns, bad.exit_code) == (0, 1)  # --http is on by default: TCP and HTTP at once is refused


# ---------------------------------------------------------------- sockets


@pytest.mark.parametrize("argv,env,listens", [
    (["netexec"], {}, [Listen("tcp", 8080, HTTP), Listen("udp", 8081, DATAGRAM)]),
    (["netexec", "--http-port=80", "--udp-port=-1"], {}, [Listen("tcp", 80, HTTP)]),
    (["liveness"], {}, [Listen("tcp", 8080, HTTP)]),
    (["test-webserver", "--port", "81"], {}, [Listen("tcp", 81, HTTP)]),
    (["grpc-health-checking"], {}, [Listen("tcp", 5000, GRPC_HEALTH), Listen("tcp", 8080, HTTP)]),
    (["serve-hostname", "--http=false", "--tcp", "--udp", "--port=9000"], {},
     [Listen("tcp", 9000, "greeting"), Listen("udp", 9000, DATAGRAM)]),
    (["porter"], {"SERVE_PORT_9001": "foo", "SERVE_UDP_PORT_9002": "bar", "OTHER": "x"},
     [Listen("tcp", 9001, HTTP), Listen("udp", 9002, DATAGRAM)]),
    (["pause"], {}, None),
    (["entrypoint-tester"], {}, None),
])
def test_which_sockets_each_server_opens(argv, env, listens):
    server = server_for(["/agnhost", *argv], env, AGNHOST)
    assert (None if server is None else list(server.listens)) == listens


def test_a_server_wrapped_in_a_shell_still_serves():
    server = server_for(["/bin/sh", "-c", "echo starting; exec /agnhost netexec --http-port=9090"], {}, AGNHOST)
    assert server is not None and server.listens[0] == Listen("tcp", 9090, HTTP)


# ---------------------------------------------------------------- netexec's answers


def netexec(*flags: str):
    return server_for(["/agnhost", "netexec", *flags], {}, AGNHOST)


def test_netexec_endpoints():
    srv = netexec()
    assert get(srv, "/hostname").response.body == b"web-0"
    assert get(srv, "/hostName").response.body == b"web-0"
    assert get(srv, "/clientip").response.body == b"127.70.0.9:4242"
    assert get(srv, "/serverport").response.body == b"8080"
    echo = get(srv, "/echo?msg=hello&code=418").response
    assert (echo.status, echo.body) == (418, b"hello")
    assert get(srv, "/healthz").response.status == 200 and get(srv, "/readyz").response.body == b"ok"
    moved = get(srv, "/redirect?location=/echo%3Fmsg%3Dfoobar&code=307").response
    assert (moved.status, moved.header("Location")) == (307, "/echo?msg=foobar")
    assert get(srv, "/anything/else").response.body.startswith(b"NOW: ")  # "/" catches every other path
    assert get(srv, "//hostname").response.header("Location") == "/hostname"  # not clean: redirected


def test_netexec_healthz_waits_for_its_udp_server():
    assert get(netexec("--udp-port=-1"), "/healthz").response.status == 412


def test_netexec_header_is_the_request_headers_as_json():
    srv = netexec()
    req = HttpRequest("GET", "/header", (("Host", "x"), ("x-forwarded-for", "1.2.3.4"), ("Accept", "*/*")))
    answer, _ = drive(srv.http(8080, req, here()))
    assert json.loads(answer.response.body) == {"Accept": ["*/*"], "X-Forwarded-For": ["1.2.3.4"]}
    answer, _ = drive(srv.http(8080, HttpRequest("GET", "/header?key=X-Forwarded-For", req.headers), here()))
    assert answer.response.body == b"1.2.3.4"


def test_netexec_exit_ends_the_program_with_the_code():
    srv = netexec()
    now = get(srv, "/exit?code=3")
    assert (now.response, now.exit_code) == (None, 3)  # no timeout: it exits before it answers
    answer, steps = drive(srv.http(8080, HttpRequest("GET", "/exit?code=4&timeout=5s&wait=2s"), here()))
    assert [s for s in steps if isinstance(s, Sleep)] == [Sleep(2 * S)]
    assert answer.response.status == 200 and answer.exit_code == 4
    assert Write("stderr", "GET /exit?code=4&timeout=5s&wait=2s\n") in steps  # it logs each request
    assert get(srv, "/exit?code=x").response.body == b"argument 'code' must be an integer [0-127] or empty, got \"x\"\n"
    assert get(srv, "/shutdown").exit_code == 0


def test_netexec_dial_over_http_and_udp():
    srv = netexec()
    asked: list[Connect] = []

    def net(c: Connect) -> NetResult:
        asked.append(c)
        if c.proto == "udp":
            return NetResult(b"peer-1")
        return NetResult(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\npeer-0")

    answer, _ = drive(srv.http(8080, HttpRequest("GET", "/dial?request=hostname&host=127.70.0.5&port=8080&tries=2"),
                               here()), net)
    assert json.loads(answer.response.body) == {"responses": ["peer-0", "peer-0"]}
    assert asked[0].host == "127.70.0.5" and asked[0].data.startswith(b"GET /hostname HTTP/1.1\r\n")
    answer, _ = drive(srv.http(8080, HttpRequest("GET",
                                                 "/dial?request=hostname&protocol=udp&host=127.70.0.5&port=8081"),
                               here()), net)
    assert json.loads(answer.response.body) == {"responses": ["peer-1"]}
    answer, _ = drive(srv.http(8080, HttpRequest("GET", "/dial?request=hostname&host=127.70.0.5&port=80"), here()))
    body = json.loads(answer.response.body)
    assert body == {"errors": ['Get "http://127.70.0.5:80/hostname": dial tcp 127.70.0.5:80: connect: '
                               'connection refused']}
    assert get(srv, "/dial?host=x&port=1").response.status == 400  # no request
    assert get(srv,
               "/dial?request=a&host=1.2.3.4&port=1&protocol=icmp").response.body == b"unsupported protocol. icmp\n"


def test_netexec_shell_runs_the_command_inside():
    srv = netexec()
    answer, _ = drive(srv.http(8080, HttpRequest("GET", "/shell?cmd=echo+hi%3B+exit+3"), here()))
    assert json.loads(answer.response.body) == {"output": "hi\n", "error": "exit status 3"}


def test_netexec_udp_commands():
    srv = netexec()
    assert srv.datagram(8081, b"  HostName\n", "127.0.0.1:5", here()) == b"web-0"
    assert srv.datagram(8081, b"echo Hello There", "127.0.0.1:5", here()) == b"hello there"
    assert srv.datagram(8081, b"clientip", "127.0.0.1:5", here()) == b"127.0.0.1:5"
    assert srv.datagram(8081, b"what", "127.0.0.1:5", here()) is None


# ---------------------------------------------------------------- the other servers


def test_liveness_fails_after_ten_seconds():
    srv = server_for(["/agnhost", "liveness"], {}, AGNHOST)
    assert (get(srv, "/healthz", running_s=9.5).response.status, get(srv, "/healthz", running_s=9.5).response.body) == (
        200, b"ok")
    late = get(srv, "/healthz", running_s=10.5).response
    assert late.status == 500 and late.body == b"error: 10.5"
    moved = get(srv, "/redirect?loc=%2Fhealthz").response
    assert (moved.status, moved.header("Location")) == (302, "/healthz")
    assert get(srv, "/started", running_s=2.5).response.body == b"2.5s"
    assert get(srv, "/nope").response.status == 404


def test_grpc_health_checking():
    srv = server_for(["/agnhost", "grpc-health-checking", "--service=svc", "--delay-unhealthy-sec=5"], {}, AGNHOST)
    assert srv.grpc_health(5000, "svc", here(running_s=1)) == SERVING
    assert srv.grpc_health(5000, "svc", here(running_s=6)) == NOT_SERVING
    assert srv.grpc_health(5000, "other", here()) == UNKNOWN_SERVICE
    forever = server_for(["/agnhost", "grpc-health-checking"], {}, AGNHOST)
    assert forever.grpc_health(5000, "", here(running_s=1e6)) == SERVING
    get(forever, "/make-not-serving")
    assert forever.grpc_health(5000, "", here()) == NOT_SERVING


def test_serve_hostname_porter_and_fake_gitserver():
    sh = server_for(["/agnhost", "serve-hostname", "--close"], {}, AGNHOST)
    answer = get(sh, "/any", port=9376).response
    assert answer.body == b"web-0" and answer.header("Connection") == "close"
    porter = server_for(["/agnhost", "porter", "--json-response"], {"SERVE_PORT_9001": "foo"}, AGNHOST)
    assert json.loads(get(porter, "/", port=9001).response.body) == {"Method": "GET", "Body": "foo"}
    git = server_for(["/agnhost", "fake-gitserver"], {}, AGNHOST)
    assert get(git, "/", port=8000).response.body == b"I am a fake git server"


def test_a_subcommand_modelled_elsewhere_joins_through_register(monkeypatch):
    from fakecri.sim.programs import agnhost

    monkeypatch.setitem(agnhost.SUBCOMMANDS, "mounttest", agnhost.SUBCOMMANDS.get("mounttest", agnhost.Subcommand()))

    def run(inv, io):
        yield from io.write(f"mounttest {list(inv.args)}\n")
        return 0

    agnhost.register("mounttest", agnhost.Subcommand(max_args=None, run=run))
    assert plan("/agnhost", "mounttest", "x").outputs == ((0, "stdout", "mounttest ['x']\n"),)
    with pytest.raises(ValueError):
        agnhost.register("not-an-agnhost-subcommand", agnhost.Subcommand())
