"""Reference normalisation, as containerd and docker do it."""
import pytest

from fakecri.engine.errors import InvalidArgument
from fakecri.engine.images import normalize

SHA = "sha256:" + "ab" * 32


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("busybox", "docker.io/library/busybox:latest"),
        ("busybox:1.36", "docker.io/library/busybox:1.36"),
        ("library/busybox", "docker.io/library/busybox:latest"),
        ("docker.io/busybox", "docker.io/library/busybox:latest"),
        ("index.docker.io/library/busybox:1", "docker.io/library/busybox:1"),
        ("bitnami/redis:7", "docker.io/bitnami/redis:7"),
        ("quay.io/x/y", "quay.io/x/y:latest"),
        ("registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10"),
        ("host:5000/x:tag", "host:5000/x:tag"),
        ("host:5000/x", "host:5000/x:latest"),
        ("localhost/app", "localhost/app:latest"),
        ("localhost:5000/team/app:v1.2-rc_3", "localhost:5000/team/app:v1.2-rc_3"),
        ("[::1]:5000/app:v1", "[::1]:5000/app:v1"),
        (f"busybox@{SHA}", f"docker.io/library/busybox@{SHA}"),
        (f"quay.io/x/y:v1@{SHA}", f"quay.io/x/y:v1@{SHA}"),
        ("my_app/a__b/c-d--e.f", "docker.io/my_app/a__b/c-d--e.f:latest"),
    ],
)
def test_normalises_like_containerd(ref, expected):
    assert str(normalize(ref)) == expected


def test_parts_of_a_digest_reference():
    n = normalize(f"busybox@{SHA}")
    assert (n.domain, n.path, n.tag, n.digest) == ("docker.io", "library/busybox", None, SHA)
    assert n.tagged is None and n.digested == f"docker.io/library/busybox@{SHA}"
    assert not n.tag_implicit


def test_implicit_tag_is_marked():
    assert normalize("busybox").tag_implicit
    assert not normalize("busybox:latest").tag_implicit


@pytest.mark.parametrize(
    "ref",
    [
        "",
        " busybox",
        "Busybox",
        "docker.io/Library/busybox",
        "busybox:",
        "busybox:-bad",
        "busybox:" + "t" * 129,
        "busybox@",
        "busybox@sha256:abc",
        "busybox@sha256:" + "AB" * 32,
        ":tag",
        "a//b",
        "-lead/x",
        "x/trail-",
        "quay.io/",
        "bad_host.io_/x",
        "ab" * 32,  # a bare 64-hex id is not a name
        "a/" + "b" * 260,
    ],
)
def test_malformed_references_are_invalid_argument_naming_them(ref):
    with pytest.raises(InvalidArgument) as exc:
        normalize(ref)
    assert repr(ref) in exc.value.message
