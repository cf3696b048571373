"""Fixtures for driving the engine directly, with the container simulation as its Programs,
on a fake clock with readable ids: shared by tests/engine and tests/sim (each conftest
imports them)."""
from __future__ import annotations

import pytest

from fakecri.engine.clock import FakeClock
from helpers.core_pods import Joined, Pod


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
