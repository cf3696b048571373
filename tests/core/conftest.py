"""Fixtures for driving the core Runtime directly, on a fake clock with readable ids."""
from __future__ import annotations

import pytest
from helpers.core_pods import Pod
from helpers.stat_records import make_container, make_sandbox

from fakecri.engine.clock import FakeClock
from fakecri.engine.ids import SequentialIds
from fakecri.sim.logsink import MemoryLogSink
from fakecri.engine.runtime import Runtime


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def sink():
    return MemoryLogSink()


@pytest.fixture
def runtime(clock, sink):
    return Runtime(clock, SequentialIds(), log_sink=sink)


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
