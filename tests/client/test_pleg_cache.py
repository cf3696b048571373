import threading

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.pleg import PodCache, PodStatus, State


def status(uid="u", state=pb.CONTAINER_RUNNING):
    return PodStatus(uid, container_statuses=[pb.ContainerStatus(id="c1", state=state)])


def test_stale_update_rejected_equal_overwrites():
    cache = PodCache(reject_stale=True)
    assert cache.set("u", status(), None, 100)
    assert not cache.set("u", status(state=pb.CONTAINER_EXITED), None, 99)
    assert cache.get("u").status.states() == {"c1": State.RUNNING}
    assert cache.rejected == 1
    assert cache.set("u", status(state=pb.CONTAINER_EXITED), None, 100)
    assert cache.get("u").status.states() == {"c1": State.EXITED}
    assert cache.get("u").modified == 100


def test_without_the_rule_every_update_wins():
    cache = PodCache(reject_stale=False)
    cache.set("u", status(), None, 100)
    assert cache.set("u", status(state=pb.CONTAINER_EXITED), None, 1)
    assert cache.get("u").modified == 1


def test_delete_and_snapshot():
    cache = PodCache()
    cache.set("a", status("a"), None, 1)
    cache.set("b", None, "inspect failed", 1)
    assert cache.states() == {"a": {"c1": State.RUNNING}, "b": {}}
    assert cache.get("b").error == "inspect failed"
    cache.delete("a")
    cache.delete("missing")
    assert cache.uids() == ["b"] and len(cache) == 1


def test_get_newer_than_wakes_on_entry_or_global_time():
    cache = PodCache()
    cache.set("u", status(), None, 10)
    assert cache.get_newer_than("u", 9, timeout=0).modified == 10
    assert cache.get_newer_than("u", 10, timeout=0.05) is None
    threading.Timer(0.05, cache.update_time, args=(11,)).start()
    entry = cache.get_newer_than("u", 10, timeout=5)
    assert entry is not None and entry.modified == 10  # woken by the global tick
    assert cache.timestamp == 11
    cache.update_time(5)
    assert cache.timestamp == 11
