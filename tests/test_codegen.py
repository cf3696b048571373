"""The committed stubs under fakecri/api are exactly what protoc makes from proto/."""
from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.skipif(importlib.util.find_spec("grpc_tools") is None, reason="grpcio-tools is a dev dependency")
def test_generated_stubs_are_current(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_proto
    finally:
        sys.path.pop(0)
    gen_proto.generate(tmp_path)
    generated = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert generated, "protoc produced nothing"
    stale = [str(rel) for rel in generated if (ROOT / rel).read_bytes() != (tmp_path / rel).read_bytes()]
    assert stale == [], f"regenerate with `python scripts/gen_proto.py`: {stale}"


def test_stubs_import_by_package_path():
    from fakecri.api.control.v1 import control_pb2_grpc
    from fakecri.api.runtime.v1 import api_pb2, api_pb2_grpc

    assert api_pb2.DESCRIPTOR.package == "runtime.v1"
    assert hasattr(api_pb2_grpc, "RuntimeServiceStub") and hasattr(api_pb2_grpc, "ImageServiceStub")
    assert hasattr(control_pb2_grpc, "ControlStub")
