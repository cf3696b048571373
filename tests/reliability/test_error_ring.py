"""A handler that raises answers INTERNAL and is recorded, but the record is a ring: a count
of every one and the tracebacks of the last 100, each cut to 16 KiB. (Each one used to be
kept forever: 40,000 of them cost 43 MiB and made GetServerInfo exceed 16 MiB.)"""
from __future__ import annotations

import grpc
import pytest

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.control.v1 import control_pb2_grpc
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.node.call_path import TRACEBACK_CHARS
from fakecri.server.node.node import ERROR_RING as KEPT_ERRORS
from fakecri.server.process.app import FakeCRIServer, ServerErrors


def test_internal_errors_keep_a_count_and_the_last_tracebacks_only():
    with FakeCRIServer() as server, grpc.insecure_channel(server.endpoint) as ch:
        def boom(*_args, **_kwargs):
            raise RuntimeError("boom " + "x" * 1_000_000)

        server.call(lambda: setattr(server.node.runtime, "get_sandbox", boom))
        rt, ctl = api_pb2_grpc.RuntimeServiceStub(ch), control_pb2_grpc.ControlStub(ch)
        calls = 3 * KEPT_ERRORS
        for i in range(calls):
            with pytest.raises(grpc.RpcError) as err:
                rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=f"p{i}"), timeout=10)
            assert err.value.code() == grpc.StatusCode.INTERNAL
            assert len(err.value.details()) < 2048 and "boom" in err.value.details()
        info = ctl.GetServerInfo(cpb.GetServerInfoRequest(), timeout=10)
        assert info.counters["internal_errors"] == calls
        assert len(info.errors) == KEPT_ERRORS
        assert all(len(tb) <= TRACEBACK_CHARS + 100 and "RuntimeError" in tb for tb in info.errors)
        assert info.ByteSize() < 4 * 1024 * 1024
        with pytest.raises(ServerErrors, match=f"{calls} times; the last {KEPT_ERRORS} shown"):
            server.check()
        server.reset()
        info = ctl.GetServerInfo(cpb.GetServerInfoRequest(), timeout=10)
        assert not info.errors and not info.counters["internal_errors"]
        server.check()
