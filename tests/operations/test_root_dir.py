"""`--root DIR`: an existing directory is used as it is (so the same root serves a second
start), a missing one is made, and one that cannot be used stops start-up with one line.
It used to refuse every existing directory ("is a directory") and to accept a root it could
not create, after which ImageFsInfo and every stats call answered INTERNAL."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import grpc
import pytest

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.exceptions import SettingError
from fakecri.server.process.app import FakeCRIServer, short_socket_path

FAKECRI = [sys.executable, "-m", "fakecri.cli"]


def serve_once(args: list[str], env: dict[str, str] | None = None) -> str:
    """Start `fakecri serve`, ask for ImageFsInfo, stop; the mountpoint it reported."""
    sock = short_socket_path()
    proc = subprocess.Popen([*FAKECRI, "serve", "--socket", sock, "--log-level", "warning", *args],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    try:
        line = proc.stderr.readline()
        assert "serving on" in line, line + proc.stderr.read()
        with grpc.insecure_channel("unix:" + sock) as ch:
            fs = api_pb2_grpc.ImageServiceStub(ch).ImageFsInfo(pb.ImageFsInfoRequest(), timeout=10)
        return fs.image_filesystems[0].fs_id.mountpoint
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0


def test_an_existing_root_serves_one_start_after_another(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    first = serve_once(["--root", str(root)])
    assert first.startswith(str(root))
    assert serve_once(["--root", str(root)]) == first
    assert serve_once([], env={"FAKECRI_ROOT": str(root)}) == first


def test_a_missing_root_is_made(tmp_path):
    root = tmp_path / "made" / "here"
    assert serve_once(["--root", str(root)]).startswith(str(root))


@pytest.mark.parametrize("bad", ["/proc/fakecri-root", "{tmp}/a-file", "{tmp}/a-file/root"])
def test_a_root_that_cannot_be_used_stops_a_server_in_process(tmp_path, bad):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(SettingError) as err:
        FakeCRIServer(state_root=bad.replace("{tmp}", str(tmp_path))).start()
    assert err.value.setting == "state_root"
