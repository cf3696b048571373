"""Prometheus metrics scraped over HTTP after a pod lifecycle."""
from __future__ import annotations

import threading
import urllib.error
import urllib.request

import grpc
import pytest
from helpers.operations import TIMEOUT, run_pod, sample, scrape, scrape_until, wait_for

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.control.v1 import control_pb2_grpc
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer, StartupError


@pytest.fixture
def served():
    with FakeCRIServer(seed=3, metrics_addr="127.0.0.1:0") as srv:
        ch = grpc.insecure_channel("unix:" + srv.config.socket)
        yield srv, ch
        ch.close()
        srv.check()


class Events:
    """A GetContainerEvents stream read on a thread."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.items: list[pb.ContainerEventResponse] = []
        self.call = api_pb2_grpc.RuntimeServiceStub(channel).GetContainerEvents(pb.GetEventsRequest())
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for ev in self.call:
                self.items.append(ev)
        except grpc.RpcError:
            pass

    def close(self) -> None:
        self.call.cancel()
        self.thread.join(TIMEOUT)


def test_pod_lifecycle_figures(served):
    srv, ch = served
    url = srv.addresses()["metrics"]
    rt, img = api_pb2_grpc.RuntimeServiceStub(ch), api_pb2_grpc.ImageServiceStub(ch)
    ctl = control_pb2_grpc.ControlStub(ch)

    events = Events(ch)
    scrape_until(url, "fakecri_event_subscribers", 1)
    sid, cid = run_pod(rt, img, "web", "uid-web")

    m = scrape(url)
    assert sample(m, "fakecri_sandboxes", state="READY") == 1
    assert sample(m, "fakecri_containers", state="RUNNING") == 1
    assert sample(m, "fakecri_images", state="unpinned") == 1
    assert sample(m, "fakecri_rpcs_total", method="RunPodSandbox", code="OK") == 1
    assert sample(m, "fakecri_rpc_duration_seconds_count", method="StartContainer", code="OK") == 1
    assert sample(m, "fakecri_rpc_duration_seconds_bucket", method="StartContainer", code="OK", le="+Inf") == 1

    rt.StopContainer(pb.StopContainerRequest(container_id=cid, timeout=0), timeout=TIMEOUT)
    rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid), timeout=TIMEOUT)
    m = scrape(url)
    assert sample(m, "fakecri_containers", state="EXITED") == 1 and sample(m, "fakecri_containers",
                                                                           state="RUNNING") == 0
    assert sample(m, "fakecri_sandboxes", state="NOTREADY") == 1

    ctl.AddFault(cpb.AddFaultRequest(fault=cpb.Fault(name="flaky-list", type="error", target="ListImages",
                                                     count=2, attributes={"code": "UNAVAILABLE"})), timeout=TIMEOUT)
    for _ in range(3):
        try:
            img.ListImages(pb.ListImagesRequest(), timeout=TIMEOUT)
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.UNAVAILABLE
    rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=sid), timeout=TIMEOUT)

    emitted = srv.call(lambda: srv.node.counters["events_emitted"])
    wait_for(lambda: len(events.items) == emitted, what="every event to arrive")
    m = scrape_until(url, "fakecri_events_delivered_total", emitted)
    assert emitted >= 6  # sandbox created/started/stopped/deleted, container created/started/stopped/deleted
    assert sample(m, "fakecri_events_emitted_total") == emitted
    assert sample(m, "fakecri_subscriber_events_total", subscriber="0", outcome="delivered") == emitted
    assert sample(m, "fakecri_subscriber_events_total", subscriber="0", outcome="dropped") == 0
    assert sample(m, "fakecri_events_dropped_total") == 0
    assert sample(m, "fakecri_faults_injected_total", fault="flaky-list") == 2
    assert sample(m, "fakecri_rpcs_total", method="ListImages", code="UNAVAILABLE") == 2
    assert sample(m, "fakecri_rpcs_total", method="ListImages", code="OK") == 1
    assert sample(m, "fakecri_sandboxes", state="NOTREADY") == 0 and sample(m, "fakecri_containers",
                                                                            state="EXITED") == 0

    events.close()
    m = scrape_until(url, "fakecri_event_subscribers", 0)
    assert sample(m, "fakecri_rpcs_total", method="GetContainerEvents", code="CANCELLED") == 1


def test_dropped_events_are_counted_per_subscriber():
    with FakeCRIServer(seed=3, metrics_addr="127.0.0.1:0", subscriber_policy="drop", subscriber_buffer=1) as srv:
        url = srv.addresses()["metrics"]

        def fill():
            sub, _ = srv.node.subscribe()  # a subscriber that never reads
            with srv.node.changing():
                for n in range(3):
                    srv.node.runtime.run_pod_sandbox(name=f"p{n}", namespace="ns", uid=f"u{n}", attempt=0,
                                                       labels={}, annotations={}, hostname="", log_directory="",
                                                       runtime_handler="")
            return sub

        sub = srv.call(fill)
        m = scrape(url)
        # Six events (created + started per sandbox) into a queue of one: five dropped.
        assert sample(m, "fakecri_subscriber_events_total", subscriber="0", outcome="dropped") == 5
        assert sample(m, "fakecri_subscriber_queue_length", subscriber="0") == 1
        assert sample(m, "fakecri_events_dropped_total") == 5
        srv.call(lambda: srv.node.unsubscribe(sub))
        m = scrape(url)
        assert sample(m, "fakecri_events_dropped_total") == 5 and sample(m, "fakecri_event_subscribers") == 0


def test_each_server_has_its_own_registry(served):
    srv, ch = served
    with FakeCRIServer(metrics_addr="127.0.0.1:0") as other:
        api_pb2_grpc.RuntimeServiceStub(ch).Version(pb.VersionRequest(), timeout=TIMEOUT)
        assert sample(scrape(srv.addresses()["metrics"]), "fakecri_rpcs_total", method="Version", code="OK") == 1
        assert sample(scrape(other.addresses()["metrics"]), "fakecri_rpcs_total", method="Version", code="OK") == 0
    from prometheus_client import REGISTRY

    assert REGISTRY.get_sample_value("fakecri_rpc_duration_seconds_count") is None


def test_unknown_path_is_404(served):
    srv, _ = served
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(srv.addresses()["metrics"].replace("/metrics", "/nope"), timeout=TIMEOUT)
    assert err.value.code == 404


def test_metrics_port_in_use_stops_startup(served):
    srv, _ = served
    port = srv.addresses()["metrics"].rsplit(":", 1)[1].split("/")[0]
    with pytest.raises(StartupError, match=f"cannot serve metrics on 127.0.0.1:{port}"):
        FakeCRIServer(metrics_addr=f"127.0.0.1:{port}").start()
