"""Seed derivation: one seed, many independent random streams keyed by stable names."""
from __future__ import annotations

import hashlib
import random


def derive_seed(seed: int, *key: object) -> int:
    """A 64-bit seed from `seed` and a key. Stable across runs and processes (no salted hash())."""
    text = "\x1f".join([str(seed), *(str(part) for part in key)])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def derive_rng(seed: int, *key: object) -> random.Random:
    """A `random.Random` of its own for (seed, key)."""
    return random.Random(derive_seed(seed, *key))
