"""Seed derivation is stable across processes and independent per key."""
import hashlib

from fakecri.faults.rng import derive_rng, derive_seed


def test_derive_seed_is_a_sha256_of_the_seed_and_key():
    # Pinned so that a change to the derivation (or a salted hash) is caught.
    expected = int.from_bytes(hashlib.sha256(b"7\x1ffault\x1ferror_1").digest()[:8], "big")
    assert derive_seed(7, "fault", "error_1") == expected


def test_keys_and_seeds_give_different_streams():
    seeds = {derive_seed(1, "fault", "a"), derive_seed(1, "fault", "b"), derive_seed(2, "fault", "a"),
             derive_seed(1, "subscriber", 0, "a"), derive_seed(1, "subscriber", 1, "a")}
    assert len(seeds) == 5


def test_same_key_same_sequence():
    a, b = derive_rng(42, "x"), derive_rng(42, "x")
    assert [a.random() for _ in range(5)] == [b.random() for _ in range(5)]
