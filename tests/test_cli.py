"""`fakecri serve` and `fakecri ctl` as a user runs them: real processes, real sockets."""
from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import time

import grpc
import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import short_socket_path

FAKECRI = [sys.executable, "-m", "fakecri.cli"]


def start_serve(*args: str) -> tuple[subprocess.Popen, str]:
    sock = short_socket_path()
    proc = subprocess.Popen([*FAKECRI, "serve", "--socket", sock, "--log-level", "warning", *args],
                            stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    assert "serving on unix://" in line, line
    return proc, sock


def stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    return proc.wait(10)


def test_serve_ready_line_socket_mode_and_clean_sigterm():
    proc, sock = start_serve("--seed", "3")
    try:
        assert stat.S_IMODE(os.stat(sock).st_mode) == 0o660
        with grpc.insecure_channel("unix:" + sock) as ch:
            v = api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=5)
        assert v.runtime_name == "fakecri"
    finally:
        code = stop(proc)
    assert code == 0
    assert not os.path.exists(sock), "the socket was left behind"


def test_sigint_also_stops_cleanly_and_says_so_in_console_lines():
    sock = short_socket_path()
    proc = subprocess.Popen([*FAKECRI, "serve", "--socket", sock, "--log-format", "console", "--log-level", "error"],
                            stderr=subprocess.PIPE, text=True)
    ready = proc.stderr.readline()
    assert "[info" in ready and "fakecri" in ready and f"serving on unix://{sock}" in ready
    assert f"socket={sock}" in ready and "streaming=http://127.0.0.1:" in ready
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read()
    assert proc.wait(10) == 0
    assert "fakecri shutting down" in rest and "signal=SIGINT" in rest and "fakecri stopped" in rest


@pytest.mark.parametrize("flag,value,words", [
    ("--drop-events", "lots", "drop"),
    ("--latency", "ListContainers=fast", "ListContainers"),
    ("--error", "RunPodSandbox=NOPE@10%", "NOPE"),
    ("--quirks", "not-a-quirk", "not-a-quirk"),
])
def test_bad_fault_flags_fail_at_start_up_with_a_clear_message(flag, value, words):
    sock = short_socket_path()
    res = subprocess.run([*FAKECRI, "serve", "--socket", sock, flag, value], capture_output=True, text=True,
                         timeout=30)
    assert res.returncode != 0
    assert words in res.stderr, res.stderr
    assert not os.path.exists(sock)


def test_settings_from_env_and_file_with_flags_winning(tmp_path):
    cfg = tmp_path / "fakecri.toml"
    cfg.write_text('seed = 5\ncgroup_driver = "cgroupfs"\n')
    sock = short_socket_path()
    env = dict(os.environ, FAKECRI_SEED="9")
    proc = subprocess.Popen([*FAKECRI, "serve", "--config", str(cfg), "--socket", sock, "--log-level", "warning"],
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()
        assert "(seed 9)" in line, line  # env beats the file
        with grpc.insecure_channel("unix:" + sock) as ch:
            resp = api_pb2_grpc.RuntimeServiceStub(ch).RuntimeConfig(pb.RuntimeConfigRequest(), timeout=5)
        assert resp.linux.cgroup_driver == pb.CGROUPFS
    finally:
        stop(proc)


def test_ctl_drives_a_running_server():
    proc, sock = start_serve("--error", "Version=UNAVAILABLE")
    ep = f"unix://{sock}"
    try:
        out = subprocess.run([*FAKECRI, "ctl", "--endpoint", ep, "faults"], capture_output=True, text=True,
                             timeout=30, check=True).stdout
        faults = [json.loads(line) for line in out.splitlines()]
        assert [f["type"] for f in faults] == ["error"]
        subprocess.run([*FAKECRI, "ctl", "--endpoint", ep, "reset-faults"], check=True, timeout=30)
        with grpc.insecure_channel("unix:" + sock) as ch:
            api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=5)
        res = subprocess.run([*FAKECRI, "ctl", "--endpoint", ep, "remove-fault", "nope"], capture_output=True,
                             text=True, timeout=30)
        assert res.returncode != 0 and "NOT_FOUND" in res.stderr
        calls = subprocess.run([*FAKECRI, "ctl", "--endpoint", ep, "calls"], capture_output=True, text=True,
                               timeout=30, check=True).stdout
        assert any(json.loads(line)["method"] == "Version" for line in calls.splitlines())
    finally:
        stop(proc)


def test_version_command():
    out = subprocess.run([*FAKECRI, "version"], capture_output=True, text=True, timeout=30, check=True).stdout
    assert out.startswith("fakecri ")


def test_watch_json_against_a_running_server():
    proc, sock = start_serve()
    try:
        with grpc.insecure_channel("unix:" + sock) as ch:
            rt = api_pb2_grpc.RuntimeServiceStub(ch)
            md = pb.PodSandboxMetadata(name="w", namespace="default", uid="u-watch")
            rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pb.PodSandboxConfig(metadata=md)), timeout=5)
        res = subprocess.run([*FAKECRI, "watch", "--endpoint", f"unix://{sock}", "--json", "--interval", "0.2",
                              "--duration", "1"], capture_output=True, text=True, timeout=60)
    finally:
        stop(proc)
    assert res.returncode == 0, res.stderr
    records = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    assert records[-1]["kind"] == "summary"
    assert any("u-watch" in json.dumps(r) for r in records)


def test_watch_rejects_a_bad_endpoint():
    res = subprocess.run([*FAKECRI, "watch", "--endpoint", "http://nope", "--duration", "0.1"],
                         capture_output=True, text=True, timeout=30)
    assert res.returncode != 0 and "--endpoint" in res.stderr


FAULTS_FILE = """\
- {name: slow-images, type: latency, target: ListImages, attributes: {delay: 300ms}}
- {name: once-only, type: error, target: ImageFsInfo, count: 1, attributes: {code: RESOURCE_EXHAUSTED}}
"""


def ctl(ep: str, *args: str) -> str:
    return subprocess.run([*FAKECRI, "ctl", "--endpoint", ep, *args], capture_output=True, text=True, timeout=30,
                          check=True).stdout


def test_every_fault_flag_and_a_faults_file_take_effect_through_serve(tmp_path):
    path = tmp_path / "faults.yaml"
    path.write_text(FAULTS_FILE)
    proc, sock = start_serve("--seed", "4", "--faults", str(path), "--drop-events", "100%",
                             "--latency", "ListContainers=300ms", "--error", "Version=UNAVAILABLE@100%",
                             "--quirks", "created-at-seconds")
    ep = f"unix://{sock}"
    try:
        listed = {f["name"]: f for f in map(json.loads, ctl(ep, "faults").splitlines())}
        assert {f["type"] for f in listed.values()} == {"latency", "error", "drop_events", "quirk"}
        assert {"slow-images", "once-only"} <= set(listed)
        with grpc.insecure_channel("unix:" + sock) as ch:
            rt = api_pb2_grpc.RuntimeServiceStub(ch)
            img = api_pb2_grpc.ImageServiceStub(ch)
            with pytest.raises(grpc.RpcError) as err:
                rt.Version(pb.VersionRequest(), timeout=5)
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
            for method, call in (("ListContainers", lambda: rt.ListContainers(pb.ListContainersRequest(), timeout=5)),
                                 ("ListImages", lambda: img.ListImages(pb.ListImagesRequest(), timeout=5))):
                t0 = time.monotonic()
                call()
                assert time.monotonic() - t0 >= 0.29, method
            with pytest.raises(grpc.RpcError) as err:
                img.ImageFsInfo(pb.ImageFsInfoRequest(), timeout=5)
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            img.ImageFsInfo(pb.ImageFsInfoRequest(), timeout=5)  # count 1: gone after one hit
            # Every event is dropped for this subscriber, so the stream stays silent.
            events = rt.GetContainerEvents(pb.GetEventsRequest(), timeout=1.5)
            md = pb.PodSandboxMetadata(name="quiet", namespace="default", uid="u-quiet")
            rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pb.PodSandboxConfig(metadata=md)), timeout=5)
            with pytest.raises(grpc.RpcError) as err:
                next(iter(events))
            assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            # Without the drops, the quirk shows: created_at in seconds, not nanoseconds.
            drop = next(name for name, f in listed.items() if f["type"] == "drop_events")
            ctl(ep, "remove-fault", drop)
            events = rt.GetContainerEvents(pb.GetEventsRequest(), timeout=5)
            md = pb.PodSandboxMetadata(name="loud", namespace="default", uid="u-loud")
            rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pb.PodSandboxConfig(metadata=md)), timeout=5)
            first = next(iter(events))
            assert 10**9 < first.created_at < 10**12, first.created_at
            events.cancel()
        hit = {json.loads(line)["fault"] for line in ctl(ep, "fault-log").splitlines()}
        assert {"slow-images", "once-only", "drop_events_1"} <= hit, hit
    finally:
        assert stop(proc) == 0


def test_every_ctl_subcommand_against_a_running_server():
    proc, sock = start_serve("--seed", "2")
    ep = f"unix://{sock}"
    try:
        with grpc.insecure_channel("unix:" + sock) as ch:
            rt = api_pb2_grpc.RuntimeServiceStub(ch)
            img = api_pb2_grpc.ImageServiceStub(ch)
            img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=5)
            cfg = pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name="c", namespace="default", uid="u-ctl"))
            sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=5).pod_sandbox_id
            cids = []
            for name in ("a", "b"):
                cid = rt.CreateContainer(pb.CreateContainerRequest(
                    pod_sandbox_id=sid, sandbox_config=cfg,
                    config=pb.ContainerConfig(metadata=pb.ContainerMetadata(name=name),
                                              image=pb.ImageSpec(image="busybox"), command=["sleep", "3600"])),
                    timeout=5).container_id
                rt.StartContainer(pb.StartContainerRequest(container_id=cid), timeout=5)
                cids.append(cid)

            def status(cid):
                return rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid), timeout=5).status

            ctl(ep, "exit", cids[0][:12], "--code", "7")
            assert (status(cids[0]).exit_code, status(cids[0]).state) == (7, pb.CONTAINER_EXITED)
            ctl(ep, "exit", cids[1], "--oom")
            assert (status(cids[1]).exit_code, status(cids[1]).reason) == (137, "OOMKilled")

            ctl(ep, "condition", "NetworkReady", "false", "--reason", "CNIBroken", "--duration", "10m")
            conds = {c.type: c for c in rt.Status(pb.StatusRequest(), timeout=5).status.conditions}
            assert not conds["NetworkReady"].status and conds["NetworkReady"].reason == "CNIBroken"
            ctl(ep, "condition", "NetworkReady", "true")
            assert all(c.status for c in rt.Status(pb.StatusRequest(), timeout=5).status.conditions)

            added = json.loads(ctl(ep, "add-fault", '{"name": "boom", "type": "error", "target": "Version"}'))
            assert added["name"] == "boom"
            with pytest.raises(grpc.RpcError):
                rt.Version(pb.VersionRequest(), timeout=5)
            ctl(ep, "remove-fault", "boom")
            rt.Version(pb.VersionRequest(), timeout=5)
            assert any(json.loads(line)["fault"] == "boom" for line in ctl(ep, "fault-log").splitlines())

            ctl(ep, "restart", "--downtime", "300ms")  # state kept
            deadline = time.monotonic() + 10
            while True:
                try:
                    listed = rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=5).items
                    break
                except grpc.RpcError as exc:
                    assert exc.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() < deadline
                    time.sleep(0.05)
            assert [s.id for s in listed] == [sid]
            ctl(ep, "restart", "--downtime", "0", "--wipe")
            deadline = time.monotonic() + 10
            while True:
                try:
                    assert rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=5).items == []
                    break
                except grpc.RpcError as exc:
                    assert exc.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() < deadline
                    time.sleep(0.05)

            rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=5)
            ctl(ep, "reset")
            assert rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=5).items == []
            assert ctl(ep, "faults").strip() == ""
    finally:
        assert stop(proc) == 0


def _other_group() -> tuple[str, int] | None:
    import grp

    for g in grp.getgrall():
        if g.gr_gid != os.getgid():
            return g.gr_name, g.gr_gid
    return None


def test_operator_edges_of_a_served_fakecri(tmp_path):
    """One served fakecri shows: a config file with a YAML list of quirks; a missing socket
    directory made and reported; the socket's group and mode; one ready line with every address
    it chose (real ports for port 0) that connect; health and ctl finding the socket through
    FAKECRI_SOCKET; `ctl` taking --endpoint after the subcommand; the mode shown in octal by
    Status(verbose), as `crictl info` prints it; a restart with the same seed handing out fresh ids."""
    import urllib.request

    from fakecri.server.config import parse_address

    group = _other_group()
    base = short_socket_path("unused")
    sock = os.path.join(os.path.dirname(base), "made", "here", "cri.sock")
    cfg = tmp_path / "fakecri.yaml"
    cfg.write_text("seed: 5\nquirks: [created-at-seconds, stopped-before-started]\n"
                   + (f"socket_group: {group[0]}\n" if group else ""))
    args = [*FAKECRI, "serve", "--config", str(cfg), "--socket", sock, "--listen", "127.0.0.1:0",
            "--metrics-addr", "127.0.0.1:0", "--log-format", "json", "--log-level", "warning"]

    def serve_once() -> tuple[dict, str]:
        proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
        try:
            ready = json.loads(proc.stderr.readline())
            with grpc.insecure_channel("unix:" + sock) as ch:
                rt = api_pb2_grpc.RuntimeServiceStub(ch)
                md = pb.PodSandboxMetadata(name="edge", namespace="default", uid="u-edge")
                sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pb.PodSandboxConfig(metadata=md)),
                                       timeout=5).pod_sandbox_id
                info = json.loads(rt.Status(pb.StatusRequest(verbose=True), timeout=5).info["config"])
            ready["config"] = info
            ready["ctl_faults"] = ctl_after(f"unix://{sock}", "faults")
            ready["health"] = subprocess.run([*FAKECRI, "health"], capture_output=True, text=True, timeout=30,
                                             env=dict(os.environ, FAKECRI_SOCKET=sock))
            ready["ctl_by_env"] = subprocess.run([*FAKECRI, "ctl", "faults"], capture_output=True, text=True,
                                                 timeout=30, env=dict(os.environ, FAKECRI_SOCKET=sock)).stdout
            ready["mode"] = os.stat(sock).st_mode
            ready["gid"] = os.stat(sock).st_gid
            with urllib.request.urlopen(ready["metrics"], timeout=5) as resp:
                ready["metrics_status"] = resp.status
            host, port = parse_address(ready["listen"])
            assert port != 0
            with grpc.insecure_channel(f"{host}:{port}") as ch:
                api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=5)
        finally:
            assert stop(proc) == 0
        return ready, sid

    first, first_sid = serve_once()
    assert first["level"] == "info" and first["timestamp"].endswith("Z")
    assert first["socket"] == sock and first["created_directory"] == os.path.dirname(sock)
    assert first["streaming"].startswith("http://127.0.0.1:") and not first["streaming"].endswith(":0")
    assert first["metrics"].endswith("/metrics") and first["metrics_status"] == 200
    assert stat.S_IMODE(first["mode"]) == 0o660 and first["config"]["socket_mode"] == "0660"
    if group:
        assert first["gid"] == group[1] and first["config"]["socket_group"] == group[1]
    quirks = [json.loads(line)["attributes"]["name"] for line in first["ctl_faults"].splitlines()]
    assert sorted(quirks) == ["created-at-seconds", "stopped-before-started"]
    assert first["health"].returncode == 0 and first["health"].stdout.strip() == "SERVING"
    assert first["ctl_by_env"] == first["ctl_faults"]
    second, second_sid = serve_once()
    assert "created_directory" not in second  # made once, then reused
    assert second_sid != first_sid, "a restarted fakecri handed out an id it gave before"


def ctl_after(ep: str, *args: str) -> str:
    """`fakecri ctl SUBCOMMAND ... --endpoint EP`: the endpoint after the subcommand."""
    return subprocess.run([*FAKECRI, "ctl", *args, "--endpoint", ep], capture_output=True, text=True, timeout=30,
                          check=True).stdout


def test_deterministic_ids_repeat_across_restarts():
    def first_sandbox_id() -> str:
        proc, sock = start_serve("--seed", "3", "--deterministic-ids")
        try:
            with grpc.insecure_channel("unix:" + sock) as ch:
                md = pb.PodSandboxMetadata(name="d", namespace="default", uid="u-d")
                return api_pb2_grpc.RuntimeServiceStub(ch).RunPodSandbox(
                    pb.RunPodSandboxRequest(config=pb.PodSandboxConfig(metadata=md)), timeout=5).pod_sandbox_id
        finally:
            stop(proc)

    assert first_sandbox_id() == first_sandbox_id()


def _every_command(group, path=()):
    import click

    yield path, group
    if isinstance(group, click.Group):
        for name, cmd in group.commands.items():
            yield from _every_command(cmd, path + (name,))


INTERNAL = re.compile(r"\bissues? #?\d+|\bsection [A-Z0-9]\b|\bthe lead\b|shared/notes|\.\./shared|\bTODO\b",
                      re.IGNORECASE)


def _help_cases():
    from fakecri.cli import main

    return [pytest.param(path, id=" ".join(("fakecri",) + path)) for path, _ in _every_command(main)]


def _help_text(path) -> str:
    from click.testing import CliRunner

    from fakecri.cli import main

    result = CliRunner().invoke(main, [*path, "--help"], prog_name="fakecri", terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("path", _help_cases())
def test_help_reads_as_user_documentation(path):
    text = _help_text(path)
    assert not INTERNAL.search(text), INTERNAL.search(text).group(0)
    assert "python -m" not in text and "Usage: fakecri" in text
