"""--pull-policy: any image name pulls (the default), or only what the catalog lists
(strict), with NOT_FOUND for the rest as a registry answers. The flag, the config key
and the FAKECRI_ variable all come from the one ServerConfig field."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import grpc
import pytest
from click.testing import CliRunner

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.cli import main
from fakecri.server.process.app import FakeCRIServer, short_socket_path

STRANGER = "does-not-exist.example.com/foo/bar:nope"


def _pull(endpoint: str, ref: str) -> grpc.StatusCode:
    with grpc.insecure_channel(endpoint) as ch:
        grpc.channel_ready_future(ch).result(timeout=60)
        img = api_pb2_grpc.ImageServiceStub(ch)
        try:
            img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=ref)), timeout=30)
        except grpc.RpcError as err:
            if err.code() == grpc.StatusCode.NOT_FOUND:
                assert "failed to pull and unpack image" in err.details() and ": not found" in err.details()
            return err.code()
        return grpc.StatusCode.OK


@pytest.mark.parametrize("policy, stranger", [("any", grpc.StatusCode.OK), ("strict", grpc.StatusCode.NOT_FOUND)])
def test_pull_policy(tmp_path, policy, stranger):
    with FakeCRIServer(pull_policy=policy, state_root=str(tmp_path / "root")) as server:
        assert _pull(server.endpoint, STRANGER) == stranger
        assert _pull(server.endpoint, "busybox:1.36") == grpc.StatusCode.OK


def test_strict_with_a_catalog_file(tmp_path):
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text("images:\n  - tags: [registry.example.com/team/app:1]\n")
    with FakeCRIServer(pull_policy="strict", image_catalog=str(catalog), state_root=str(tmp_path / "root")) as s:
        assert _pull(s.endpoint, "registry.example.com/team/app:1") == grpc.StatusCode.OK
        assert _pull(s.endpoint, "busybox:1.36") == grpc.StatusCode.NOT_FOUND  # the file lists all there is


def test_serve_offers_it():
    out = CliRunner().invoke(main, ["serve", "--help"]).output
    assert "--pull-policy [any|strict]" in out


@pytest.mark.parametrize("how", ["flag", "variable", "config file"])
def test_flag_variable_and_config_key(tmp_path, how):
    sock = short_socket_path()
    args = [sys.executable, "-m", "fakecri.cli", "serve", "--socket", sock, "--root", str(tmp_path / "root"),
            "--log-level", "error"]
    env = dict(os.environ)
    if how == "flag":
        args += ["--pull-policy", "strict"]
    elif how == "variable":
        env["FAKECRI_PULL_POLICY"] = "strict"
    else:
        config = tmp_path / "fakecri.toml"
        config.write_text('pull_policy = "strict"\n')
        args += ["--config", str(config)]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert _pull("unix:" + sock, STRANGER) == grpc.StatusCode.NOT_FOUND
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err


def test_a_bad_policy_names_the_flag():
    result = CliRunner().invoke(main, ["serve", "--pull-policy", "some", "--socket", short_socket_path()])
    assert result.exit_code == 2 and "'--pull-policy'" in result.output
