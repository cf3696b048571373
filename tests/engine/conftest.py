"""Fixtures for driving the engine directly (with the container simulation as its Programs),
on a fake clock with readable ids: tests/helpers/engine_fixtures.py, shared with tests/sim."""
from __future__ import annotations

from helpers.engine_fixtures import clock, events, joined, pods, runtime, sink

__all__ = ["clock", "events", "joined", "pods", "runtime", "sink"]
