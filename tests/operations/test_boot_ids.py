"""Ids across restarts: reproducible from the seed within one process, never repeated by a
restarted fakecri unless --deterministic-ids asks for it."""
from __future__ import annotations

from fakecri.server.config import ServerConfig
from fakecri.server.node.node import id_source


def first_ids(config: ServerConfig, boot: str, n: int = 3) -> list[str]:
    ids = id_source(config, boot)
    return [ids.new_id() for _ in range(n)]


def test_same_seed_same_boot_same_ids():
    cfg = ServerConfig(socket="x", seed=7)
    assert first_ids(cfg, "boot-a") == first_ids(cfg, "boot-a")


def test_a_new_boot_never_repeats_the_ids_of_the_last():
    cfg = ServerConfig(socket="x", seed=7)
    assert not set(first_ids(cfg, "boot-a", 50)) & set(first_ids(cfg, "boot-b", 50))


def test_deterministic_ids_repeat_across_boots_and_follow_the_seed():
    cfg = ServerConfig(socket="x", seed=7, deterministic_ids=True)
    assert first_ids(cfg, "boot-a") == first_ids(cfg, "boot-b")
    other = ServerConfig(socket="x", seed=8, deterministic_ids=True)
    assert first_ids(cfg, "boot-a") != first_ids(other, "boot-a")
