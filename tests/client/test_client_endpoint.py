import pytest

from fakecri.client import InvalidEndpointError, parse_endpoint


@pytest.mark.parametrize(
    "text, scheme, address, target",
    [
        ("unix:///run/containerd/containerd.sock", "unix", "/run/containerd/containerd.sock",
         "unix:///run/containerd/containerd.sock"),
        ("unix:/var/run/crio/crio.sock", "unix", "/var/run/crio/crio.sock", "unix:///var/run/crio/crio.sock"),
        ("/tmp/fc-x/cri.sock", "unix", "/tmp/fc-x/cri.sock", "unix:///tmp/fc-x/cri.sock"),
        ("tcp://127.0.0.1:10010", "tcp", "127.0.0.1:10010", "127.0.0.1:10010"),
        ("tcp://localhost:9000", "tcp", "localhost:9000", "localhost:9000"),
        ("  unix:///a.sock ", "unix", "/a.sock", "unix:///a.sock"),
    ],
)
def test_kubelet_endpoint_forms(text, scheme, address, target):
    ep = parse_endpoint(text)
    assert (ep.scheme, ep.address, ep.target) == (scheme, address, target)


def test_unix_str_round_trips():
    ep = parse_endpoint("unix:/x/y.sock")
    assert str(ep) == "unix:///x/y.sock"
    assert parse_endpoint(str(ep)) == ep


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("npipe:////./pipe/containerd", "not supported"),
        ("http://localhost:80", "not supported"),
        ("tcp://localhost", "port"),
        ("tcp://", "host:port"),
        ("unix://run/containerd.sock", "unix:///"),
        ("containerd", "neither"),
    ],
)
def test_bad_endpoints_say_why(text, words):
    with pytest.raises(InvalidEndpointError) as info:
        parse_endpoint(text)
    assert words in str(info.value)
