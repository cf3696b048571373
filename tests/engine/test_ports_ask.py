"""The engine asks its Programs port and hands it what it needs; the port never reads the
engine back (issue 32): while the engine creates, starts, runs, stops and removes a container
of the real simulation, the simulation's view of the engine is never touched."""
from __future__ import annotations

from typing import Any

from fakecri.engine.clock import FakeClock
from fakecri.engine.ids import RandomIds
from fakecri.engine.runtime import Runtime
from fakecri.sim.catalog import Catalog
from fakecri.sim.simulation import Simulation


class Watched:
    """A view of the engine that records every use while `armed`."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.armed = False
        self.used: list[str] = []

    def __getattr__(self, name: str) -> Any:
        if self.armed:
            self.used.append(name)
        return getattr(self.runtime, name)


def test_the_programs_port_never_reads_the_engine_back():
    clock = FakeClock()
    catalog = Catalog()
    sim = Simulation(catalog)
    runtime = Runtime(clock, RandomIds(1), programs=sim, registry=catalog)
    view = Watched(runtime)
    sim.watch(view)  # type: ignore[arg-type]
    runtime.images.pull("busybox")
    sb = runtime.run_pod_sandbox(name="p", namespace="ns", uid="u")
    view.armed = True
    for name, command in (("echo", ("sh", "-c", "echo hi; sleep 1")), ("look", ("sh", "-c", "cat /etc/hostname"))):
        c = runtime.create_container(sb.id, name=name, image="busybox", command=command)
        runtime.start_container(c.id)
        clock.advance(2)
        runtime.tick()
        runtime.stop_container(c.id, 0)
        runtime.remove_container(c.id)
    runtime.remove_pod_sandbox(sb.id)
    assert view.used == []
