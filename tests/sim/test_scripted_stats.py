"""Scripted stats: the curve grammar, and figures that are pure functions of the record,
its script and the time."""
from __future__ import annotations

from dataclasses import replace

import pytest
from helpers.stat_records import MIB, T0, make_container, make_sandbox
from hypothesis import given, settings
from hypothesis import strategies as st

from fakecri.engine.errors import FailedPrecondition, InvalidArgument
from fakecri.engine.records import ContainerState
from fakecri.sim.curves import BYTES, CORES, NANO, PERCENT, parse_curve
from fakecri.sim.pod_metrics import pod_sandbox_metrics
from fakecri.sim.stats import container_fs_usage, container_stats, pod_sandbox_stats
from fakecri.sim.stats_script import EMPTY, parse_figures, script_from_settings

S = NANO
GI = 1024 * MIB


def script(**figures):
    return script_from_settings({"fakecri.io/" + k.replace("_", "-"): v for k, v in figures.items()})


@pytest.mark.parametrize("text, unit, value", [
    ("50Mi", BYTES, 50 * MIB), ("1.5Gi", BYTES, 3 * GI // 2), ("200M", BYTES, 200_000_000), ("1048576", BYTES, MIB),
    ("2k", BYTES, 2000), ("250m", CORES, NANO // 4), ("1.5", CORES, 3 * NANO // 2), ("2", CORES, 2 * NANO),
    ("12.5", PERCENT, 125_000), ("40%", PERCENT, 400_000),
])
def test_quantities(text, unit, value):
    assert parse_curve(text, unit).at(123 * S) == value


def test_a_ramp_and_steps():
    ramp = parse_curve("0->200Mi over 60s", BYTES)
    assert [ramp.at(t * S) // MIB for t in (0, 15, 30, 60, 600)] == [0, 50, 100, 200, 200]
    steps = parse_curve("steps 10Mi@5s, 100Mi@30s", BYTES)
    assert [steps.at(t * S) // MIB for t in (0, 5, 29, 30, 99)] == [0, 10, 10, 100, 100]
    assert steps.integral(40 * S) == (10 * MIB * 25 + 100 * MIB * 10) * S


@pytest.mark.parametrize("text, unit, says", [
    ("", BYTES, "is not a value or a curve"),
    ("lots", BYTES, "is not bytes (examples: 50Mi"),
    ("5Qi", BYTES, "unknown unit 'Qi'"),
    ("-5Mi", BYTES, "is not bytes"),
    ("100Mi", CORES, "unknown unit 'Mi' for cores"),
    ("150", PERCENT, "is more than percent can be"),
    ("steps", BYTES, "steps needs VALUE@TIME pairs"),
    ("steps 1Mi@2s,2Mi@1s", BYTES, "the times must increase"),
    ("steps 1Mi", BYTES, "is not VALUE@TIME"),
    ("steps 1Mi@soon", BYTES, "'soon' is not a duration"),
    ("0->1Gi over 0s", BYTES, "the ramp's duration must be above zero"),
    ("0 -> over 2s", BYTES, "is not a ramp 'FROM->TO over DURATION'"),
    ("0->1Gi", BYTES, "is not a ramp"),
])
def test_bad_curves_say_what_is_wrong(text, unit, says):
    with pytest.raises(ValueError) as exc:
        parse_curve(text, unit)
    assert says in str(exc.value)


@pytest.mark.parametrize("key, value, says", [
    ("memory", "lots", "annotation fakecri.io/memory: 'lots' is not bytes"),
    ("cpu", "1Gi", "annotation fakecri.io/cpu: '1Gi': unknown unit 'Gi' for cores"),
    ("psi", "memory=40", "annotation fakecri.io/psi: 'memory=40' is not RESOURCE.KIND=CURVE"),
    ("psi", "disk.some=4", "is not RESOURCE.KIND=CURVE"),
    ("psi", " ; ", "no pressure given"),
    ("disk", "steps 1@2s,1@1s", "annotation fakecri.io/disk: step '1@1s': the times must increase"),
])
def test_bad_annotations_are_invalid_argument_naming_them(key, value, says):
    with pytest.raises(InvalidArgument) as exc:
        script_from_settings({"fakecri.io/" + key: value})
    assert says in exc.value.message


def test_memory_as_scripted_even_above_the_limit():
    c = make_container(limit=100 * MIB)
    sc = script(memory="0->200Mi over 60s", memory_usage="300Mi", memory_rss="10Mi")
    m = container_stats(c, T0 + 30 * S, sc).memory
    assert (m.working_set_bytes, m.usage_bytes, m.rss_bytes, m.available_bytes) == (100 * MIB, 300 * MIB, 10 * MIB, 0)
    m = container_stats(c, T0 + 90 * S, sc).memory
    assert (m.working_set_bytes, m.available_bytes) == (200 * MIB, 0)
    m = container_stats(c, T0 + 15 * S, script(memory="0->200Mi over 60s")).memory
    assert m.working_set_bytes == m.usage_bytes == m.rss_bytes == 50 * MIB and m.available_bytes == 50 * MIB
    # usage is never below the working set, RSS never above usage
    m = container_stats(c, T0 + 30 * S, script(memory="80Mi", memory_usage="20Mi", memory_rss="1Gi")).memory
    assert (m.working_set_bytes, m.usage_bytes, m.rss_bytes) == (80 * MIB, 80 * MIB, 80 * MIB)
    exited = make_container(state=ContainerState.EXITED, finished=T0 + 10 * S)
    assert container_stats(exited, T0 + 30 * S, sc).memory.working_set_bytes == 0


def test_cpu_rate_and_its_exact_counter():
    sc = script(cpu="0->2 over 10s")
    s = container_stats(make_container(), T0 + 20 * S, sc).cpu
    assert s.usage_nano_cores == 2 * NANO
    assert s.usage_core_nano_seconds == 30 * NANO  # 10 s ramping to 2 cores, then 10 s at 2
    exited = make_container(state=ContainerState.EXITED, finished=T0 + 10 * S)
    e = container_stats(exited, T0 + 99 * S, sc).cpu
    assert (e.usage_nano_cores, e.usage_core_nano_seconds) == (0, 10 * NANO)


def test_a_later_curve_takes_over_from_the_default_and_the_counter_never_drops():
    c = make_container()
    plain = container_stats(c, T0 + 100 * S).cpu.usage_core_nano_seconds
    sc = EMPTY.with_curves(parse_figures({"cpu": "3"}, str), T0 + 100 * S)
    assert container_stats(c, T0 + 100 * S, sc).cpu.usage_core_nano_seconds == plain
    assert container_stats(c, T0 + 50 * S, sc).cpu == container_stats(c, T0 + 50 * S).cpu  # before: the default
    after = container_stats(c, T0 + 110 * S, sc).cpu
    assert (after.usage_nano_cores, after.usage_core_nano_seconds) == (3 * NANO, plain + 30 * NANO)


@settings(max_examples=60, deadline=None)
@given(sets=st.lists(st.tuples(st.integers(0, 300), st.sampled_from(["0", "250m", "4", "0->3 over 20s",
                                                                        "steps 1@0s,0@5s,2@7s"])), max_size=5),
       steps=st.lists(st.integers(0, 50 * S), min_size=2, max_size=30))
def test_the_cpu_counter_only_grows_whatever_is_set_when(sets, steps):
    sc = script(cpu="500m")
    for at_s, text in sorted(sets):
        sc = sc.with_curves(parse_figures({"cpu": text}, str), T0 + at_s * S)
    c = make_container()
    now, last = T0, -1
    for step in steps:
        now += step
        total = container_stats(c, now, sc).cpu.usage_core_nano_seconds
        assert total >= last
        last = total


def test_disk_is_held_from_the_exit_and_summed_for_image_fs_info():
    sc = script(disk="steps 1Mi@0s,1Gi@30s")
    assert container_stats(make_container(), T0 + 31 * S, sc).writable_layer.used_bytes == GI
    exited = make_container("e" * 64, state=ContainerState.EXITED, finished=T0 + 10 * S)
    assert container_stats(exited, T0 + 60 * S, sc).writable_layer.used_bytes == MIB
    both = container_fs_usage([make_container(), exited], T0 + 60 * S, lambda c: sc)
    assert both.used_bytes == GI + MIB


def test_pressure_totals_and_averages():
    sc = script(psi="memory.some=40; io.full=0->50 over 100s")
    s = container_stats(make_container(), T0 + 30 * S, sc)
    assert s.cpu.psi is None
    some = s.memory.psi.some
    assert (some.total_ns, some.avg10, some.avg60, some.avg300) == (12 * S, 40.0, 20.0, 4.0)
    assert s.memory.psi.full.total_ns == 0
    full = s.io.psi.full
    assert (full.total_ns, full.avg10, full.avg60) == (2_250_000_000, 12.5, 3.75)  # 15 % at 30 s
    assert container_stats(make_container(), T0 + 30 * S, script(memory="1Mi")).io is None  # none unscripted


def test_the_pod_sums_its_containers_and_metrics_agree():
    a = make_container("a" * 64)
    b = make_container("b" * 64)
    scripts = {a.id: script(memory="100Mi", cpu="1", psi="memory.some=10"), b.id: script(memory="50Mi",
                                                                                          psi="memory.some=30")}
    sb = make_sandbox(limit=64 * MIB)  # a scripted pod is reported as scripted, above its limit too
    now = T0 + 20 * S
    pod = pod_sandbox_stats(sb, [a, b], now, scripts=lambda c: scripts[c.id])
    assert pod.memory.working_set_bytes == 150 * MIB + 320 * 1024  # and the pause container
    assert pod.cpu.usage_nano_cores == NANO + container_stats(b, now).cpu.usage_nano_cores
    assert pod.memory.psi.some.avg10 == 30.0  # the most of any container
    metrics = pod_sandbox_metrics(sb, [a, b], now, scripts=lambda c: scripts[c.id])
    ws = {m.container_id: next(x.value for x in m.metrics if x.name == "container_memory_working_set_bytes")
          for m in metrics.container_metrics}
    assert ws == {a.id: 100 * MIB, b.id: 50 * MIB}


def test_same_inputs_same_figures():
    sc = script(cpu="0->1 over 7s", memory="steps 1Mi@0s,9Mi@3s", disk="5Mi", psi="cpu.some=3")
    c = make_container()
    assert container_stats(c, T0 + 5 * S, sc) == container_stats(replace(c), T0 + 5 * S, script(
        cpu="0->1 over 7s", memory="steps 1Mi@0s,9Mi@3s", disk="5Mi", psi="cpu.some=3"))


def test_set_stats_through_the_simulation(joined, pods, clock):
    sb = pods.sandbox(annotations={"fakecri.io/memory.app": "10Mi", "fakecri.io/cpu": "100m"})
    c = pods.running(sb)
    other = pods.running(sb, "other")
    sim = joined.sim
    assert container_stats(c, clock.now_ns(), sim.stats_script(c)).memory.working_set_bytes == 10 * MIB
    assert sim.stats_script(other).get("memory") is None and sim.stats_script(other).get("cpu") is not None
    clock.advance(10)
    sim.set_stats(c, {"memory": "0->100Mi over 10s"}, clock.now_ns())
    clock.advance(5)
    assert container_stats(c, clock.now_ns(), sim.stats_script(c)).memory.working_set_bytes == 50 * MIB
    sim.set_stats(c, {}, clock.now_ns(), clear=True)  # the annotations hold again
    assert container_stats(c, clock.now_ns(), sim.stats_script(c)).memory.working_set_bytes == 10 * MIB
    with pytest.raises(InvalidArgument, match="SetStats: memory_usage: 'x' is not bytes"):
        sim.set_stats(c, {"memory-usage": "x"}, clock.now_ns())
    with pytest.raises(InvalidArgument, match="give at least one figure"):
        sim.set_stats(c, {}, clock.now_ns())
    joined.runtime.stop_container(c.id, 0)
    with pytest.raises(FailedPrecondition, match="EXITED"):
        sim.set_stats(joined.runtime.get_container(c.id), {"memory": "1Mi"}, clock.now_ns())


def test_bad_stats_annotations_fail_create_and_run_pod_sandbox(pods):
    sb = pods.sandbox()
    with pytest.raises(InvalidArgument, match="annotation fakecri.io/disk: 'big' is not bytes"):
        pods.container(sb, annotations={"fakecri.io/disk": "big"})
    with pytest.raises(InvalidArgument, match="annotation fakecri.io/memory: "):
        pods.sandbox(annotations={"fakecri.io/memory.app": "0->lots over 1s"})
