"""Wire helpers: fragments and Stream* batches that respect both item and byte limits."""
from __future__ import annotations

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.server.wire import JoinCache, batches, field_fragment


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


def test_join_cache_batches_split_by_bytes_too():
    frags = _frags(10)
    cache = JoinCache(limit=1 << 20)
    first = list(cache.batches("k", frags, 10, max_bytes=len(frags[0]) * 4))
    again = list(cache.batches("k", frags, 10, max_bytes=len(frags[0]) * 4))
    assert first == again and len(first) == 3
