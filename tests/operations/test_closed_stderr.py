"""The reader of fakecri's stderr goes away (a pipe to `tee` that exits): logging must never
fail a call or a shutdown. It used to answer every RPC `UNKNOWN BrokenPipeError` at log
level info, and to ignore SIGTERM."""
from __future__ import annotations

import signal
import subprocess
import sys

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import short_socket_path


def test_calls_and_sigterm_work_after_the_stderr_reader_is_gone():
    sock = short_socket_path()
    proc = subprocess.Popen([sys.executable, "-m", "fakecri.cli", "serve", "--socket", sock, "--log-level", "info",
                             "--log-format", "json"], stderr=subprocess.PIPE)
    try:
        assert b"serving on" in proc.stderr.readline()
        proc.stderr.close()  # the reader goes away; the next write gets EPIPE
        with grpc.insecure_channel("unix:" + sock) as ch:
            rt = api_pb2_grpc.RuntimeServiceStub(ch)
            for i in range(3):
                assert rt.Version(pb.VersionRequest(), timeout=10).runtime_name == "fakecri"
                md = pb.PodSandboxMetadata(name=f"p{i}", namespace="default", uid=f"u{i}")
                rt.RunPodSandbox(pb.RunPodSandboxRequest(config=pb.PodSandboxConfig(metadata=md)), timeout=10)
            assert len(rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=10).items) == 3
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
