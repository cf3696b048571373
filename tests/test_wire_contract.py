"""Our runtime.v1 proto against the CRI wire contract (kubernetes/cri-api), as data.

The contract JSON files in tests/data list every message, field, enum and RPC. The
descriptors come from the generated module, so this also covers what users import.
"""
from __future__ import annotations

import json
import pathlib

import pytest
from google.protobuf import descriptor_pb2 as d

from fakecri.api.runtime.v1 import api_pb2

DATA = pathlib.Path(__file__).parent / "data"
F = d.FieldDescriptorProto
SCALARS = {
    F.TYPE_DOUBLE: "double", F.TYPE_FLOAT: "float", F.TYPE_INT64: "int64", F.TYPE_UINT64: "uint64",
    F.TYPE_INT32: "int32", F.TYPE_FIXED64: "fixed64", F.TYPE_FIXED32: "fixed32", F.TYPE_BOOL: "bool",
    F.TYPE_STRING: "string", F.TYPE_BYTES: "bytes", F.TYPE_UINT32: "uint32", F.TYPE_SFIXED32: "sfixed32",
    F.TYPE_SFIXED64: "sfixed64", F.TYPE_SINT32: "sint32", F.TYPE_SINT64: "sint64",
}


def _our_contract() -> dict:
    fd = d.FileDescriptorProto.FromString(api_pb2.DESCRIPTOR.serialized_pb)
    pkg = fd.package
    entries: dict[str, d.DescriptorProto] = {}
    messages, enums = {}, {}

    def type_name(f: F) -> str:
        return SCALARS.get(f.type) or f.type_name.lstrip(".")

    def collect_entries(prefix: str, msgs) -> None:
        for m in msgs:
            if m.options.map_entry:
                entries[f"{prefix}.{m.name}"] = m
            collect_entries(f"{prefix}.{m.name}", m.nested_type)

    def walk(prefix: str, msgs) -> None:
        for m in msgs:
            name = f"{prefix}.{m.name}"
            if m.options.map_entry:
                continue
            fields = {}
            for f in m.field:
                entry = entries.get(f.type_name.lstrip("."))
                if entry is not None and f.label == F.LABEL_REPEATED:
                    key, value = entry.field
                    fields[f.name] = {"number": f.number, "label": "map", "key_type": type_name(key),
                                      "type": type_name(value)}
                    continue
                if f.label == F.LABEL_REPEATED:
                    label = "repeated"
                elif f.proto3_optional:
                    label = "optional"
                else:
                    label = "singular"
                ent = {"number": f.number, "type": type_name(f), "label": label}
                if f.options.deprecated:
                    ent["deprecated"] = True
                fields[f.name] = ent
            messages[name] = fields
            for e in m.enum_type:
                enums[f"{name}.{e.name}"] = {v.name: v.number for v in e.value}
            walk(name, m.nested_type)

    collect_entries(pkg, fd.message_type)
    walk(pkg, fd.message_type)
    for e in fd.enum_type:
        enums[f"{pkg}.{e.name}"] = {v.name: v.number for v in e.value}
    services = {
        f"{pkg}.{s.name}": {
            m.name: (m.input_type.lstrip("."), m.output_type.lstrip("."), m.client_streaming, m.server_streaming)
            for m in s.method
        }
        for s in fd.service
    }
    return {"package": pkg, "messages": messages, "enums": enums, "services": services}


def _load(name: str) -> dict:
    raw = json.loads((DATA / name).read_text())
    messages = {}
    for m in raw["messages"]:
        fields = {}
        for f in m["fields"]:
            ent = {k: v for k, v in f.items() if k != "name"}
            fields[f["name"]] = ent
        messages[m["name"]] = fields
    enums = {e["name"]: {v["name"]: v["number"] for v in e["values"]} for e in raw["enums"]}
    services = {
        s["name"]: {
            m["name"]: (m["input_type"], m["output_type"], m["client_streaming"], m["server_streaming"])
            for m in s["methods"]
        }
        for s in raw["services"]
    }
    return {"package": raw["package"], "messages": messages, "enums": enums, "services": services}


def _differences(ours: dict, theirs: dict) -> list[str]:
    diffs = []
    if ours["package"] != theirs["package"]:
        diffs.append(f"package {ours['package']} != {theirs['package']}")
    for kind in ("messages", "enums", "services"):
        for name in sorted(set(ours[kind]) | set(theirs[kind])):
            a, b = ours[kind].get(name), theirs[kind].get(name)
            if a != b:
                diffs.append(f"{kind[:-1]} {name}: ours={a} contract={b}")
    return diffs


def test_proto_matches_the_contract_exactly():
    ours, contract = _our_contract(), _load("runtime-v1.json")
    assert _differences(ours, contract) == []
    assert sum(len(s) for s in ours["services"].values()) == 43
    assert len(ours["messages"]) == 175


def _same_wire_type(a: str, b: str) -> bool:
    # KeyValue.value became bytes after v0.36.0; string and bytes share the wire encoding.
    return a == b or {a, b} == {"string", "bytes"}


@pytest.mark.parametrize("old", ["runtime-v1-v0.36.0.json"])
def test_crictl_136_contract_is_wire_compatible(old):
    """crictl 1.36 speaks v0.36.0: everything it knows must exist with the same numbers and types."""
    ours, theirs = _our_contract(), _load(old)
    problems = []
    for name, fields in theirs["messages"].items():
        for fname, ent in fields.items():
            mine = ours["messages"].get(name, {}).get(fname)
            if mine is None or mine["number"] != ent["number"] or not _same_wire_type(mine["type"], ent["type"]):
                problems.append(f"{name}.{fname}: {mine} vs {ent}")
    for name, values in theirs["enums"].items():
        # Only the numbers travel on the wire; v0.36.0 spells Signal values without the prefix.
        if sorted(values.values()) != sorted(ours["enums"][name].values()):
            problems.append(f"enum {name} numbers differ")
    for svc, methods in theirs["services"].items():
        for mname, sig in methods.items():
            if ours["services"][svc].get(mname) != sig:
                problems.append(f"{svc}/{mname}")
    assert problems == []
