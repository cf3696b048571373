from prometheus_client import CollectorRegistry, generate_latest

from fakecri.client import PLEGMetrics, register_prometheus
from fakecri.client.pleg.counters import Samples


def test_samples_summarise():
    s = Samples()
    for v in (0.3, 0.1, 0.2):
        s.observe(v)
    assert s.count == 3 and abs(s.total - 0.6) < 1e-9 and s.max == 0.3
    assert abs(s.mean - 0.2) < 1e-9 and s.quantile(0.5) == 0.2
    assert Samples().quantile(0.9) == 0.0


def test_prometheus_export_reads_live_values():
    m = PLEGMetrics()
    registry = CollectorRegistry()
    register_prometheus(m, registry, namespace="t")
    with m.lock:
        m.discard_events = 4
        m.connection_errors = 2
        m.connection_successes = 3
        m.relist_duration.observe(0.5)
        m.missed_by_type["ContainerDied"] += 2
        m.event_latency.observe(0.01)
    text = generate_latest(registry).decode()
    assert "t_pleg_discard_events_total 4.0" in text
    assert "t_evented_pleg_connection_error_count_total 2.0" in text
    assert "t_evented_pleg_connection_success_count_total 3.0" in text
    assert "t_pleg_relist_duration_seconds_count 1.0" in text
    assert 't_pod_missed_events_total{type="ContainerDied"} 2.0' in text
    assert "t_evented_pleg_connection_latency_seconds_sum 0.01" in text
    assert m.as_dict()["pleg_discard_events"] == 4
