"""A client built from the v0.36.0 contract (what crictl 1.36 speaks) drives fakecri.

The old API is rebuilt here from tests/data/runtime-v1-v0.36.0.json into a private
descriptor pool, so nothing is shared with fakecri's own generated code: bytes on the
wire are the only link, as with a real crictl.
"""
from __future__ import annotations

import json
import pathlib

import grpc
import pytest
from google.protobuf import descriptor_pb2 as d
from google.protobuf import descriptor_pool, message_factory

DATA = pathlib.Path(__file__).parent / "data"
F = d.FieldDescriptorProto
SCALAR = {
    "double": F.TYPE_DOUBLE, "float": F.TYPE_FLOAT, "int64": F.TYPE_INT64, "uint64": F.TYPE_UINT64,
    "int32": F.TYPE_INT32, "fixed64": F.TYPE_FIXED64, "fixed32": F.TYPE_FIXED32, "bool": F.TYPE_BOOL,
    "string": F.TYPE_STRING, "bytes": F.TYPE_BYTES, "uint32": F.TYPE_UINT32, "sfixed32": F.TYPE_SFIXED32,
    "sfixed64": F.TYPE_SFIXED64, "sint32": F.TYPE_SINT32, "sint64": F.TYPE_SINT64,
}


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_")) + "Entry"


def old_api():
    contract = json.loads((DATA / "runtime-v1-v0.36.0.json").read_text())
    pkg = contract["package"]
    enums = {e["name"] for e in contract["enums"]}
    fd = d.FileDescriptorProto(name="oldcri/api.proto", package=pkg, syntax="proto3")
    by_name: dict[str, d.DescriptorProto] = {}

    def set_type(field, type_name):
        if type_name in SCALAR:
            field.type = SCALAR[type_name]
        else:
            field.type = F.TYPE_ENUM if type_name in enums else F.TYPE_MESSAGE
            field.type_name = "." + type_name

    for m in contract["messages"]:
        msg = fd.message_type.add(name=m["name"][len(pkg) + 1:])
        by_name[m["name"]] = msg
        for f in m["fields"]:
            field = msg.field.add(name=f["name"], number=f["number"], json_name=f["name"])
            if f["label"] == "map":
                entry = msg.nested_type.add(name=_camel(f["name"]))
                entry.options.map_entry = True
                k = entry.field.add(name="key", number=1, label=F.LABEL_OPTIONAL)
                set_type(k, f["key_type"])
                v = entry.field.add(name="value", number=2, label=F.LABEL_OPTIONAL)
                set_type(v, f["type"])
                field.label = F.LABEL_REPEATED
                field.type = F.TYPE_MESSAGE
                field.type_name = f".{m['name']}.{entry.name}"
            else:
                field.label = F.LABEL_REPEATED if f["label"] == "repeated" else F.LABEL_OPTIONAL
                set_type(field, f["type"])
    for e in contract["enums"]:
        short = e["name"][len(pkg) + 1:]
        parent, _, leaf = short.rpartition(".")
        target = by_name[f"{pkg}.{parent}"].enum_type if parent else fd.enum_type
        enum = target.add(name=leaf)
        for v in e["values"]:
            enum.value.add(name=v["name"], number=v["number"])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    classes = message_factory.GetMessages([fd], pool=pool)
    methods = {m["name"]: m for s in contract["services"] for m in s["methods"]}
    services = {m["name"]: s["name"] for s in contract["services"] for m in s["methods"]}
    return classes, methods, services


class OldClient:
    def __init__(self, target: str) -> None:
        self.classes, self.methods, self.services = old_api()
        self.channel = grpc.insecure_channel(target)

    def msg(self, _type: str, **kw):
        return self.classes[f"runtime.v1.{_type}"](**kw)

    def call(self, method: str, request):
        m = self.methods[method]
        out = self.classes[m["output_type"]]
        stub = self.channel.unary_unary(f"/{self.services[method]}/{method}",
                                        request_serializer=lambda r: r.SerializeToString(),
                                        response_deserializer=out.FromString)
        return stub(request, timeout=10)


@pytest.fixture
def old(srv):
    srv.reset()
    client = OldClient("unix:" + srv.config.socket)
    yield client
    client.channel.close()


def test_crictl_136_lifecycle(old):
    v = old.call("Version", old.msg("VersionRequest", version="v1"))
    assert v.runtime_api_version == "v1"
    old.call("PullImage", old.msg("PullImageRequest", image=old.msg("ImageSpec", image="busybox")))
    md = old.msg("PodSandboxMetadata", name="old", namespace="default", uid="u-old", attempt=0)
    cfg = old.msg("PodSandboxConfig", metadata=md)
    sid = old.call("RunPodSandbox", old.msg("RunPodSandboxRequest", config=cfg)).pod_sandbox_id
    ccfg = old.msg("ContainerConfig", metadata=old.msg("ContainerMetadata", name="c"),
                   image=old.msg("ImageSpec", image="busybox"), command=["sleep", "3600"],
                   envs=[old.msg("KeyValue", key="A", value="b")],
                   linux=old.msg("LinuxContainerConfig"))
    cid = old.call("CreateContainer", old.msg("CreateContainerRequest", pod_sandbox_id=sid, config=ccfg,
                                              sandbox_config=cfg)).container_id
    old.call("StartContainer", old.msg("StartContainerRequest", container_id=cid))
    listed = old.call("ListContainers", old.msg("ListContainersRequest"))
    assert [c.id for c in listed.containers] == [cid]
    st = old.call("ContainerStatus", old.msg("ContainerStatusRequest", container_id=cid, verbose=True)).status
    assert st.state == 1 and st.metadata.name == "c"
    # crictl 1.36 names Signal values without the SIGNAL_ prefix; only the number travels.
    assert st.stop_signal == 0
    pods = old.call("ListPodSandbox", old.msg("ListPodSandboxRequest"))
    assert [p.id for p in pods.items] == [sid]
    stats = old.call("ListContainerStats", old.msg("ListContainerStatsRequest"))
    assert [s.attributes.id for s in stats.stats] == [cid]
    old.call("StopPodSandbox", old.msg("StopPodSandboxRequest", pod_sandbox_id=sid))
    old.call("RemovePodSandbox", old.msg("RemovePodSandboxRequest", pod_sandbox_id=sid))
    assert list(old.call("ListPodSandbox", old.msg("ListPodSandboxRequest")).items) == []


def test_every_old_rpc_is_served(old, srv):
    """No method crictl 1.36 knows answers UNIMPLEMENTED (an empty request may be refused)."""
    for name, m in old.methods.items():
        if m["server_streaming"]:
            continue
        try:
            old.call(name, old.classes[m["input_type"]]())
        except grpc.RpcError as exc:
            assert exc.code() not in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.UNKNOWN,
                                      grpc.StatusCode.INTERNAL), (name, exc.code(), exc.details())
