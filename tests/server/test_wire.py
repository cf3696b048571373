"""Wire helpers: fragments and Stream* batches that respect both item and byte limits."""
from __future__ import annotations

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.server.codec.encode import VersionedCache, batches, field_fragment


def _frags(n, size=100):
    return [field_fragment(1, pb.PodSandbox(id=f"{i:064x}", runtime_handler="x" * size).SerializeToString())
            for i in range(n)]


def test_fragments_join_into_a_valid_list_message():
    frags = _frags(3)
    msg = pb.ListPodSandboxResponse.FromString(b"".join(frags))
    assert [int(s.id, 16) for s in msg.items] == [0, 1, 2]


def test_batches_bound_items_and_bytes_and_keep_everything_once():
    frags = _frags(50)
    out = list(batches(frags, 20, max_bytes=len(frags[0]) * 7 + 1))
    assert all(len(b) <= len(frags[0]) * 7 + 1 for b in out)
    ids = [s.id for b in out for s in pb.StreamPodSandboxesResponse.FromString(b).pod_sandboxes]
    assert ids == [f"{i:064x}" for i in range(50)]
    assert len(list(batches(frags, 20))) == 3


def test_versioned_cache_answers_only_at_the_version_it_was_made():
    frags = _frags(10)
    cache = VersionedCache(limit=1 << 20)
    chunks = list(batches(frags, 10, max_bytes=len(frags[0]) * 4))
    cache.put("k", 7, chunks)
    assert cache.get("k", 7) is chunks and len(chunks) == 3
    assert cache.get("k", 8) is None  # something changed since: build again
    cache.put("big", 7, b"x" * ((1 << 20) + 1))
    assert cache.get("big", 7) is None  # over the limit: answered, not kept


def test_fragments_asked_one_by_one_stay_bounded():
    """A kubelet that lists pod by pod never makes the cache prune (only a whole list does), and
    every change is a new record: the cache starts over past twice the records last listed (plus
    SLACK) instead of keeping every record that ever was (the soak's RSS grew 20 MiB in 3 minutes)."""
    from fakecri.server.codec.encode import FragmentCache

    class Rec:  # compared by identity, as the engine's frozen records are
        pass

    cache = FragmentCache(lambda r: pb.PodSandbox(id="x"))
    live = [Rec() for _ in range(100)]
    cache.every(live)
    for _ in range(5 * FragmentCache.SLACK):
        cache.of(Rec())  # a replaced record each time
    assert len(cache._frags) <= 2 * len(live) + FragmentCache.SLACK
    assert cache.of(live[0]) == cache.every(live)[0]  # answers stay right


def test_an_events_statuses_name_the_image_the_event_carries():
    """The tag in an event's container statuses is the one its image had at the event, which the
    event carries; the image store is not asked (it may hold the image no more, or retagged)."""
    from fakecri.engine.clock import FakeClock, RandomIds
    from fakecri.engine.runtime import Runtime
    from fakecri.server.codec.encode import StatusCache
    from fakecri.sim.catalog import Catalog
    from fakecri.sim.image_content import BUSYBOX

    catalog = Catalog()
    runtime = Runtime(FakeClock(), RandomIds(1), registry=catalog)
    runtime.images.pull("busybox:1.36")
    sb = runtime.run_pod_sandbox(name="p", namespace="ns", uid="u")
    c = runtime.create_container(sb.id, name="c", image="busybox:1.36")
    created = runtime.drain_events()[-1]
    runtime.images.remove(c.image_id)
    statuses = StatusCache(runtime, lambda rec: BUSYBOX)
    wire = statuses.event_response(created, created.type, created.created_at, frozenset(), True)
    [status] = pb.ContainerEventResponse.FromString(wire).containers_statuses
    assert status.image.image == "docker.io/library/busybox:1.36" and status.image_ref == c.image_ref
    assert statuses.container_status(c).image.image == "busybox:1.36"  # asked now: the image is gone
