"""ListMetricDescriptors / ListPodSandboxMetrics figures."""
from fakecri.engine.clock import NS_PER_S
from fakecri.engine.records import ContainerState, SandboxState
from fakecri.sim.pod_metrics import BASE_LABEL_KEYS, MetricType, metric_descriptors, pod_sandbox_metrics
from fakecri.sim.stats import container_stats, pod_sandbox_stats

T0 = 1_767_225_600 * NS_PER_S


def test_descriptors_are_a_fixed_named_set_with_help_and_labels():
    ds = metric_descriptors()
    names = [d.name for d in ds]
    assert len(names) == len(set(names)) >= 5
    assert {"container_cpu_usage_seconds_total", "container_memory_working_set_bytes"} <= set(names)
    for d in ds:
        assert d.help and d.label_keys[:3] == BASE_LABEL_KEYS


def test_metrics_match_stats_and_descriptors(container, sandbox):
    now = T0 + 3600 * NS_PER_S
    cs = [container("a" * 64), container("b" * 64, state=ContainerState.EXITED, finished=T0 + NS_PER_S)]
    sb = sandbox()
    pm = pod_sandbox_metrics(sb, cs, now)
    stats = pod_sandbox_stats(sb, cs, now)
    keys = {d.name: d.label_keys for d in metric_descriptors()}
    assert pm.pod_sandbox_id == sb.id
    assert [cm.container_id for cm in pm.container_metrics] == ["a" * 64, "b" * 64]
    for cm, c in zip(pm.container_metrics, cs, strict=True):
        by_name = {m.name: m for m in cm.metrics}
        s = container_stats(c, now)
        assert by_name["container_cpu_usage_seconds_total"].value == s.cpu.usage_core_nano_seconds // NS_PER_S
        assert by_name["container_cpu_usage_seconds_total"].metric_type == MetricType.COUNTER
        assert by_name["container_memory_working_set_bytes"].value == s.memory.working_set_bytes
        assert by_name["container_memory_working_set_bytes"].metric_type == MetricType.GAUGE
        assert by_name["container_fs_usage_bytes"].value == s.writable_layer.used_bytes
        for m in cm.metrics:
            assert len(m.label_values) == len(keys[m.name]) and m.label_values[0] == c.id
            assert m.timestamp_ns == now
    net = {m.name: m.value for m in pm.metrics}
    assert net["container_network_receive_bytes_total"] == stats.network.rx_bytes
    assert pm.container_metrics[0].metrics[0].value > 0


def test_stopped_sandbox_has_no_network_metrics(sandbox):
    pm = pod_sandbox_metrics(sandbox(SandboxState.NOTREADY), [], T0)
    assert pm.metrics == () and pm.container_metrics == ()
