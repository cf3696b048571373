"""Container and sandbox stats: monotone CPU, memory under limits, consistency."""
from hypothesis import given, settings
from hypothesis import strategies as st

from fakecri.engine.clock import NS_PER_S
from fakecri.engine.records import ContainerState, SandboxState
from fakecri.sim.stats import (
    CONTAINER_FS_MOUNTPOINT,
    container_fs_usage,
    container_stats,
    cpu_total_ns,
    pod_sandbox_stats,
    running_ns,
)

T0 = 1_767_225_600 * NS_PER_S
MIB = 1024 * 1024
ids = st.text("0123456789abcdef", min_size=64, max_size=64)


@settings(max_examples=60, deadline=None)
@given(cid=ids, steps=st.lists(st.integers(0, 400 * NS_PER_S), min_size=2, max_size=30))
def test_cpu_counter_only_grows(container, cid, steps):
    c = container(cid)
    now, last = T0, -1
    for step in steps:
        now += step
        total = container_stats(c, now).cpu.usage_core_nano_seconds
        assert total >= last
        last = total


@settings(max_examples=40, deadline=None)
@given(cid=ids, seconds=st.integers(1, 10_000))
def test_cpu_rate_plausible(container, cid, seconds):
    s = container_stats(container(cid), T0 + seconds * NS_PER_S)
    assert 0 < s.cpu.usage_nano_cores <= 250_000_000  # at most a quarter core
    assert 0 < s.cpu.usage_core_nano_seconds <= seconds * 250_000_000


def test_cpu_frozen_after_exit_and_zero_before_start(container):
    c = container(state=ContainerState.EXITED, finished=T0 + 30 * NS_PER_S)
    a, b = container_stats(c, T0 + 60 * NS_PER_S), container_stats(c, T0 + 3600 * NS_PER_S)
    assert a.cpu.usage_core_nano_seconds == b.cpu.usage_core_nano_seconds > 0
    assert a.cpu.usage_nano_cores == 0
    running = container()
    assert cpu_total_ns(running, T0 + 30 * NS_PER_S) == a.cpu.usage_core_nano_seconds
    created = container(state=ContainerState.CREATED, started=0)
    assert running_ns(created, T0 + NS_PER_S) == 0
    assert container_stats(created, T0 + NS_PER_S).cpu.usage_core_nano_seconds == 0


def test_deterministic_and_differs_between_containers(container):
    now = T0 + 90 * NS_PER_S
    assert container_stats(container("a" * 64), now) == container_stats(container("a" * 64), now)
    assert container_stats(container("a" * 64), now).cpu != container_stats(container("b" * 64), now).cpu


@settings(max_examples=80, deadline=None)
@given(cid=ids, limit=st.integers(1, 512 * MIB), seconds=st.integers(0, 5000))
def test_memory_stays_under_limit(container, cid, limit, seconds):
    m = container_stats(container(cid, limit=limit), T0 + seconds * NS_PER_S).memory
    assert m.working_set_bytes < limit and m.usage_bytes < limit
    assert m.rss_bytes <= m.working_set_bytes <= m.usage_bytes
    assert m.available_bytes == limit - m.working_set_bytes


def test_memory_without_limit_is_plausible_and_zero_after_exit(container):
    m = container_stats(container(image="registry.example.com/app", command=["/app"]), T0 + 60 * NS_PER_S).memory
    assert 4 * MIB <= m.working_set_bytes <= 128 * MIB and m.available_bytes == 0
    m = container_stats(container(), T0 + 60 * NS_PER_S).memory
    assert m.page_faults > m.major_page_faults >= 0
    exited = container(state=ContainerState.EXITED, finished=T0 + 60 * NS_PER_S)
    e = container_stats(exited, T0 + 120 * NS_PER_S).memory
    assert e.working_set_bytes == e.usage_bytes == 0 and e.page_faults == m.page_faults


@settings(max_examples=60, deadline=None)
@given(cid=ids, seconds=st.integers(0, 5000))
def test_memory_is_the_programs_not_a_share_of_the_limit(container, cid, seconds):
    """busybox (its shell, by the image's default or by name) holds under 2 MiB, whatever the limit,
    so the kubelet's check before a lower limit (usage below the new limit) lets a resize of the
    e2e's 35Mi container to 30Mi through; agnhost holds some MiB; a program fakecri cannot see
    into, 4 MiB and up."""
    now = T0 + seconds * NS_PER_S
    for kind in (dict(), dict(command=["/bin/sh", "-c", "sleep 1d"]), dict(command=["sleep", "3600"])):
        for limit in (0, 35 * MIB, 1024 * MIB):
            m = container_stats(container(cid, limit=limit, **kind), now).memory
            assert 0 < m.rss_bytes <= m.working_set_bytes <= m.usage_bytes < 2 * MIB
    m = container_stats(container(cid, image="registry.k8s.io/e2e-test-images/agnhost:2.53"), now).memory
    assert 3 * MIB <= m.working_set_bytes <= 24 * MIB
    m = container_stats(container(cid, image="quay.io/me/app:1", command=["/srv/app"]), now).memory
    assert 4 * MIB <= m.working_set_bytes <= 96 * MIB


def test_fields_timestamps_swap_and_writable_layer(container):
    now = T0 + 5 * NS_PER_S
    s = container_stats(container(limit=100 * MIB, swap=300 * MIB), now)
    assert (s.container_id, s.sandbox_id, s.name, s.labels, s.annotations) == ("c" * 64, "s" * 64, "app", {"k": "v"},
                                                                               {"a": "b"})
    assert s.cpu.timestamp_ns == s.memory.timestamp_ns == s.swap.timestamp_ns == s.writable_layer.timestamp_ns == now
    assert s.swap.swap_available_bytes == 200 * MIB and s.swap.swap_usage_bytes == 0
    assert s.writable_layer.used_bytes >= 4096 and s.writable_layer.inodes_used >= 1
    assert s.writable_layer.mountpoint == CONTAINER_FS_MOUNTPOINT
    total = container_fs_usage([container("a" * 64), container("b" * 64)], now)
    assert total.used_bytes == sum(container_stats(container(x * 64), now).writable_layer.used_bytes for x in "ab")


def test_sandbox_stats_sum_their_containers(container, sandbox):
    now = T0 + 100 * NS_PER_S
    cs = [container("a" * 64), container("b" * 64, state=ContainerState.EXITED, finished=T0 + 10 * NS_PER_S)]
    p = pod_sandbox_stats(sandbox(), cs, now, removed_cpu_ns=7)
    assert [c.container_id for c in p.containers] == ["a" * 64, "b" * 64]
    assert p.cpu.usage_core_nano_seconds == 7 + sum(c.cpu.usage_core_nano_seconds for c in p.containers)
    assert p.cpu.usage_nano_cores == p.containers[0].cpu.usage_nano_cores
    assert p.memory.working_set_bytes > sum(c.memory.working_set_bytes for c in p.containers)
    assert p.process_count == 2
    assert p.network.interface == "eth0" and p.network.rx_bytes > 0 and p.network.tx_bytes > 0
    later = pod_sandbox_stats(sandbox(), cs, now + 60 * NS_PER_S)
    assert later.network.rx_bytes > p.network.rx_bytes
    assert (p.name, p.namespace, p.uid, p.labels) == ("pod", "ns", "u1", {"app": "x"})


def test_sandbox_memory_under_its_limit_and_stopped_sandbox(container, sandbox):
    cs = [container(x * 64) for x in "abcd"]
    p = pod_sandbox_stats(sandbox(limit=8 * MIB), cs, T0 + 600 * NS_PER_S)
    assert p.memory.working_set_bytes < 8 * MIB and p.memory.usage_bytes < 8 * MIB
    stopped = pod_sandbox_stats(sandbox(SandboxState.NOTREADY), [], T0)
    assert stopped.network is None and stopped.process_count == 0 and stopped.memory.working_set_bytes == 0
