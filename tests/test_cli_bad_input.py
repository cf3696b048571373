"""Bad input on the command line: for every option of every command, one line on stderr
that names the option (or the config file and key, or the variable), exit status 2, and
never a traceback or a silently changed value.

The rows run in one child process (each through click's test runner), so the table
costs about one interpreter start.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

SOCK = "{tmp}/s/cri.sock"
SERVE = ["serve", "--socket", SOCK]

# (arguments, environment, what the error line must name)
ROWS: list[tuple[list[str], dict[str, str], str]] = [
    # serve: addresses
    (SERVE + ["--listen", "127.0.0.1:99999"], {}, "'--listen'"),
    (SERVE + ["--listen", "0.0.0.0:abc"], {}, "'--listen'"),
    (SERVE + ["--listen", "nonsense"], {}, "'--listen'"),
    (SERVE + ["--listen", "203.0.113.7:0"], {}, "--listen 203.0.113.7:0"),  # not loopback
    (SERVE + ["--listen", "203.0.113.7:0", "--allow-remote"], {}, "'--listen'"),  # not an address of this machine
    (SERVE + ["--listen", "999.1.1.1:0"], {}, "'--listen'"),  # not an address at all (grpc spoke first)
    (SERVE + ["--listen", "[::1:0"], {}, "'--listen'"),
    (SERVE + ["--listen", "0.0.0.0:0"], {}, "--listen 0.0.0.0:0"),  # every interface: only with --allow-remote
    (SERVE + ["--listen", "[::]:0"], {}, "--listen [::]:0"),
    (SERVE, {"FAKECRI_LISTEN": "0.0.0.0:0"}, "--listen 0.0.0.0:0"),
    (SERVE + ["--listen", "127.0.0.1:{busy}"], {}, "'--listen'"),  # in use: our line, not grpc's
    (SERVE + ["--streaming-addr", "127.0.0.1:99999"], {}, "'--streaming-addr'"),
    (SERVE + ["--streaming-addr", "203.0.113.7:0"], {}, "'--streaming-addr'"),
    (SERVE + ["--metrics-addr", "nonsense"], {}, "'--metrics-addr'"),
    (SERVE + ["--metrics-addr", "127.0.0.1:-1"], {}, "'--metrics-addr'"),
    # serve: paths
    (["serve", "--socket", "/proc/nope/x.sock"], {}, "'--socket'"),
    (["serve", "--socket", "{tmp}/a-file/x.sock"], {}, "'--socket'"),
    (["serve", "--socket", "{tmp}"], {}, "'--socket'"),  # a directory
    (["serve", "--socket", "/tmp/" + "x" * 120 + ".sock"], {}, "'--socket'"),
    (SERVE + ["--control-socket", "/proc/nope/c.sock"], {}, "'--control-socket'"),
    (SERVE + ["--state-file", "/nonexistent-dir/state.json"], {}, "'--state-file'"),
    (SERVE + ["--state-file", "{tmp}"], {}, "'--state-file'"),
    (SERVE + ["--image-catalog", "/nonexistent.yaml"], {}, "'--image-catalog'"),
    (SERVE + ["--faults", "/nonexistent.yaml"], {}, "'--faults'"),
    (SERVE + ["--config", "/nonexistent.toml"], {}, "config file /nonexistent.toml"),
    (SERVE + ["--root", "/proc/fakecri-root"], {}, "'--root'"),  # cannot be made
    (SERVE + ["--root", "{tmp}/a-file"], {}, "'--root'"),  # a file
    (SERVE + ["--root", "{tmp}/a-file/root"], {}, "'--root'"),
    (SERVE, {"FAKECRI_ROOT": "/proc/fakecri-root"}, "environment variable FAKECRI_ROOT"),
    # serve: numbers and names
    (SERVE + ["--seed", "x"], {}, "'--seed'"),
    (SERVE + ["--seed", "9" * 30], {}, "'--seed'"),  # GetServerInfo carries it as an int64
    (SERVE + ["--socket-mode", "999"], {}, "'--socket-mode'"),
    (SERVE + ["--socket-mode", "77777"], {}, "'--socket-mode'"),
    (SERVE + ["--socket-group", "no-such-group-here"], {}, "'--socket-group'"),
    (SERVE + ["--max-containers", "-1"], {}, "'--max-containers'"),
    (SERVE + ["--max-sandboxes", "-5"], {}, "'--max-sandboxes'"),
    (SERVE + ["--max-images", "-1"], {}, "'--max-images'"),
    (SERVE + ["--max-subscribers", "-1"], {}, "'--max-subscribers'"),
    (SERVE + ["--subscriber-buffer", "0"], {}, "'--subscriber-buffer'"),
    (SERVE + ["--max-message-bytes", "0"], {}, "'--max-message-bytes'"),
    (SERVE + ["--max-message-bytes", "3000000000"], {}, "'--max-message-bytes'"),  # over gRPC's int32
    (SERVE, {"FAKECRI_MAX_MESSAGE_BYTES": "3000000000"}, "environment variable FAKECRI_MAX_MESSAGE_BYTES"),
    (SERVE + ["--call-log-size", "0"], {}, "'--call-log-size'"),
    (SERVE + ["--subscriber-policy", "nope"], {}, "'--subscriber-policy'"),
    (SERVE + ["--cgroup-driver", "nope"], {}, "'--cgroup-driver'"),
    (SERVE + ["--pod-cidr", "nonsense"], {}, "'--pod-cidr'"),
    (SERVE + ["--pod-cidr", "10.0.0.0/31"], {}, "'--pod-cidr'"),
    (SERVE + ["--log-level", "loud"], {}, "'--log-level'"),
    (SERVE + ["--log-format", "xml"], {}, "'--log-format'"),
    # serve: fault flags
    (SERVE + ["--drop-events", "lots"], {}, "'--drop-events'"),
    (SERVE + ["--latency", "ListContainers=fast"], {}, "'--latency'"),
    (SERVE + ["--latency", "ListContainers=200"], {}, "'--latency'"),  # a unit is required
    (SERVE + ["--latency", "ListContainers=" + "1" * 400 + "s"], {}, "'--latency'"),  # infinite
    (SERVE + ["--faults", "{tmp}/latin1.yaml"], {}, "'--faults'"),  # not UTF-8
    (SERVE + ["--faults", "{tmp}/broken.yaml"], {}, "'--faults'"),  # not YAML: one line, not eight
    (SERVE + ["--faults", "{tmp}/deep.json"], {}, "'--faults'"),  # nested past the parser's recursion
    (SERVE + ["--image-catalog", "{tmp}/bad-catalog.yaml"], {}, "'--image-catalog'"),
    (SERVE + ["--image-catalog", "{tmp}/latin1.yaml"], {}, "'--image-catalog'"),
    (SERVE + ["--image-catalog", "{tmp}/broken.yaml"], {}, "'--image-catalog'"),
    (SERVE + ["--image-catalog", "{tmp}/deep.json"], {}, "'--image-catalog'"),
    (SERVE + ["--error", "RunPodSandbox=NOPE@10%"], {}, "'--error'"),
    (SERVE + ["--quirks", "not-a-quirk"], {}, "'--quirks'"),
    # serve: the config file and the environment name where a bad value came from
    (SERVE + ["--config", "{tmp}/bad-seed.toml"], {}, "config file {tmp}/bad-seed.toml: key 'seed'"),
    (SERVE + ["--config", "{tmp}/bad-key.yaml"], {}, "config file {tmp}/bad-key.yaml: unknown key 'colour'"),
    (SERVE + ["--config", "{tmp}/bad-port.yaml"], {}, "config file {tmp}/bad-port.yaml: key 'listen'"),
    (SERVE + ["--config", "{tmp}/bad-count.yaml"], {}, "config file {tmp}/bad-count.yaml: key 'max-containers'"),
    # A bare 660 in YAML is the decimal number 660, not the mode 0660: refused, never applied.
    (SERVE + ["--config", "{tmp}/bad-mode.yaml"], {}, "config file {tmp}/bad-mode.yaml: key 'socket-mode'"),
    (SERVE + ["--config", "{tmp}/latin1.toml"], {}, "config file {tmp}/latin1.toml"),  # not UTF-8
    (SERVE + ["--config", "{tmp}/broken.yaml"], {}, "config file {tmp}/broken.yaml"),
    (SERVE + ["--config", "{tmp}/deep.json"], {}, "config file {tmp}/deep.json"),
    (SERVE + ["--config", "{tmp}/deep.yaml"], {}, "config file {tmp}/deep.yaml"),
    (SERVE + ["--config", "{tmp}/deep.toml"], {}, "config file {tmp}/deep.toml"),
    (SERVE + ["--config", "{tmp}/float-seed.toml"], {}, "config file {tmp}/float-seed.toml: key 'seed'"),
    (SERVE + ["--config", "{tmp}/bool-seed.yaml"], {}, "config file {tmp}/bool-seed.yaml: key 'seed'"),
    (SERVE + ["--config", "{tmp}/huge-seed.json"], {}, "config file {tmp}/huge-seed.json: key 'seed'"),
    (SERVE + ["--socket-mode", "1777"], {}, "'--socket-mode'"),
    (SERVE, {"FAKECRI_SEED": "x"}, "environment variable FAKECRI_SEED"),
    (SERVE, {"FAKECRI_MAX_CONTAINERS": "-3"}, "environment variable FAKECRI_MAX_CONTAINERS"),
    # serve: a node farm
    (["serve", "--nodes", "2"], {}, "--socket-dir"),
    (["serve", "--nodes", "-1", "--socket-dir", "{tmp}/farm"], {}, "'--nodes'"),
    (["serve", "--nodes", "two", "--socket-dir", "{tmp}/farm"], {}, "'--nodes'"),
    (["serve", "--socket-dir", "{tmp}/farm"], {}, "--nodes"),
    (SERVE + ["--nodes", "2", "--socket-dir", "{tmp}/farm"], {}, "--socket"),
    (["serve", "--nodes", "2", "--socket-dir", "{tmp}/farm", "--node-name", "same"], {}, "same name"),
    (["serve", "--nodes", "2", "--socket-dir", "{tmp}/farm", "--node-name", "Node_{i}"], {},
     "--node-name 'Node_{i}': node name 'Node_0' is not a DNS subdomain"),
    (["serve", "--nodes", "2", "--socket-dir", "{tmp}/farm", "--node-name", "n{x}"], {}, "{i}"),
    (["serve", "--nodes", "300", "--socket-dir", "{tmp}/farm"], {}, "fewer than --nodes 300"),
    (["serve", "--nodes", "2", "--socket-dir", "{tmp}/farm", "--node-cidr-size", "200"], {}, "'--node-cidr-size'"),
    (["serve", "--nodes", "2", "--socket-dir", "{tmp}/a-file"], {}, "'--socket-dir'"),
    (["serve", "--nodes", "2", "--socket-dir", "{tmp}/farm", "--state-file", "{tmp}/s.json"], {}, "--state-dir"),
    (["serve", "--nodes", "2", "--socket-dir", "{tmp}/farm"], {"FAKECRI_NODES": "many"},
     "environment variable FAKECRI_NODES"),
    # watch
    (["watch", "--interval", "abc"], {}, "'--interval'"),
    (["watch", "--interval", "0"], {}, "'--interval'"),
    (["watch", "--duration", "-1"], {}, "'--duration'"),
    (["watch", "--endpoint", "http://nope", "--duration", "0.1"], {}, "'--endpoint'"),
    # health
    (["health", "--timeout", "soon"], {}, "'--timeout'"),
    (["health", "--endpoint", "http://nope"], {}, "'--endpoint'"),
    (["health", "--config", "{tmp}/bad-key.yaml"], {}, "config file {tmp}/bad-key.yaml: unknown key 'colour'"),
    # ctl (checked before any connection is made)
    (["ctl", "--endpoint", "http://nope", "faults"], {}, "'--endpoint'"),
    (["ctl", "faults", "--endpoint", "http://nope"], {}, "'--endpoint'"),
    (["ctl", "condition", "NetworkReady", "false", "--duration", "30x"], {}, "'--duration'"),
    (["ctl", "condition", "NetworkReady", "false", "--duration", "-5s"], {}, "'--duration'"),
    (["ctl", "condition", "Sleepy", "false"], {}, "'TYPE'"),
    (["ctl", "restart", "--downtime", "a while"], {}, "'--downtime'"),
    (["ctl", "exit", "abc", "--code", "99999999999"], {}, "'--code'"),
    (["ctl", "exit", "abc", "--code", "seven"], {}, "'--code'"),
    (["ctl", "add-fault", "not json"], {}, "'SPEC'"),
    (["ctl", "add-fault", "[1, 2]"], {}, "'SPEC'"),
    (["ctl", "--endpoint", "http://nope", "nodes"], {}, "'--endpoint'"),
    (["ctl", "--endpoint", "http://nope", "--node", "all", "faults"], {}, "'--endpoint'"),
    # conformance
    (["conformance", "--max-examples", "0"], {}, "'--max-examples'"),
    (["conformance", "--endpoint", "http://nope"], {}, "'--endpoint'"),
    (["conformance", "--profile", "nope"], {}, "'--profile'"),
]

# Each row also catches what reaches file descriptor 2 below Python (grpc's C core writes
# there), which click's runner does not see. A value accepted by mistake starts a server that
# never returns: the alarm ends that row as a crash.
HARNESS = """
import json, os, signal, sys, tempfile
from click.testing import CliRunner
from fakecri.cli import main

class Served(Exception):
    pass

def served(*_):
    raise Served("accepted the value and started serving")

signal.signal(signal.SIGALRM, served)
out = []
for args, env in json.load(sys.stdin):
    signal.alarm(20)
    with tempfile.TemporaryFile() as fd2:
        saved = os.dup(2)
        os.dup2(fd2.fileno(), 2)
        try:
            r = CliRunner().invoke(main, args, env=env)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        signal.alarm(0)
        fd2.seek(0)
        below = fd2.read().decode("utf-8", "replace")
    crash = r.exception is not None and not isinstance(r.exception, SystemExit)
    out.append({"code": r.exit_code, "stderr": r.stderr + below, "crash": repr(r.exception) if crash else None})
print(json.dumps(out))
"""

FILES = {
    "bad-seed.toml": 'seed = "x"\n',
    "bad-key.yaml": "colour: red\n",
    "bad-port.yaml": "listen: 127.0.0.1:99999\n",
    "bad-count.yaml": "max-containers: -1\n",
    "bad-mode.yaml": "socket-mode: 660\n",
    "a-file": "",
    "latin1.yaml": "name: caf\xe9\n",  # written as Latin-1 below
    "latin1.toml": "seed = 1 # caf\xe9\n",
    "broken.yaml": "seed: [1, 2\nlisten: {a: b\n  - c\n",
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "deep.yaml": "[" * 100_000 + "]" * 100_000,
    "deep.toml": "seed = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "float-seed.toml": "seed = 1.5\n",
    "bool-seed.yaml": "seed: true\n",
    "huge-seed.json": '{"seed": 1e400}',
    "bad-catalog.yaml": "images: 5\n",
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("bad-input"))
    for name, text in FILES.items():
        with open(os.path.join(tmp, name), "w", encoding="latin-1" if name.startswith("latin1") else "utf-8") as f:
            f.write(text)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = str(busy.getsockname()[1])
    rows = [([a.replace("{tmp}", tmp).replace("{busy}", port) for a in args], env) for args, env, _ in ROWS]
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKECRI_")}
    done = subprocess.run([sys.executable, "-c", HARNESS], input=json.dumps(rows), capture_output=True, text=True,
                          timeout=300, env=env, cwd=tmp)
    busy.close()
    assert done.returncode == 0, done.stderr
    return tmp, json.loads(done.stdout)


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[" ".join(r[0][1:] if r[0][:1] == ["serve"] else r[0])[:60]
                                                        + (f" {r[1]}" if r[1] else "") for r in ROWS])
def test_bad_input_is_one_line_naming_the_option_and_exit_2(outcomes, row):
    tmp, results = outcomes
    got = results[row]
    names = ROWS[row][2].replace("{tmp}", tmp)
    assert got["crash"] is None, got
    lines = got["stderr"].strip().splitlines()
    assert len(lines) == 1, got["stderr"]
    assert lines[0].startswith("Error: ") and names in lines[0], lines[0]
    assert "Traceback" not in got["stderr"]
    assert got["code"] == 2, got
