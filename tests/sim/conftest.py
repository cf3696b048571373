"""Fixtures for the container simulation: the engine joined to it on a fake clock, and
records with fixed times for the stats tests."""
from __future__ import annotations

import pytest
from helpers.core_pods import Joined, Pod
from helpers.stat_records import make_container, make_sandbox

from fakecri.engine.clock import FakeClock


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def joined(clock):
    return Joined(clock)


@pytest.fixture
def runtime(joined):
    return joined.runtime


@pytest.fixture
def sink(joined):
    """What containers wrote (`sink.lines(path)`)."""
    return joined.log


@pytest.fixture
def events(joined):
    """`events()`: the events since the last call."""
    return joined.events


@pytest.fixture
def pods(runtime):
    return Pod(runtime)


@pytest.fixture(name="container", scope="session")
def container_factory():
    """`container(...)`: a container record for the stats tests."""
    return make_container


@pytest.fixture(name="sandbox", scope="session")
def sandbox_factory():
    """`sandbox(...)`: a sandbox record for the stats tests."""
    return make_sandbox
