"""The engine asks its Programs port and hands it what it needs; the port never reads the
engine back (issue 32): while the engine creates, starts, runs, stops and removes a container
of the real simulation, the simulation's view of the engine is never touched."""
from __future__ import annotations

from typing import Any

from fakecri.engine.clock import FakeClock, RandomIds
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
    sim = Simulation(catalog, clock=clock)
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


def test_the_user_a_container_runs_as_is_settled_at_its_creation():
    """The port's answer to `check` is recorded with the container (as containerd settles the user
    into the OCI spec at CreateContainer), so a status never asks the simulation for it."""
    from fakecri.engine.records import RunAs
    from fakecri.engine.specs import ContainerSpec

    catalog = Catalog()
    sim = Simulation(catalog)
    runtime = Runtime(FakeClock(), RandomIds(1), programs=sim, registry=catalog)
    sim.watch(runtime)
    runtime.images.pull("busybox")
    sb = runtime.run_pod_sandbox(name="p", namespace="ns", uid="u")
    c = runtime.create_container(sb.id, name="c", image="busybox",
                                 spec=ContainerSpec(run_as_user=1000, run_as_group=3000, supplemental_groups=(4000,)))
    assert c.user == RunAs(1000, 3000, (3000, 4000))
    assert runtime.get_container(c.id).user == c.user
    root = runtime.create_container(sb.id, name="root", image="busybox")
    assert root.user is not None and root.user.uid == 0
    # The answer is kept by image and spec: the same spec again is the same record, another spec its own.
    spec = ContainerSpec(run_as_user=1000, run_as_group=3000, supplemental_groups=(4000,))
    again = runtime.create_container(sb.id, name="again", image="busybox", spec=spec)
    assert again.user is c.user
    other = runtime.create_container(sb.id, name="other", image="busybox", spec=ContainerSpec(run_as_user=1000))
    assert other.user == RunAs(1000, 0, (0,))


def test_a_status_asks_the_image_content_only_of_a_record_without_its_user():
    import dataclasses

    from fakecri.server.codec.encode import StatusCache
    from fakecri.sim.image_content import BUSYBOX

    catalog = Catalog()
    sim = Simulation(catalog)
    runtime = Runtime(FakeClock(), RandomIds(1), programs=sim, registry=catalog)
    runtime.images.pull("busybox")
    sb = runtime.run_pod_sandbox(name="p", namespace="ns", uid="u")
    c = runtime.create_container(sb.id, name="c", image="busybox")
    asked: list[str] = []
    statuses = StatusCache(runtime, lambda rec: asked.append(rec.id) or BUSYBOX)
    statuses.container_status_bytes(c)
    assert asked == []
    older = dataclasses.replace(c, user=None)  # a record from a state file of an older fakecri
    assert statuses.container_status(older).user == statuses.container_status(c).user
    assert asked == [c.id]


def test_the_plan_is_asked_once_per_run_and_kept_for_its_wakes_and_its_stop():
    from fakecri.engine.records import ContainerState

    clock = FakeClock()
    catalog = Catalog()
    sim = Simulation(catalog, clock=clock)
    asked: list[str] = []

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(sim, name)

        def plan(self, container, sandbox, image):
            asked.append(container.id)
            return sim.plan(container, sandbox, image)

    runtime = Runtime(clock, RandomIds(1), programs=Counting(), registry=catalog)  # type: ignore[arg-type]
    sim.watch(runtime)
    runtime.images.pull("busybox")
    sb = runtime.run_pod_sandbox(name="p", namespace="ns", uid="u")
    c = runtime.create_container(sb.id, name="c", image="busybox",
                                 command=("sh", "-c", "echo a; sleep 1; echo b; sleep 1; echo c; sleep 100"))
    assert asked == []  # creating asks no plan
    runtime.start_container(c.id)
    for _ in range(3):
        clock.advance(1)
        runtime.tick()
    assert len([o for o in runtime.drain_events() if hasattr(o, "text")]) == 3
    assert asked == [c.id]  # the wakes read the kept plan
    restored = Runtime(clock, RandomIds(2), programs=Counting(), registry=catalog)  # type: ignore[arg-type]
    restored.restore(runtime.snapshot())  # a restart: the plan is not in the state file
    assert restored.stop_container(c.id, 30) == 30.0  # PID 1 ignores SIGTERM: the stop takes its timeout
    restored.complete_stop(c.id)
    assert asked == [c.id, c.id]  # asked again once, after the restore
    assert restored.get_container(c.id).state == ContainerState.EXITED
    assert c.id not in restored.store.plans  # an exited container's plan is not kept
