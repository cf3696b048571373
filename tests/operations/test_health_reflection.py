"""The standard gRPC health and reflection services, called with the standard clients."""
from __future__ import annotations

import grpc
import pytest
from click.testing import CliRunner
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from fakecri.cli import main
from fakecri.server.process.app import FakeCRIServer, short_socket_path

SERVING = health_pb2.HealthCheckResponse.SERVING


@pytest.fixture(scope="module")
def server():
    with FakeCRIServer(seed=1) as srv:
        yield srv


@pytest.fixture
def channel(server):
    ch = grpc.insecure_channel("unix:" + server.config.socket)
    yield ch
    ch.close()


@pytest.mark.parametrize("service", ["", "runtime.v1.RuntimeService", "runtime.v1.ImageService"])
def test_health_check_serving(channel, service):
    resp = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
    assert resp.status == SERVING


def test_health_check_unknown_service_is_not_found(channel):
    with pytest.raises(grpc.RpcError) as err:
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service="nope.Service"), timeout=10)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_health_watch_sends_the_current_status(channel):
    stream = health_pb2_grpc.HealthStub(channel).Watch(
        health_pb2.HealthCheckRequest(service="runtime.v1.RuntimeService"), timeout=10)
    first = next(stream)
    stream.cancel()
    assert first.status == SERVING


def test_reflection_lists_every_service(channel):
    services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    assert {"runtime.v1.RuntimeService", "runtime.v1.ImageService", "grpc.health.v1.Health",
            "grpc.reflection.v1alpha.ServerReflection", "fakecri.control.v1.Control"} <= services


def test_reflection_file_containing_symbol(channel):
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    req = reflection_pb2.ServerReflectionRequest(file_containing_symbol="runtime.v1.RuntimeService")
    [resp] = list(stub.ServerReflectionInfo(iter([req]), timeout=10))
    files = [descriptor_pb2.FileDescriptorProto.FromString(b)
             for b in resp.file_descriptor_response.file_descriptor_proto]
    runtime_file = next(f for f in files if f.package == "runtime.v1")
    methods = {m.name for s in runtime_file.service if s.name == "RuntimeService" for m in s.method}
    assert {"RunPodSandbox", "GetContainerEvents", "ListContainers"} <= methods


def test_reflection_resolves_a_message_through_the_descriptor_pool(channel):
    from google.protobuf.descriptor_pool import DescriptorPool

    pool = DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
    method = pool.FindServiceByName("runtime.v1.RuntimeService").methods_by_name["RunPodSandbox"]
    assert method.input_type.full_name == "runtime.v1.RunPodSandboxRequest"


def test_health_cli_serving(server):
    result = CliRunner().invoke(main, ["health", "--socket", server.config.socket])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "SERVING"
    result = CliRunner().invoke(main, ["health", "--endpoint", server.endpoint, "--timeout", "10"])
    assert result.exit_code == 0 and result.output.strip() == "SERVING"


def test_health_cli_fails_when_nothing_listens():
    missing = short_socket_path()
    result = CliRunner().invoke(main, ["health", "--socket", missing, "--timeout", "2"])
    assert result.exit_code == 1
    assert "health check failed: UNAVAILABLE" in result.output
