"""A node farm in this process: real sockets, real gRPC, one node runtime per socket."""
from __future__ import annotations

import os
import tempfile
import urllib.request

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from helpers.cri import code_of, sandbox_config

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.control_client import ControlClient, FarmClient
from fakecri.faults.model import Fault
from fakecri.server.config import FarmConfig, ServerConfig
from fakecri.server.process.farm import Farm, check_farm, name_for, node_seed


def _farm(nodes: int = 2, **settings) -> Farm:
    directory = tempfile.mkdtemp(prefix="fm-", dir="/tmp")
    farm_keys = {k: settings.pop(k) for k in list(settings) if k in FarmConfig.__dataclass_fields__}
    config = ServerConfig(quiet=True, state_root=os.path.join(directory, "root"), **settings)
    return Farm(config, FarmConfig(nodes=nodes, socket_dir=os.path.join(directory, "s"), **farm_keys))


@pytest.fixture
def farm():
    with _farm(2, seed=11, metrics_addr="127.0.0.1:0") as f:
        yield f


def runtime(farm: Farm, name: str) -> api_pb2_grpc.RuntimeServiceStub:
    return api_pb2_grpc.RuntimeServiceStub(grpc.insecure_channel("unix:" + farm.socket_of(name)))


def run_sandbox(rt, name: str = "web") -> str:
    return rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config(name, uid=f"uid-{name}")),
                            timeout=10).pod_sandbox_id


def test_each_node_is_a_runtime_of_its_own(farm):
    n0, n1 = runtime(farm, "node-0"), runtime(farm, "node-1")
    first = run_sandbox(n0)
    assert [s.id for s in n0.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=10).items] == [first]
    assert list(n1.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=10).items) == []
    second = run_sandbox(n1)  # the same request on another node: other ids, an address from its own subnet
    assert second != first
    ip0 = n0.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=first), timeout=10).status.network.ip
    ip1 = n1.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=second), timeout=10).status.network.ip
    assert ip0.startswith("10.88.0.") and ip1.startswith("10.88.1."), (ip0, ip1)
    # The kubelet's UpdateRuntimeConfig moves one node's CIDR only.
    n1.UpdateRuntimeConfig(pb.UpdateRuntimeConfigRequest(
        runtime_config=pb.RuntimeConfig(network_config=pb.NetworkConfig(pod_cidr="10.244.7.0/24"))), timeout=10)
    with FarmClient(farm.control_socket) as c:
        cidrs = {n["name"]: n["pod_cidr"] for n in c.nodes()}
    assert cidrs == {"node-0": "10.88.0.0/24", "node-1": "10.244.7.0/24"}


def test_seeds_are_derived_from_the_farm_seed_and_the_name():
    assert node_seed(11, "node-0") == node_seed(11, "node-0")
    assert len({node_seed(11, "node-0"), node_seed(11, "node-1"), node_seed(12, "node-0")}) == 3
    assert 0 <= node_seed(-5, "x") < 2**63


def _errors_seen(farm: Farm, name: str, calls: int = 40) -> list[bool]:
    rt = runtime(farm, name)
    seen = []
    for _ in range(calls):
        try:
            rt.Version(pb.VersionRequest(), timeout=10)
            seen.append(False)
        except grpc.RpcError:
            seen.append(True)
    return seen


def test_a_fault_fires_differently_on_each_node_and_the_same_on_every_run():
    flaky = Fault(type="error", target="Version", toxicity=0.5, attributes={"code": "UNAVAILABLE"})
    runs = []
    for _ in range(2):
        with _farm(2, seed=5, faults=[flaky]) as f:
            runs.append((_errors_seen(f, "node-0"), _errors_seen(f, "node-1")))
    assert runs[0] == runs[1]
    node0, node1 = runs[0]
    assert node0 != node1 and 0 < sum(node0) < len(node0)


def test_nodes_are_added_and_removed_at_run_time(farm):
    with FarmClient(farm.control_socket) as c:
        added = c.add_node()
        assert added["name"] == "node-2" and added["pod_cidr"] == "10.88.2.0/24"
        assert os.path.exists(added["socket"])
        run_sandbox(runtime(farm, "node-2"))
        assert {n["name"]: n["sandboxes"] for n in c.nodes()} == {"node-0": 0, "node-1": 0, "node-2": 1}
        named = c.add_node("edge.example", pod_cidr="10.99.0.0/24")
        assert named["pod_cidr"] == "10.99.0.0/24"
        c.remove_node("node-0")
        assert not os.path.exists(farm.socket_of("node-0"))
        assert sorted(n["name"] for n in c.nodes()) == ["edge.example", "node-1", "node-2"]
        # Names never repeat; a removed node's subnet is handed out again.
        assert c.add_node()["pod_cidr"] == "10.88.0.0/24"
        stub = c._stub
        cases = [
            (stub.AddNode, cpb.AddNodeRequest(name="node-1"), grpc.StatusCode.ALREADY_EXISTS, "node-1"),
            (stub.AddNode, cpb.AddNodeRequest(name="Not_A_Name"), grpc.StatusCode.INVALID_ARGUMENT, "Not_A_Name"),
            (stub.AddNode, cpb.AddNodeRequest(pod_cidr="10.88.1.0/25"), grpc.StatusCode.INVALID_ARGUMENT, "node-1"),
            (stub.AddNode, cpb.AddNodeRequest(pod_cidr="ten"), grpc.StatusCode.INVALID_ARGUMENT, "ten"),
            (stub.RemoveNode, cpb.RemoveNodeRequest(name="nope"), grpc.StatusCode.NOT_FOUND, "nope"),
            (stub.RemoveNode, cpb.RemoveNodeRequest(), grpc.StatusCode.INVALID_ARGUMENT, "name"),
        ]
        for call, request, code, named_in_message in cases:
            got, details = code_of(call, request)
            assert got == code and named_in_message in details, (request, got, details)


def test_a_farm_out_of_subnets_says_so():
    with _farm(2, pod_cidr="10.50.0.0/23") as f, FarmClient(f.control_socket) as c:
        got, details = code_of(c.add_node)
        assert got == grpc.StatusCode.RESOURCE_EXHAUSTED and "10.50.0.0/23" in details


def test_farms_with_an_index_share_one_pod_cidr_without_overlap():
    """Pods of a StatefulSet, one farm each, all given the same --pod-cidr: farm I's nodes take
    subnets I*N to I*N+N-1, and a node added beyond N has no subnet of the farm's share."""
    seen = {}
    for index in (0, 1, 2):
        with _farm(3, pod_cidr="198.18.0.0/15", farm_index=index) as f, FarmClient(f.control_socket) as c:
            cidrs = [n["pod_cidr"] for n in sorted(c.nodes(), key=lambda n: n["name"])]
            seen[index] = cidrs
            got, details = code_of(c.add_node)
            assert got == grpc.StatusCode.RESOURCE_EXHAUSTED and "this farm's share" in details, details
            # With a pod CIDR of its own, it still joins.
            c.add_node(name="extra", pod_cidr="198.19.255.0/24")
    assert seen == {0: ["198.18.0.0/24", "198.18.1.0/24", "198.18.2.0/24"],
                    1: ["198.18.3.0/24", "198.18.4.0/24", "198.18.5.0/24"],
                    2: ["198.18.6.0/24", "198.18.7.0/24", "198.18.8.0/24"]}


def test_the_last_farm_that_fits_and_the_first_that_does_not():
    # 198.18.0.0/15 holds 512 subnets of /24: farms 0 to 50 of 10 nodes fit, farm 51 does not.
    check_farm(ServerConfig(pod_cidr="198.18.0.0/15"), FarmConfig(nodes=10, socket_dir="/tmp/d", farm_index=50))
    with pytest.raises(ValueError) as info:
        check_farm(ServerConfig(pod_cidr="198.18.0.0/15"), FarmConfig(nodes=10, socket_dir="/tmp/d", farm_index=51))
    assert "--farm-index 51" in str(info.value) and "farms 0 to 50" in str(info.value)
    with _farm(2, pod_cidr="198.18.0.0/15", node_cidr_size=25, farm_index=511) as f:
        assert [f.describe(n).pod_cidr for n in sorted(f.servers)] == ["198.19.255.0/25", "198.19.255.128/25"]


def test_bytes_that_are_no_request_get_invalid_argument(farm):
    channel = grpc.insecure_channel("unix:" + farm.control_socket)
    raw = channel.unary_unary("/fakecri.control.v1.Farm/AddNode")
    with pytest.raises(grpc.RpcError) as info:
        raw(b"\xff\xff\xff", timeout=10)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert FarmClient(farm.control_socket).nodes()  # and the farm still serves


def test_control_calls_reach_the_node_they_name(farm):
    with ControlClient(farm.control_socket, node="node-1") as one:
        one.add_fault({"type": "error", "target": "Version", "attributes": {"code": "UNAVAILABLE"}})
    got, _ = code_of(runtime(farm, "node-1").Version, pb.VersionRequest())
    assert got == grpc.StatusCode.UNAVAILABLE
    runtime(farm, "node-0").Version(pb.VersionRequest(), timeout=10)  # untouched
    with ControlClient(farm.socket_of("node-0")) as own:  # a node's own socket serves its control API
        assert own.list_faults() == []
    for client, code in ((ControlClient(farm.control_socket), grpc.StatusCode.INVALID_ARGUMENT),
                         (ControlClient(farm.control_socket, node="node-9"), grpc.StatusCode.NOT_FOUND),
                         (ControlClient(farm.socket_of("node-0"), node="node-1"), grpc.StatusCode.NOT_FOUND)):
        with client:
            got, details = code_of(client.list_faults)
        assert got == code, details


def test_health_per_node_and_for_the_farm(farm):
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel("unix:" + farm.control_socket))

    def status(service: str = "") -> str:
        return health_pb2.HealthCheckResponse.ServingStatus.Name(
            health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10).status)

    assert (status(), status("node-0"), status("node-1")) == ("SERVING",) * 3
    with ControlClient(farm.control_socket, node="node-1") as one:
        one.restart(30.0)
    assert (status(), status("node-0"), status("node-1")) == ("NOT_SERVING", "SERVING", "NOT_SERVING")
    with FarmClient(farm.control_socket) as c:
        c.remove_node("node-1")
    assert (status(), status("node-1")) == ("SERVING", "SERVICE_UNKNOWN")


def test_one_metrics_endpoint_labels_every_series_with_its_node(farm):
    run_sandbox(runtime(farm, "node-1"))
    url = farm.addresses()["metrics"]
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    assert 'fakecri_sandboxes{node="node-1",state="READY"} 1.0' in text
    assert 'fakecri_sandboxes{node="node-0",state="READY"} 0.0' in text
    assert 'fakecri_rpcs_total{code="OK",method="RunPodSandbox",node="node-1"} 1.0' in text
    assert text.count("# TYPE fakecri_sandboxes gauge") == 1


def test_each_node_keeps_its_state_in_the_state_dir(tmp_path):
    state_dir = tmp_path / "state"
    kept = {}
    with _farm(2, state_dir=str(state_dir)) as f:
        for name in ("node-0", "node-1"):
            kept[name] = run_sandbox(runtime(f, name), name)
    assert sorted(p for p in os.listdir(state_dir) if p.endswith(".json")) == ["node-0.json", "node-1.json"]
    with _farm(2, state_dir=str(state_dir)) as f:
        for name in ("node-0", "node-1"):
            items = runtime(f, name).ListPodSandbox(pb.ListPodSandboxRequest(), timeout=10).items
            assert [s.id for s in items] == [kept[name]]


@pytest.mark.parametrize("settings, farm_settings, words", [
    ({}, {"nodes": 2}, "--socket-dir"),
    ({"socket": "/tmp/x.sock"}, {"nodes": 2, "socket_dir": "/tmp/d"}, "--socket"),
    ({"listen": "127.0.0.1:0"}, {"nodes": 2, "socket_dir": "/tmp/d"}, "--listen"),
    ({"state_file": "/tmp/s.json"}, {"nodes": 2, "socket_dir": "/tmp/d"}, "--state-dir"),
    ({}, {"socket_dir": "/tmp/d"}, "--nodes"),
    ({}, {"nodes": 2, "socket_dir": "/tmp/d", "node_name": "same"}, "same name"),
    ({}, {"nodes": 2, "socket_dir": "/tmp/d", "node_name": "n-{j}"}, "{i}"),
    ({}, {"nodes": 1, "socket_dir": "/tmp/d", "node_name": "Upper-{i}"}, "DNS subdomain"),
    ({"pod_cidr": "10.0.0.0/24"}, {"nodes": 2, "socket_dir": "/tmp/d"}, "--node-cidr-size"),
    ({"pod_cidr": "10.0.0.0/23"}, {"nodes": 3, "socket_dir": "/tmp/d"}, "fewer than --nodes 3"),
    ({}, {"nodes": 1, "socket_dir": "/tmp/" + "d" * 120}, "longer than"),
    ({}, {"farm_index": 3}, "--farm-index is for a node farm"),
])
def test_a_farm_that_cannot_be_says_why(settings, farm_settings, words):
    with pytest.raises(ValueError) as info:
        check_farm(ServerConfig(**settings), FarmConfig(**farm_settings))
    assert words in str(info.value)


def test_node_names_come_from_the_pattern():
    assert [name_for("node-{i}", i) for i in range(3)] == ["node-0", "node-1", "node-2"]
    assert name_for("rack1.n{i:03d}", 7) == "rack1.n007"


def test_serve_takes_socket_and_state_dirs_that_already_exist(tmp_path):
    """`fakecri serve --nodes` a second time on the same directories: the option types once took
    --socket-dir and --state-dir for file paths and refused every existing directory."""
    import signal
    import subprocess
    import sys

    socket_dir = tempfile.mkdtemp(prefix="fm-", dir="/tmp")
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    for _ in range(2):
        proc = subprocess.Popen([sys.executable, "-m", "fakecri.cli", "serve", "--nodes", "1", "--socket-dir",
                                 socket_dir, "--state-dir", str(state_dir), "--root", str(tmp_path / "root"),
                                 "--log-level", "warning"], stderr=subprocess.PIPE, text=True)
        try:
            line = proc.stderr.readline()
            assert "serving 1 nodes" in line, line + proc.stderr.read()
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(10) == 0
