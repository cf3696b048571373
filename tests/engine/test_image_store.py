"""ImageStore: pull, lookups, removal, fs usage, persistence, limits."""
import json
import re

import pytest

from fakecri.engine.codec import to_data
from fakecri.engine.errors import InvalidArgument, NotFound, ResourceExhausted, Unauthenticated
from fakecri.engine.images import IMAGE_FS_MOUNTPOINT, ImageStore, Pullable
from fakecri.sim.catalog import Catalog

ID_RE = re.compile(r"sha256:[0-9a-f]{64}")
DIGEST = "sha256:" + "cd" * 32


@pytest.fixture
def store():
    return ImageStore(Catalog())


def test_pull_records_normalised_tag_id_digest_and_size(store):
    img = store.pull("busybox")
    assert ID_RE.fullmatch(img.id)
    assert img.repo_tags == ("docker.io/library/busybox:latest",)
    [rd] = img.repo_digests
    assert rd.startswith("docker.io/library/busybox@sha256:") and ID_RE.fullmatch(rd.split("@")[1])
    assert img.size > 0
    assert store.get(img.id) is img and store.get("sha256:" + "0" * 64) is None and store.changes == 1


def test_pulls_are_deterministic_across_stores():
    a, b = ImageStore(Catalog()).pull("nginx:1.27"), ImageStore(Catalog()).pull("nginx:1.27")
    assert (a.id, a.repo_digests, a.size) == (b.id, b.repo_digests, b.size)


def test_different_tags_without_catalog_are_different_images(store):
    assert store.pull("nginx:1").id != store.pull("nginx:2").id
    assert len(store) == 2


def test_pull_by_digest_has_no_tags_and_keeps_the_digest(store):
    img = store.pull(f"quay.io/x/y@{DIGEST}")
    assert img.repo_tags == ()
    assert img.repo_digests == (f"quay.io/x/y@{DIGEST}",)
    again = store.pull(f"quay.io/x/y@{DIGEST}")
    assert again is img and again.id == img.id and len(store) == 1


def test_same_digest_gives_same_id_in_a_fresh_store(store):
    first = store.pull(f"busybox@{DIGEST}").id
    assert ImageStore(Catalog()).pull(f"busybox@{DIGEST}").id == first


def test_tag_then_its_digest_is_one_image(store):
    img = store.pull("busybox:1.36")
    digest = img.repo_digests[0].split("@")[1]
    assert store.pull(f"busybox@{digest}") is img
    assert img.repo_tags == ("docker.io/library/busybox:1.36",) and len(store) == 1


def test_a_repull_that_adds_nothing_changes_nothing(store):
    img = store.pull("busybox")
    changes = store.changes
    assert store.pull("busybox") is img and store.changes == changes


def test_a_pull_that_adds_a_tag_replaces_the_record(store):
    img = store.pull(f"busybox@{DIGEST}")
    changes = store.changes
    store.pull("busybox:1")  # another image
    also = store.pull(f"quay.io/other/busybox@{DIGEST}")  # the same image, from another repository
    assert also is not img and also.id == img.id and store.changes == changes + 2
    assert img.repo_digests == (f"docker.io/library/busybox@{DIGEST}",)  # the old record stays as it was
    assert also.repo_digests == (f"docker.io/library/busybox@{DIGEST}", f"quay.io/other/busybox@{DIGEST}")
    assert store.get(img.id) is also


def test_catalog_maps_two_tags_to_one_image():
    cat = Catalog.from_dict({"images": [{"tags": ["app:1", "app:stable"], "size": 1234}]})
    store = ImageStore(cat)
    a, b = store.pull("app:1"), store.pull("docker.io/library/app:stable")
    assert a.id == b.id and b.size == 1234 and len(store) == 1
    assert b.repo_tags == ("docker.io/library/app:1", "docker.io/library/app:stable")
    assert len(b.repo_digests) == 1 and store.status("app:1") is b


def test_one_image_in_two_repositories_has_a_repo_digest_in_each():
    cat = Catalog.from_dict({"images": [{"tags": ["quay.io/x/app:1", "ghcr.io/y/app:1"], "digest": DIGEST}]})
    store = ImageStore(cat)
    a, b = store.pull("quay.io/x/app:1"), store.pull("ghcr.io/y/app:1")
    assert a.id == b.id and b.repo_digests == (f"quay.io/x/app@{DIGEST}", f"ghcr.io/y/app@{DIGEST}")
    assert store.status(f"ghcr.io/y/app@{DIGEST}") is b and store.status(f"quay.io/x/app@{DIGEST}") is b


def test_a_tag_moves_to_the_image_that_now_holds_it():
    first = Catalog.from_dict({"images": [{"tags": ["app:live"], "digest": DIGEST}]})
    old = ImageStore(first).pull("app:live")
    # The registry moved the tag: a store over the new registry, holding what the first pulled.
    store = ImageStore(Catalog.from_dict({"images": [{"tags": ["app:live"], "digest": "sha256:" + "ef" * 32}]}))
    store.load({"images": [to_data(old)]})
    new = store.pull("app:live")
    assert new.id != old.id and new.repo_tags == ("docker.io/library/app:live",)
    assert store.get(old.id).repo_tags == ()
    assert store.status("app:live") is new
    assert store.status(f"app@{DIGEST}") is store.get(old.id) and len(store) == 2


def test_status_by_tag_digest_id_prefix_and_missing(store):
    img = store.pull("busybox")
    assert store.status("busybox") is img
    assert store.status("docker.io/library/busybox:latest") is img
    assert store.status(img.repo_digests[0]) is img
    assert store.status(img.id) is img
    assert store.status(img.id[7:]) is img
    assert store.status(img.id[7:19]) is img
    assert store.status(img.id[:19]) is img
    assert store.status("busybox:other") is None
    assert store.status("sha256:" + "0" * 64) is None


def test_status_of_ambiguous_prefix_is_invalid_argument():
    cat = Catalog.from_dict(
        {"images": [{"tags": ["a:1"], "id": "sha256:ab" + "1" * 62}, {"tags": ["b:1"], "id": "sha256:ab" + "2" * 62}]}
    )
    store = ImageStore(cat)
    store.pull("a:1"), store.pull("b:1")
    with pytest.raises(InvalidArgument, match="'ab'"):
        store.status("ab")


def test_status_of_malformed_reference_is_invalid_argument(store):
    with pytest.raises(InvalidArgument, match="Not/Valid"):
        store.status("quay.io/Not/Valid")


def test_resolve_missing_is_not_found_naming_ref(store):
    with pytest.raises(NotFound, match="'nginx'"):
        store.resolve("nginx")
    img = store.pull("nginx")
    assert store.resolve("nginx") is img


def test_list_with_and_without_filter(store):
    b1, b2, n = store.pull("busybox:1"), store.pull("busybox:2"), store.pull("nginx")
    assert store.list() == [b1, b2, n] and isinstance(store.list(), list)
    assert store.list("busybox") == [b1, b2]
    assert store.list("busybox:2") == [b2]
    assert store.list(n.id) == [n]
    assert store.list(n.id[7:14]) == [n]
    assert store.list(n.id[:14]) == [n]
    assert store.list("redis") == []


def test_remove_is_idempotent_and_drops_every_tag(store):
    img = store.pull("busybox:1")
    store.pull(img.repo_digests[0])
    before = store.changes
    store.remove("busybox:1")
    assert store.status("busybox:1") is None and store.status(img.repo_digests[0]) is None
    assert len(store) == 0 and store.changes > before
    before = store.changes
    store.remove("busybox:1")
    store.remove(img.id)
    assert store.changes == before


def test_fs_usage_sums_sizes(store):
    a, b = store.pull("a"), store.pull("b")
    usage = store.fs_usage(123)
    assert usage.used_bytes == a.size + b.size
    assert usage.inodes_used > 0 and usage.mountpoint == IMAGE_FS_MOUNTPOINT and usage.timestamp_ns == 123
    assert ImageStore(Catalog()).fs_usage(5).used_bytes == 0


def test_max_images_is_resource_exhausted_naming_the_ref():
    store = ImageStore(Catalog(), max_images=1)
    img = store.pull("a")
    assert store.pull("a") is img  # re-pulling a present image is fine
    with pytest.raises(ResourceExhausted, match="'b'"):
        store.pull("b")
    assert len(store) == 1


def test_round_trip_through_to_dict(store):
    cat = Catalog.from_dict({"images": [{"tags": ["app:1"], "username": "app", "uid": 1000}]})
    store = ImageStore(cat)
    a, b = store.pull("app:1"), store.pull(f"x/y@{DIGEST}")
    pause = store.pull("registry.k8s.io/pause:3.10")
    copy = ImageStore(Catalog())
    copy.pull("busybox")  # replaced by what is loaded
    copy.load(json.loads(json.dumps(store.to_dict())))
    ca = copy.status("app:1")
    assert (ca.id, ca.repo_tags, ca.repo_digests, ca.size, ca.uid, ca.username) == (
        a.id, a.repo_tags, a.repo_digests, a.size, 1000, "app",
    )
    assert copy.status(f"x/y@{DIGEST}").id == b.id and copy.status("busybox") is None
    assert copy.status(pause.id).pinned
    assert copy.to_dict() == store.to_dict()


@pytest.mark.parametrize(
    "snapshot",
    [{}, {"images": [{"id": "nope", "repo_tags": [], "repo_digests": [], "size": 1}]},
     {"images": [{"id": "sha256:" + "a" * 64, "repo_tags": [], "repo_digests": [], "size": 0}]}],
)
def test_malformed_snapshot_is_invalid_argument_and_changes_nothing(store, snapshot):
    img = store.pull("busybox")
    changes = store.changes
    with pytest.raises(InvalidArgument, match="images"):
        store.load(snapshot)
    assert store.list() == [img] and store.changes == changes


def test_pull_duration_default_and_per_image():
    cat = Catalog.from_dict(
        {"default_pull_duration_s": 0.2, "images": [{"tags": ["slow:1"], "pull_duration_s": 3}]}
    )
    store = ImageStore(cat)
    assert store.check_pull("slow:1") == 3.0
    assert store.check_pull("fast") == 0.2
    assert ImageStore(Catalog()).check_pull("busybox") == pytest.approx(0.05)
    assert len(store) == 0  # checking records nothing


def test_check_pull_raises_what_pull_would_without_recording():
    cat = Catalog.from_dict({"unknown": ["gone"], "auth": [{"references": ["docker.io/private/*"], "username": "u",
                                                              "password": "p"}]})
    store = ImageStore(cat)
    for call in (store.check_pull, store.pull):
        with pytest.raises(NotFound, match="gone"):
            call("gone")
        with pytest.raises(Unauthenticated, match="required"):
            call("private/app:1")
        with pytest.raises(InvalidArgument):
            call("Not/Valid")
    assert len(store) == 0 and store.changes == 0
    assert store.check_pull("private/app:1", {"username": "u", "password": "p"}) >= 0
    assert store.pull("private/app:1", {"username": "u", "password": "p"}).repo_tags == (
        "docker.io/private/app:1",)


class Asked:
    """A registry that answers one image and records what it was asked (the Registry port)."""

    def __init__(self):
        self.asked = []

    def lookup(self, ref, auth):
        self.asked.append((str(ref), auth))
        return Pullable(digest=DIGEST, id="sha256:" + "ab" * 32, size=10, pull_duration_s=1.5, username="app",
                        uid=7)


def test_the_store_records_what_the_registry_answers():
    reg = Asked()
    store = ImageStore(reg)
    assert store.check_pull("app", {"username": "x"}) == 1.5 and len(store) == 0
    img = store.pull("app:2")
    assert reg.asked == [("docker.io/library/app:latest", {"username": "x"}), ("docker.io/library/app:2", None)]
    assert (img.id, img.size, img.username, img.uid, img.repo_digests) == (
        "sha256:" + "ab" * 32, 10, "app", 7, (f"docker.io/library/app@{DIGEST}",))


def test_pause_image_is_pinned_by_default(store):
    assert store.pull("registry.k8s.io/pause:3.10").pinned
    assert not store.pull("busybox").pinned
