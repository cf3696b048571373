"""Many containers: a creation smoke test (10,000 in the default run, 100,000 with --run-slow)
and the memory each one costs."""
from __future__ import annotations

import gc
import time
import tracemalloc

import pytest
from helpers.core_pods import Joined

from fakecri.engine.clock import FakeClock, RandomIds
from fakecri.engine.records import ContainerState, Resources
from fakecri.engine.runtime import Runtime


def fill(rt: Runtime, sandboxes: int, per: int, *, start: bool) -> None:
    """Pods shaped like a kubelet's: its four labels, five annotations, a log path, resources."""
    for i in range(sandboxes):
        sb = rt.run_pod_sandbox(name=f"pod-{i}", namespace="default", uid=f"uid-{i:08d}",
                                log_directory=f"/var/log/pods/default_pod-{i}_uid-{i:08d}")
        for j in range(per):
            name = f"c{j}"
            c = rt.create_container(
                sb.id, name=name, image="busybox",
                labels={"io.kubernetes.container.name": name, "io.kubernetes.pod.name": f"pod-{i}",
                        "io.kubernetes.pod.namespace": "default", "io.kubernetes.pod.uid": f"uid-{i:08d}"},
                annotations={"io.kubernetes.container.hash": f"{i * per + j:08x}",
                             "io.kubernetes.container.restartCount": "0",
                             "io.kubernetes.container.terminationMessagePath": "/dev/termination-log",
                             "io.kubernetes.container.terminationMessagePolicy": "File",
                             "io.kubernetes.pod.terminationGracePeriod": "30"},
                command=("sleep",), args=("3600",), log_path=f"{name}/0.log",
                resources=Resources(cpu_shares=102, memory_limit_in_bytes=64 << 20),
            )
            if start:
                rt.start_container(c.id)


# The same calls and checks at both sizes; the 100,000 (about 10 s of CPU) is the slow run's.
@pytest.mark.parametrize("pods", [pytest.param(100, id="10k"),
                                  pytest.param(1000, id="100k", marks=pytest.mark.slow)])
def test_many_containers(pods):
    rt = Joined(FakeClock(), RandomIds(seed=1)).runtime
    total = pods * 100
    t0 = time.perf_counter()
    fill(rt, pods, 100, start=True)
    elapsed = time.perf_counter() - t0
    print(f"\n{total:,} containers created and started in {elapsed:.2f}s")
    assert rt.counts()["containers"] == total and rt.counts()["running"] == total
    sb = rt.list_sandboxes()[pods // 2]
    mine = rt.list_containers(sandbox_id=sb.id)
    assert len(mine) == 100 and all(c.sandbox_id == sb.id for c in mine)
    one = mine[42]
    assert rt.list_containers(id=one.id) == [one]
    assert rt.get_container(one.id[:20]) is one
    assert len(rt.list_containers(label_selector={"io.kubernetes.pod.name": sb.name})) == 100
    rt.remove_pod_sandbox(sb.id)
    assert rt.counts()["containers"] == total - 100
    assert rt.list_containers(state=ContainerState.EXITED) == []


def test_memory_per_container_stays_under_4_kib():
    gc.collect()
    tracemalloc.start()
    try:
        rt = Joined(FakeClock(), RandomIds(seed=2)).runtime
        base = tracemalloc.get_traced_memory()[0]
        fill(rt, 100, 100, start=True)
        gc.collect()
        per = (tracemalloc.get_traced_memory()[0] - base) / 10_000
    finally:
        tracemalloc.stop()
    print(f"\n{per:.0f} traced bytes per running container (events outbox included)")
    assert per < 4096
