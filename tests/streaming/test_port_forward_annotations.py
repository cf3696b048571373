"""The check RunPodSandbox makes of the `fakecri.io/port-forward` annotations."""
from __future__ import annotations

import pytest

from fakecri.engine.errors import InvalidArgument
from fakecri.server.streaming.annotations import (
    check_port_forward_annotation,
    check_port_forward_annotations,
    parse_port_forward_annotation,
)
from fakecri.server.streaming.backend import PortForwardBehaviour


@pytest.mark.parametrize("value, behaviour", [
    ("echo", PortForwardBehaviour.echo()),
    (" echo ", PortForwardBehaviour.echo()),
    ("refuse", PortForwardBehaviour.refuse()),
    ("refuse:nothing listens", PortForwardBehaviour.refuse("nothing listens")),
    ("http", PortForwardBehaviour.http()),
    ("http:404", PortForwardBehaviour.http(404)),
    ("http:200:hello:world", PortForwardBehaviour.http(200, b"hello:world")),
])
def test_good_values_read_as_their_behaviour(value, behaviour):
    check_port_forward_annotation(value)
    assert parse_port_forward_annotation(value) == behaviour


@pytest.mark.parametrize("value", ["", "bogus", "echo:x", "http:abc", "http:99", "http:600", "http:2000",
                                   "http:-1", "http:²⁰⁰", "HTTP:200", "x" * 100_000])
def test_bad_values_are_invalid_argument_naming_the_annotation(value):
    with pytest.raises(InvalidArgument) as err:
        check_port_forward_annotation(value)
    assert err.value.message.startswith("annotation fakecri.io/port-forward: ")
    assert len(err.value.message) < 300  # a huge value is not echoed back whole


@pytest.mark.parametrize("annotations, named", [
    ({"fakecri.io/port-forward": "nope"}, "fakecri.io/port-forward:"),
    ({"fakecri.io/port-forward.80": "http:abc"}, "fakecri.io/port-forward.80:"),
    ({"fakecri.io/port-forward.0": "echo"}, "fakecri.io/port-forward.0:"),
    ({"fakecri.io/port-forward.70000": "echo"}, "fakecri.io/port-forward.70000:"),
    ({"fakecri.io/port-forward.http": "echo"}, "fakecri.io/port-forward.http:"),
])
def test_every_port_forward_annotation_of_a_sandbox_is_checked(annotations, named):
    with pytest.raises(InvalidArgument) as err:
        check_port_forward_annotations({"other": "x", **annotations})
    assert named in err.value.message


def test_a_sandbox_with_good_or_no_port_forward_annotations_passes():
    check_port_forward_annotations({})
    check_port_forward_annotations({"fakecri.io/port-forward": "refuse", "fakecri.io/port-forward.8080": "http:201:x",
                                    "fakecri.io/port-forwarding": "not ours", "io.kubernetes.pod.uid": "u"})
