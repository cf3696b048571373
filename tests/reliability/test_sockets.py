"""Socket hygiene: modes, other users, paths that are not sockets, a second server, TCP, control API."""
from __future__ import annotations

import os
import pwd
import shutil
import socket
import stat
import subprocess
import tempfile

import grpc
import pytest
from helpers.reliability import add

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.control.v1 import control_pb2_grpc
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer, StartupError


def open_dir() -> str:
    """A directory anyone may traverse (mkdtemp's 0700 would hide the socket's own mode)."""
    d = tempfile.mkdtemp(prefix="fc-sock-", dir="/tmp")
    os.chmod(d, 0o755)
    return d


def mode_of(path: str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_socket_mode_default_and_configured():
    d = open_dir()
    with FakeCRIServer(socket=os.path.join(d, "a.sock")) as server:
        assert mode_of(server.config.socket) == 0o660
    with FakeCRIServer(socket=os.path.join(d, "b.sock"), socket_mode=0o600) as server:
        assert mode_of(server.config.socket) == 0o600
    shutil.rmtree(d)


# ---------------------------------------------------------------- another user

CONNECT = """
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except PermissionError:
    sys.exit(13)
except OSError as e:
    print(e); sys.exit(2)
sys.exit(0)
"""


def _connect_as_nobody(path: str) -> int:
    """Exit 0: connected; 13: permission denied.

    The user switch is done by setpriv in the child, not by subprocess's user=/group=: those
    make Python fork() this process, which has grpc threads running, and the forked child
    died now and then with SIGABRT before it could exec."""
    python = shutil.which("python3", path="/usr/bin:/bin")
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0:
        pytest.skip("needs root to switch to another user")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' on this machine")
    if python is None:
        pytest.skip("no system python3 that user 'nobody' can run")
    if setpriv is None:
        pytest.skip("no setpriv (util-linux) to switch users with")
    proc = subprocess.run([setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups",
                           python, "-c", CONNECT, path], capture_output=True, text=True, timeout=60, cwd="/")
    return proc.returncode


def test_another_user_cannot_connect_where_the_mode_forbids():
    d = open_dir()
    try:
        with FakeCRIServer(socket=os.path.join(d, "c.sock")) as server:  # 0660, owned by root:root
            assert _connect_as_nobody(server.config.socket) == 13
        # The positive control: a mode that lets everyone in does let 'nobody' in.
        with FakeCRIServer(socket=os.path.join(d, "d.sock"), socket_mode=0o666) as server:
            assert _connect_as_nobody(server.config.socket) == 0
        add("sockets: other-user connects tried", 2)
    finally:
        shutil.rmtree(d)


# ---------------------------------------------------------------- what is at the path


def test_a_regular_file_at_the_socket_path_is_refused_not_removed():
    d = open_dir()
    path = os.path.join(d, "file.sock")
    with open(path, "w") as f:
        f.write("precious")
    with pytest.raises(StartupError, match="not a socket"):
        FakeCRIServer(socket=path).start()
    with open(path) as f:
        assert f.read() == "precious"
    shutil.rmtree(d)


def test_a_directory_at_the_socket_path_is_refused_not_removed():
    d = open_dir()
    path = os.path.join(d, "dir.sock")
    os.mkdir(path)
    open(os.path.join(path, "inside"), "w").close()
    with pytest.raises(StartupError, match="directory"):
        FakeCRIServer(socket=path).start()
    assert os.path.isfile(os.path.join(path, "inside"))
    shutil.rmtree(d)


def test_a_second_server_on_the_same_socket_is_refused_while_the_first_lives():
    d = open_dir()
    path = os.path.join(d, "one.sock")
    with FakeCRIServer(socket=path) as first:
        with pytest.raises(StartupError, match="another"):
            FakeCRIServer(socket=path).start()
        ch = grpc.insecure_channel(first.endpoint)
        assert api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=10).runtime_name == "fakecri"
        ch.close()
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    # Once the first is gone, the path is free again.
    with FakeCRIServer(socket=path):
        pass
    shutil.rmtree(d)


def test_a_stale_socket_from_a_dead_server_is_replaced():
    d = open_dir()
    path = os.path.join(d, "stale.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.close()  # bound, never listening: what a killed server leaves
    with FakeCRIServer(socket=path) as server:
        ch = grpc.insecure_channel(server.endpoint)
        api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=10)
        ch.close()
    shutil.rmtree(d)


# ---------------------------------------------------------------- TCP


def _tcp_listeners() -> dict[int, set[str]]:
    """This process's listening TCP sockets: port -> local addresses."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    out: dict[int, set[str]] = {}
    for table, v6 in (("/proc/self/net/tcp", False), ("/proc/self/net/tcp6", True)):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            local, st, inode = parts[1], parts[3], parts[9]
            if st != "0A" or inode not in inodes:  # 0A: LISTEN
                continue
            addr_hex, port_hex = local.split(":")
            raw = bytes.fromhex(addr_hex)
            if v6:
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                addr = socket.inet_ntop(socket.AF_INET6, words)
            else:
                addr = socket.inet_ntoa(raw[::-1])
            out.setdefault(int(port_hex, 16), set()).add(addr)
    return out


LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


def test_tcp_only_where_asked_and_on_loopback():
    before = set(_tcp_listeners())
    with FakeCRIServer() as server:  # unix socket only
        new = {p: a for p, a in _tcp_listeners().items() if p not in before}
        # Only the exec/attach streaming server listens on TCP, on loopback.
        assert all(addrs <= LOOPBACK for addrs in new.values()), new
        assert server.tcp_port is None
    with FakeCRIServer(listen="127.0.0.1:0") as server:
        port = server.tcp_port
        assert port
        assert _tcp_listeners()[port] <= LOOPBACK
        ch = grpc.insecure_channel(f"127.0.0.1:{port}")
        assert api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=10).runtime_name == "fakecri"
        ch.close()
    with FakeCRIServer(listen=":0") as server:  # no host given: loopback
        assert _tcp_listeners()[server.tcp_port] <= LOOPBACK


# ---------------------------------------------------------------- the control API


def test_control_api_can_be_disabled():
    with FakeCRIServer(no_control=True) as server:
        assert server.control_endpoint is None
        ch = grpc.insecure_channel(server.endpoint)
        with pytest.raises(grpc.RpcError) as err:
            control_pb2_grpc.ControlStub(ch).Reset(cpb.ResetRequest(), timeout=10)
        assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED
        assert api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=10).runtime_name == "fakecri"
        ch.close()


def test_control_api_on_its_own_socket_with_mode_0600():
    d = open_dir()
    try:
        with FakeCRIServer(socket=os.path.join(d, "cri.sock"), control_socket=os.path.join(d, "ctl.sock")) as server:
            assert mode_of(server.config.control_socket) == 0o600
            assert mode_of(server.config.socket) == 0o660
            cri = grpc.insecure_channel(server.endpoint)
            with pytest.raises(grpc.RpcError) as err:
                control_pb2_grpc.ControlStub(cri).GetServerInfo(cpb.GetServerInfoRequest(), timeout=10)
            assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED
            ctl = grpc.insecure_channel(server.control_endpoint)
            control_pb2_grpc.ControlStub(ctl).GetServerInfo(cpb.GetServerInfoRequest(), timeout=10)
            cri.close()
            ctl.close()
            # 0600: even a user in the socket's group is kept out; 'nobody' certainly is.
            assert _connect_as_nobody(server.config.control_socket) == 13
    finally:
        shutil.rmtree(d)


# ---------------------------------------------------------------- TCP and the control API

AS_NOBODY = """
import json, sys
try:
    import grpc
    from fakecri.api.control.v1 import control_pb2 as cpb, control_pb2_grpc
    from fakecri.api.runtime.v1 import api_pb2 as pb, api_pb2_grpc
except ImportError:
    sys.exit(77)
ch = grpc.insecure_channel(sys.argv[1])
rt, ctl = api_pb2_grpc.RuntimeServiceStub(ch), control_pb2_grpc.ControlStub(ch)
calls = {
    "ListPodSandbox": lambda: rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=10),
    "Reset": lambda: ctl.Reset(cpb.ResetRequest(), timeout=10),
    "AddFault": lambda: ctl.AddFault(cpb.AddFaultRequest(fault=cpb.Fault(type="error", target="Version",
                                                                         attributes={"code": "INTERNAL"})), timeout=10),
}
codes = {}
for name, call in calls.items():
    try:
        call()
        codes[name] = "OK"
    except grpc.RpcError as e:
        codes[name] = e.code().name
print(json.dumps(codes))
"""


def _rpcs_as_nobody(target: str) -> dict[str, str]:
    """The codes `nobody` gets for a CRI list, Reset and AddFault at `target`, through the
    system python3 with this environment's packages (as the other-user test above does)."""
    import json
    import sys

    python = shutil.which("python3", path="/usr/bin:/bin")
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0:
        pytest.skip("needs root to switch to another user")
    if python is None or setpriv is None:
        pytest.skip("no system python3 or setpriv to run as another user")
    nobody = pwd.getpwnam("nobody")
    site = [p for p in sys.path if p.endswith("site-packages")]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__import__("fakecri").__file__)))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": os.pathsep.join([root, *site])}
    proc = subprocess.run([setpriv, f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups",
                           python, "-c", AS_NOBODY, target], capture_output=True, text=True, timeout=60, cwd="/",
                          env=env)
    if proc.returncode == 77:
        pytest.skip("user 'nobody' cannot import grpc from this environment with the system python3")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_another_user_reaches_cri_over_tcp_but_never_the_control_api():
    """The model (docs/operating.md): a TCP port has no owner or mode, so with --listen any
    local user reaches CRI, as documented; but never Reset or AddFault, which used to work
    for 'nobody' against a fakecri run as root."""
    d = open_dir()
    try:
        with FakeCRIServer(socket=os.path.join(d, "cri.sock"), listen="127.0.0.1:0") as server:
            codes = _rpcs_as_nobody(f"127.0.0.1:{server.tcp_port}")
            assert codes == {"ListPodSandbox": "OK", "Reset": "UNIMPLEMENTED", "AddFault": "UNIMPLEMENTED"}
            assert server.call(lambda: server.node.plan.has_rpc_faults) is False
    finally:
        shutil.rmtree(d)


def test_tcp_never_serves_the_control_api_and_the_socket_still_does():
    d = open_dir()
    try:
        with FakeCRIServer(socket=os.path.join(d, "cri.sock"), listen="127.0.0.1:0") as server:
            with grpc.insecure_channel(f"127.0.0.1:{server.tcp_port}") as tcp:
                with pytest.raises(grpc.RpcError) as err:
                    control_pb2_grpc.ControlStub(tcp).Reset(cpb.ResetRequest(), timeout=10)
                assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED
                assert api_pb2_grpc.RuntimeServiceStub(tcp).Version(pb.VersionRequest(), timeout=10).runtime_name
            assert server.control_endpoint == server.endpoint  # the unix socket
            with grpc.insecure_channel(server.control_endpoint) as unix:
                control_pb2_grpc.ControlStub(unix).Reset(cpb.ResetRequest(), timeout=10)
        with FakeCRIServer(listen="127.0.0.1:0") as tcp_only:
            assert tcp_only.control_endpoint is None
    finally:
        shutil.rmtree(d)


def test_a_non_loopback_listen_needs_allow_remote_and_warns():
    with pytest.raises(ValueError, match="--allow-remote"):
        FakeCRIServer(listen="0.0.0.0:0")
    import json
    import signal
    import sys

    sock = os.path.join(open_dir(), "cri.sock")
    proc = subprocess.Popen([sys.executable, "-m", "fakecri.cli", "serve", "--socket", sock, "--listen", "0.0.0.0:0",
                             "--allow-remote", "--log-format", "json"], stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not lines or "serving on" not in lines[-1].get("event", ""):
            lines.append(json.loads(proc.stderr.readline()))
        [warning] = [line for line in lines if line["level"] == "warning"]
        assert "non-loopback" in warning["event"] and warning["listen"].startswith("0.0.0.0:")
        assert lines[-1]["listen"] == warning["listen"]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
        shutil.rmtree(os.path.dirname(sock))
