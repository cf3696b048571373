"""Fixtures for the container simulation: the engine joined to it on a fake clock
(tests/helpers/engine_fixtures.py, shared with tests/engine), a container to run applets in,
and records with fixed times for the stats tests."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import container_box
from helpers.engine_fixtures import clock, events, joined, pods, runtime, sink
from helpers.stat_records import make_container, make_sandbox

__all__ = ["clock", "events", "joined", "pods", "runtime", "sink"]


@pytest.fixture(name="container", scope="session")
def container_factory():
    """`container(...)`: a container record for the stats tests."""
    return make_container


@pytest.fixture(name="sandbox", scope="session")
def sandbox_factory():
    """`sandbox(...)`: a sandbox record for the stats tests."""
    return make_sandbox


@pytest.fixture(scope="module")
def box():
    """(joined, container id): one running container per test module, for the applet cases
    that run in a container (helpers/applet_oracle.py: in_container, check_files)."""
    return container_box()
