"""Catalog: loading, unknown references, auth, validation errors."""
import base64
import json
import re

import pytest

from fakecri.engine.errors import InvalidArgument, NotFound, Unauthenticated
from fakecri.engine.images import ImageStore, normalize
from fakecri.server.host.catalog_file import load_catalog
from fakecri.sim.catalog import Catalog

PRIVATE = {
    "auth": [
        {"references": ["registry.example.com/private/*"], "username": "alice", "password": "s3cret"},
        {"references": ["ghcr.io/org/app"], "registry_token": "tok"},
        {"references": ["quay.io/team/*"], "auth": base64.b64encode(b"bob:pw").decode()},
    ]
}


def store_with(data):
    return ImageStore(Catalog.from_dict(data))


def test_unknown_references_are_not_found_and_record_nothing():
    store = store_with({"unknown": ["docker.io/library/gone", "quay.io/old/*"]})
    for ref in ("gone", "gone:1", "quay.io/old/thing:v2"):
        with pytest.raises(NotFound, match=re.escape(f'"{normalize(ref)}"')):  # named in full
            store.pull(ref)
    assert len(store) == 0
    assert store.pull("gone2").size > 0


def test_allow_unknown_false_limits_pulls_to_the_catalog():
    store = store_with({"allow_unknown": False, "images": [{"tags": ["known:1"]}]})
    assert store.pull("known:1").repo_tags == ("docker.io/library/known:1",)
    with pytest.raises(NotFound, match='"docker.io/library/known:2"'):
        store.pull("known:2")


def test_catalog_digest_is_pullable_by_digest():
    digest = "sha256:" + "12" * 32
    store = store_with({"allow_unknown": False, "images": [{"tags": ["app:1"], "digest": digest, "size": 99}]})
    img = store.pull(f"app@{digest}")
    assert img.repo_tags == () and img.repo_digests == (f"docker.io/library/app@{digest}",) and img.size == 99
    again = store.pull("app:1")
    assert again.id == img.id and again.repo_tags == ("docker.io/library/app:1",) and len(store) == 1


def test_auth_needs_matching_username_and_password():
    store = store_with(PRIVATE)
    ref = "registry.example.com/private/db:1"
    with pytest.raises(Unauthenticated, match="required"):
        store.pull(ref)
    with pytest.raises(Unauthenticated, match="rejected"):
        store.pull(ref, {"username": "alice", "password": "wrong"})
    assert len(store) == 0
    assert store.pull(ref, {"username": "alice", "password": "s3cret"}).size > 0
    b64 = base64.b64encode(b"alice:s3cret").decode()
    assert store.pull("registry.example.com/private/db:2", {"auth": b64}).size > 0


def test_auth_by_registry_token_and_by_encoded_auth_rule():
    store = store_with(PRIVATE)
    with pytest.raises(Unauthenticated):
        store.pull("ghcr.io/org/app:v1", {"registry_token": "nope"})
    assert store.pull("ghcr.io/org/app:v1", {"registry_token": "tok"})
    assert store.pull("quay.io/team/x", {"username": "bob", "password": "pw"})
    assert store.pull("public/image")  # outside every rule: no credentials needed


def test_check_pull_raises_without_recording():
    store = store_with(PRIVATE)
    with pytest.raises(Unauthenticated):
        store.check_pull("ghcr.io/org/app")
    assert store.check_pull("ghcr.io/org/app", {"registry_token": "tok"}) == pytest.approx(0.05)
    assert store.check_pull("busybox") == pytest.approx(0.05)  # the seconds the pull takes
    assert len(store) == 0


def test_the_catalog_is_the_registry_port():
    cat = Catalog.from_dict({"images": [{"tags": ["app:1"], "size": 7, "username": "app", "uid": 1000,
                                         "pull_duration_s": 2, "pinned": True}]})
    got = cat.lookup(normalize("app:1"), None)
    assert (got.size, got.username, got.uid, got.pull_duration_s, got.pinned) == (7, "app", 1000, 2.0, True)
    assert got.id == cat.find(normalize("app:1")).id and got.digest == cat.find(normalize("app:1")).digest
    other = cat.lookup(normalize("other:1"), None)  # not described: derived, and the same every time
    assert other == cat.lookup(normalize("other:1"), None) and other.id != got.id


def test_from_file_json_and_yaml(tmp_path):
    data = {"images": [{"tags": ["app:1"], "size": 7}], "unknown": ["nope"]}
    jpath = tmp_path / "catalog.json"
    jpath.write_text(json.dumps(data))
    ypath = tmp_path / "catalog.yaml"
    ypath.write_text("images:\n  - tags: [app:1]\n    size: 7\nunknown: [nope]\n")
    for path in (jpath, ypath):
        store = ImageStore(load_catalog(path))
        assert store.pull("app:1").size == 7
        with pytest.raises(NotFound):
            store.pull("nope")


@pytest.mark.parametrize(
    "data, fragment",
    [
        ({"images": [{"tags": ["a:1"], "colour": "red"}]}, "images[0]: unknown key 'colour'"),
        ({"bogus": 1}, "unknown key 'bogus'"),
        ({"images": [{"tags": ["a:1"], "size": 0}]}, "images[0]: size"),
        ({"images": [{"tags": ["a:1"], "id": "sha256:xyz"}]}, "images[0]: id"),
        ({"images": [{"tags": ["a:1"], "digest": "md5"}]}, "images[0]: digest"),
        ({"images": [{"size": 5}]}, "images[0] needs at least one tag"),
        ({"images": [{"tags": ["Bad"]}]}, "images[0]: tags: image reference 'Bad'"),
        ({"unknown": ["Bad"]}, "unknown: image reference 'Bad'"),
        ({"auth": [{"references": ["x"]}]}, "auth[0] needs"),
        ({"auth": [{"username": "u", "password": "p"}]}, "auth[0]: references"),
        ({"allow_unknown": "yes"}, "allow_unknown"),
        ({"default_pull_duration_s": -1}, "default_pull_duration_s"),
        ({"images": {"a": 1}}, "images must be a list"),
    ],
)
def test_bad_catalogs_name_source_and_key(data, fragment):
    with pytest.raises(InvalidArgument) as exc:
        Catalog.from_dict(data, source="cat.yaml")
    assert "image catalog cat.yaml" in exc.value.message
    assert fragment in exc.value.message


def test_bad_files_name_the_file(tmp_path):
    bad = tmp_path / "c.json"
    bad.write_text("{nope")
    with pytest.raises(InvalidArgument, match="c.json.*JSON"):
        load_catalog(bad)
    badyaml = tmp_path / "c.yaml"
    badyaml.write_text("images: [\n")
    with pytest.raises(InvalidArgument, match="c.yaml.*YAML"):
        load_catalog(badyaml)
    with pytest.raises(InvalidArgument, match="missing.yaml"):
        load_catalog(tmp_path / "missing.yaml")
    badkey = tmp_path / "k.yaml"
    badkey.write_text("bogus: 1\n")
    with pytest.raises(InvalidArgument, match="image catalog .*k.yaml: unknown key 'bogus'"):
        load_catalog(badkey)
    empty = tmp_path / "e.yaml"
    empty.write_text("")
    assert load_catalog(empty).allow_unknown


STRANGER = "does-not-exist.example.com/foo/bar:nope"


def test_any_reference_pulls_by_default():
    assert ImageStore(Catalog()).pull(STRANGER).size > 0


def test_the_strict_built_in_catalog_answers_not_found_as_a_registry_does():
    store = ImageStore(Catalog().strict())
    with pytest.raises(NotFound) as exc:
        store.pull(STRANGER)
    assert exc.value.message == (f'failed to pull and unpack image "{STRANGER}": failed to resolve reference '
                                 f'"{STRANGER}": {STRANGER}: not found')
    for ref in ("nosuchimage", "docker.io/library/busybx:1.36", "quay.io/busybox/busybox:1"):
        with pytest.raises(NotFound):
            store.pull(ref)
    # What critest, the node e2e tests and the examples pull is there, at any tag.
    for ref in ("busybox", "busybox:1.36", "nginx:1.27", "httpd:2.4", "alpine:3.20", "registry.k8s.io/pause:3.10.1",
                "registry.k8s.io/e2e-test-images/agnhost:2.53", "gcr.io/k8s-staging-cri-tools/test-image-tags:1"):
        assert store.pull(ref).size > 0, ref


def test_a_strict_catalog_file_lists_what_it_has():
    data = {"allow_unknown": False, "images": [{"tags": ["app:1"]}], "known": ["registry.example.com/team/*"],
            "unknown": ["registry.example.com/team/gone"]}
    store = store_with(data)
    assert store.pull("app:1") and store.pull("registry.example.com/team/web:2")
    for ref in ("app:2", "busybox", "registry.example.com/team/gone:1", "registry.example.com/other/web:1"):
        with pytest.raises(NotFound):
            store.pull(ref)
    # Without allow_unknown: false, `known` changes nothing: everything pulls but `unknown`.
    assert store_with({**data, "allow_unknown": True}).pull("busybox")


def test_known_patterns_are_checked():
    with pytest.raises(InvalidArgument, match="known"):
        Catalog.from_dict({"known": ["Not/Valid"]})
    with pytest.raises(InvalidArgument, match="known must be a list"):
        Catalog.from_dict({"known": "busybox"})
