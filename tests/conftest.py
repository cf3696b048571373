"""Shared fixtures for fakecri's own tests: a real server on a real unix socket."""
from __future__ import annotations

import grpc
import pytest

from fakecri.api.control.v1 import control_pb2_grpc
from fakecri.api.runtime.v1 import api_pb2_grpc

pytest_plugins = ["pytester"]  # tests/plugin runs the fakecri pytest plugin in isolated projects


def _track_socket_dirs():
    """Tests take socket paths from short_socket_path() and hand them to servers they start
    (serve --socket, ServerConfig(socket=...)); those servers remove the socket and its
    lock but not the directory the path was made in. Note each one, and remove those left
    empty when the session ends."""
    import os

    from fakecri.server.process import app

    made: list[str] = []
    plain = app.short_socket_path

    def short_socket_path(name: str = "cri.sock") -> str:
        path = plain(name)
        made.append(os.path.dirname(path))
        return path

    def remove_empty() -> None:
        for directory in made:
            try:
                os.rmdir(directory)
            except OSError:
                pass

    app.short_socket_path = short_socket_path
    return remove_empty


_remove_socket_dirs = _track_socket_dirs()


def pytest_sessionfinish(session, exitstatus):
    _remove_socket_dirs()


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow (soak, long property runs)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def srv():
    """One fakecri for the session, on the system clock, reset before each test that uses `rt`/`img`."""
    from fakecri.server.process.app import FakeCRIServer

    server = FakeCRIServer(seed=7)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def channel(srv):
    srv.reset()
    ch = grpc.insecure_channel("unix:" + srv.config.socket)
    yield ch
    ch.close()
    srv.check()


@pytest.fixture
def rt(channel):
    return api_pb2_grpc.RuntimeServiceStub(channel)


@pytest.fixture
def img(channel):
    return api_pb2_grpc.ImageServiceStub(channel)


@pytest.fixture
def ctl(channel):
    return control_pb2_grpc.ControlStub(channel)


@pytest.fixture
def short_traces(monkeypatch):
    """Tracing a command that never ends stops at fakecri.sim.recording.MAX_STEPS (100,000 steps,
    seconds of CPU for a shell loop) and takes it as endless. Tests about what such a command
    does before and at its stop (its trap, its program kind) see the same at 2,000 steps. The
    servers these tests start in this process trace with the same bound."""
    from fakecri.sim import recording

    monkeypatch.setattr(recording, "MAX_STEPS", 2_000)
